"""Elementwise math, comparisons, bitwise/shift ops, special values and integer overflow."""
from __future__ import annotations

from typing import Iterator

import ml_dtypes
import numpy as np

from pjrt_cts.golden import dtypes
from pjrt_cts.golden.generator.core import CaseSpec, rng_for
from pjrt_cts.golden.generator.env import jax  # noqa: F401 - imported first for its side effect: it configures JAX
from pjrt_cts.golden.generator.inputs import SHAPES, nary_ref, random_array, special_values, unary_ref

from jax import lax  # noqa: E402 - imported after env has configured JAX
from jax._src.lib.mlir.dialects import hlo  # noqa: E402 - imported after env has configured JAX

from pjrt_cts.golden.generator.prims import emit  # noqa: E402 - imported after env has configured JAX

FLOATS = ("f16", "bf16", "f32", "f64")


def _round_afz(x: np.ndarray) -> np.ndarray:
    return np.copysign(np.floor(np.abs(x) + 0.5), x)


def _ieee_maximum(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    both_zero = (a == 0) & (b == 0)
    return np.where(both_zero, np.where(np.signbit(a) & np.signbit(b), -0.0, 0.0), np.maximum(a, b))


def _ieee_minimum(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    both_zero = (a == 0) & (b == 0)
    return np.where(both_zero, np.where(np.signbit(a) | np.signbit(b), -0.0, 0.0), np.minimum(a, b))


def _logistic(x):
    # lax.logistic expands to exp/divide; emit the StableHLO op itself.
    return emit(lambda v: hlo.logistic(v), [(x.shape, x.dtype)], x)[0]


# name -> (lax function, numpy reference, op class, input kind, stablehlo op)
FLOAT_UNARY = {
    "abs": (lax.abs, np.abs, "exact", "normal", "stablehlo.abs"),
    "negate": (lax.neg, np.negative, "exact", "normal", "stablehlo.negate"),
    "ceil": (lax.ceil, np.ceil, "exact", "normal", "stablehlo.ceil"),
    "floor": (lax.floor, np.floor, "exact", "normal", "stablehlo.floor"),
    "sign": (lax.sign, np.sign, "arith", "normal", "stablehlo.sign"),
    "round_nearest_afz": (lambda x: lax.round(x, lax.RoundingMethod.AWAY_FROM_ZERO), _round_afz, "exact", "normal",
                          "stablehlo.round_nearest_afz"),
    "round_nearest_even": (lambda x: lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN), np.rint, "exact", "normal",
                           "stablehlo.round_nearest_even"),
    "sqrt": (lax.sqrt, np.sqrt, "arith", "positive", "stablehlo.sqrt"),
    "rsqrt": (lax.rsqrt, lambda x: 1.0 / np.sqrt(x), "transcendental", "positive", "stablehlo.rsqrt"),
    "cbrt": (lax.cbrt, np.cbrt, "transcendental", "normal", "stablehlo.cbrt"),
    "exponential": (lax.exp, np.exp, "transcendental", "normal", "stablehlo.exponential"),
    "exponential_minus_one": (lax.expm1, np.expm1, "transcendental", "normal", "stablehlo.exponential_minus_one"),
    "log": (lax.log, np.log, "transcendental", "positive", "stablehlo.log"),
    "log_plus_one": (lax.log1p, np.log1p, "transcendental", "unit", "stablehlo.log_plus_one"),
    "logistic": (_logistic, lambda x: 1.0 / (1.0 + np.exp(-x)), "transcendental", "normal", "stablehlo.logistic"),
    "sine": (lax.sin, np.sin, "transcendental", "small", "stablehlo.sine"),
    "cosine": (lax.cos, np.cos, "transcendental", "small", "stablehlo.cosine"),
    "tan": (lax.tan, np.tan, "transcendental", "unit", "stablehlo.tan"),
    "tanh": (lax.tanh, np.tanh, "transcendental", "normal", "stablehlo.tanh"),
    "is_finite": (lax.is_finite, np.isfinite, "exact", "normal", "stablehlo.is_finite"),
}

COMPLEX_UNARY = ("abs", "negate", "sign", "sqrt", "rsqrt", "exponential", "exponential_minus_one", "log",
                 "log_plus_one", "sine", "cosine", "tan", "tanh")
COMPLEX_ONLY = {
    "real": (lax.real, np.real, "exact", "normal", "stablehlo.real"),
    "imag": (lax.imag, np.imag, "exact", "normal", "stablehlo.imag"),
}

FLOAT_BINARY = {
    "add": (lax.add, np.add, "arith", "normal", "stablehlo.add"),
    "subtract": (lax.sub, np.subtract, "arith", "normal", "stablehlo.subtract"),
    "multiply": (lax.mul, np.multiply, "arith", "normal", "stablehlo.multiply"),
    "divide": (lax.div, np.divide, "arith", "nonzero", "stablehlo.divide"),
    "maximum": (lax.max, _ieee_maximum, "exact", "normal", "stablehlo.maximum"),
    "minimum": (lax.min, _ieee_minimum, "exact", "normal", "stablehlo.minimum"),
    "power": (lax.pow, np.power, "transcendental", "positive", "stablehlo.power"),
    "atan2": (lax.atan2, np.arctan2, "transcendental", "normal", "stablehlo.atan2"),
    "remainder": (lax.rem, np.fmod, "arith", "nonzero", "stablehlo.remainder"),
}
COMPLEX_BINARY = ("add", "subtract", "multiply", "divide", "power")


def _complex_tolerance_class(op_class: str) -> str:
    # Complex multiply/divide/abs/sqrt combine several roundings: relative bounds, not ulps.
    return "transcendental" if op_class in ("arith", "exact") else op_class


def _float_cases() -> Iterator[CaseSpec]:
    for name, (fn, ref, op_class, kind, op) in FLOAT_UNARY.items():
        for dtype in FLOATS:
            for shape_name, shape in SHAPES.items():
                case_id = f"elementwise.{name}.{dtype}.{shape_name}"
                rng = rng_for(case_id)
                x = random_array(rng, shape, dtype, kind)
                yield CaseSpec(case_id, fn, [x], op_class=op_class, numpy_ref=unary_ref(ref), numpy_ref_name=f"numpy.{name}",
                               expect_ops=(op,))
    for name in COMPLEX_UNARY:
        fn, ref, op_class, kind, op = FLOAT_UNARY[name]
        for dtype in dtypes.COMPLEX_NAMES:
            case_id = f"elementwise.{name}.{dtype}.r2"
            x = random_array(rng_for(case_id), SHAPES["r2"], dtype, "normal")
            if name in ("log", "sqrt", "rsqrt"):
                x = (x + (3.0 + 0j)).astype(x.dtype)
            if name == "log_plus_one":
                x = (x * 0.3).astype(x.dtype)
            yield CaseSpec(case_id, fn, [x], op_class=_complex_tolerance_class(op_class), numpy_ref=unary_ref(ref),
                           numpy_ref_name=f"numpy.{name}", expect_ops=(op,))
    for name, (fn, ref, op_class, kind, op) in COMPLEX_ONLY.items():
        for dtype in dtypes.COMPLEX_NAMES:
            case_id = f"elementwise.{name}.{dtype}.r2"
            x = random_array(rng_for(case_id), SHAPES["r2"], dtype)
            yield CaseSpec(case_id, fn, [x], op_class=op_class, numpy_ref=unary_ref(ref), numpy_ref_name=f"numpy.{name}",
                           expect_ops=(op,))
    for name, (fn, ref, op_class, kind, op) in FLOAT_BINARY.items():
        for dtype in FLOATS:
            for shape_name, shape in SHAPES.items():
                case_id = f"elementwise.{name}.{dtype}.{shape_name}"
                rng = rng_for(case_id)
                a = random_array(rng, shape, dtype, "positive" if kind == "positive" else "normal")
                b = random_array(rng, shape, dtype, "nonzero" if kind == "nonzero" else ("small" if name == "power" else "normal"))
                yield CaseSpec(case_id, fn, [a, b], op_class=op_class, numpy_ref=nary_ref(ref),
                               numpy_ref_name=f"numpy.{name}", expect_ops=(op,))
    for name in COMPLEX_BINARY:
        fn, ref, op_class, kind, op = FLOAT_BINARY[name]
        for dtype in dtypes.COMPLEX_NAMES:
            case_id = f"elementwise.{name}.{dtype}.r2"
            rng = rng_for(case_id)
            a = random_array(rng, SHAPES["r2"], dtype, "positive" if name == "power" else "normal")
            b = random_array(rng, SHAPES["r2"], dtype)
            if name == "power":
                b = (b * 0.5).astype(b.dtype)
            yield CaseSpec(case_id, fn, [a, b], op_class=_complex_tolerance_class(op_class), numpy_ref=nary_ref(ref),
                           numpy_ref_name=f"numpy.{name}", expect_ops=(op,))
    for dtype, out in (("f32", "c64"), ("f64", "c128")):
        case_id = f"elementwise.complex.{dtype}.r2"
        rng = rng_for(case_id)
        a, b = random_array(rng, SHAPES["r2"], dtype), random_array(rng, SHAPES["r2"], dtype)
        yield CaseSpec(case_id, lax.complex, [a, b], numpy_ref=nary_ref(lambda x, y: x + 1j * y),
                       numpy_ref_name="numpy.complex", expect_ops=("stablehlo.complex",))
    for dtype in FLOATS:
        case_id = f"elementwise.clamp.{dtype}.r2"
        rng = rng_for(case_id)
        x = random_array(rng, SHAPES["r2"], dtype)
        low, high = np.array(-1.0, x.dtype), np.array(1.5, x.dtype)
        yield CaseSpec(case_id, lambda lo, v, hi: lax.clamp(lo, v, hi), [low, x, high],
                       numpy_ref=nary_ref(lambda lo, v, hi: np.minimum(np.maximum(v, lo), hi)), numpy_ref_name="numpy.clip",
                       expect_ops=("stablehlo.clamp",))
        yield _select_case(dtype)


def _select_case(dtype: str) -> CaseSpec:
    case_id = f"elementwise.select.{dtype}.r2"
    rng = rng_for(case_id)
    p = random_array(rng, SHAPES["r2"], "pred")
    a, b = random_array(rng, SHAPES["r2"], dtype), random_array(rng, SHAPES["r2"], dtype)
    return CaseSpec(case_id, lax.select, [p, a, b], numpy_ref=nary_ref(np.where), numpy_ref_name="numpy.where",
                    expect_ops=("stablehlo.select",))


# ---- integers ---------------------------------------------------------------------------------------


def _trunc_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    q = a // b
    adjust = (a % b != 0) & ((a < 0) != (b < 0))
    return (q + adjust.astype(q.dtype)).astype(a.dtype)


def _bits(x: np.ndarray) -> int:
    return x.dtype.itemsize * 8


def _unsigned(x: np.ndarray) -> np.ndarray:
    return x.view(np.dtype(f"u{x.dtype.itemsize}"))


def _shift_amount(x: np.ndarray, s: np.ndarray) -> np.ndarray:
    return _unsigned(s).astype(np.uint64)


def _shl(x: np.ndarray, s: np.ndarray) -> np.ndarray:
    amount = _shift_amount(x, s)
    big = amount >= _bits(x)
    u = _unsigned(x)
    shifted = (u << np.where(big, 0, amount).astype(u.dtype)).astype(u.dtype)
    return np.where(big, 0, shifted).astype(u.dtype).view(x.dtype)


def _shr_logical(x: np.ndarray, s: np.ndarray) -> np.ndarray:
    amount = _shift_amount(x, s)
    big = amount >= _bits(x)
    u = _unsigned(x)
    shifted = (u >> np.where(big, 0, amount).astype(u.dtype)).astype(u.dtype)
    return np.where(big, 0, shifted).astype(u.dtype).view(x.dtype)


def _shr_arith(x: np.ndarray, s: np.ndarray) -> np.ndarray:
    amount = _shift_amount(x, s)
    big = amount >= _bits(x)
    signed = x.view(np.dtype(f"i{x.dtype.itemsize}"))
    clamped = np.where(big, _bits(x) - 1, amount).astype(signed.dtype)
    return (signed >> clamped).astype(signed.dtype).view(x.dtype)


def _popcnt(x: np.ndarray) -> np.ndarray:
    return np.bitwise_count(_unsigned(x)).astype(x.dtype)


def _clz(x: np.ndarray) -> np.ndarray:
    u = _unsigned(x)
    bits = _bits(x)
    count = np.zeros(x.shape, dtype=np.int64)
    for k in range(1, bits + 1):
        count += (u >> u.dtype.type(bits - k)) == 0 if k < bits else (u == 0)
    return count.astype(x.dtype)


INT_UNARY = {
    "not": (lax.bitwise_not, np.invert, "stablehlo.not"),
    "popcnt": (lax.population_count, _popcnt, "stablehlo.popcnt"),
    "count_leading_zeros": (lax.clz, _clz, "stablehlo.count_leading_zeros"),
    "negate": (lax.neg, np.negative, "stablehlo.negate"),
}
SIGNED_UNARY = {
    "abs": (lax.abs, np.abs, "stablehlo.abs"),
    "sign": (lax.sign, np.sign, "stablehlo.sign"),
}
INT_BINARY = {
    "add": (lax.add, np.add, "stablehlo.add"),
    "subtract": (lax.sub, np.subtract, "stablehlo.subtract"),
    "multiply": (lax.mul, np.multiply, "stablehlo.multiply"),
    "divide": (lax.div, _trunc_div, "stablehlo.divide"),
    "remainder": (lax.rem, np.fmod, "stablehlo.remainder"),
    "maximum": (lax.max, np.maximum, "stablehlo.maximum"),
    "minimum": (lax.min, np.minimum, "stablehlo.minimum"),
    "and": (lax.bitwise_and, np.bitwise_and, "stablehlo.and"),
    "or": (lax.bitwise_or, np.bitwise_or, "stablehlo.or"),
    "xor": (lax.bitwise_xor, np.bitwise_xor, "stablehlo.xor"),
    "shift_left": (lax.shift_left, _shl, "stablehlo.shift_left"),
    "shift_right_arithmetic": (lax.shift_right_arithmetic, _shr_arith, "stablehlo.shift_right_arithmetic"),
    "shift_right_logical": (lax.shift_right_logical, _shr_logical, "stablehlo.shift_right_logical"),
}


def _int_cases() -> Iterator[CaseSpec]:
    for dtype in dtypes.INTEGER_NAMES:
        signed = dtype.startswith("s")
        unary = dict(INT_UNARY, **(SIGNED_UNARY if signed else {}))
        for name, (fn, ref, op) in unary.items():
            case_id = f"elementwise.{name}.{dtype}.r2"
            x = random_array(rng_for(case_id), SHAPES["r2"], dtype, "full")
            yield CaseSpec(case_id, fn, [x], numpy_ref=unary_ref(ref), numpy_ref_name=f"numpy.{name}", expect_ops=(op,))
        for name, (fn, ref, op) in INT_BINARY.items():
            case_id = f"elementwise.{name}.{dtype}.r2"
            rng = rng_for(case_id)
            if name.startswith("shift"):
                a = random_array(rng, SHAPES["r2"], dtype, "full")
                bits = np.dtype(dtypes.dtype_of(dtype)).itemsize * 8
                # Amounts inside the width and a few at/over it (defined: 0 or sign fill).
                b = rng.integers(0, bits + 3, size=SHAPES["r2"]).astype(dtypes.dtype_of(dtype))
            elif name in ("divide", "remainder"):
                a = random_array(rng, SHAPES["r2"], dtype, "full")
                b = random_array(rng, SHAPES["r2"], dtype, "nonzero")
                if signed:
                    b = np.where(b == -1, 3, b).astype(b.dtype)  # INT_MIN / -1 is implementation-defined
            elif name in ("add", "subtract", "multiply", "and", "or", "xor", "maximum", "minimum"):
                a = random_array(rng, SHAPES["r2"], dtype, "full")  # wraps on overflow
                b = random_array(rng, SHAPES["r2"], dtype, "full")
            yield CaseSpec(case_id, fn, [a, b], numpy_ref=nary_ref(ref), numpy_ref_name=f"numpy.{name}",
                           expect_ops=(op,))
        case_id = f"elementwise.clamp.{dtype}.r2"
        x = random_array(rng_for(case_id), SHAPES["r2"], dtype)
        low, high = np.array(10, x.dtype), np.array(90, x.dtype)
        yield CaseSpec(case_id, lambda lo, v, hi: lax.clamp(lo, v, hi), [low, x, high],
                       numpy_ref=nary_ref(lambda lo, v, hi: np.minimum(np.maximum(v, lo), hi)), numpy_ref_name="numpy.clip",
                       expect_ops=("stablehlo.clamp",))
        yield _select_case(dtype)
    for name, fn, ref, op in (("and", lax.bitwise_and, np.logical_and, "stablehlo.and"),
                              ("or", lax.bitwise_or, np.logical_or, "stablehlo.or"),
                              ("xor", lax.bitwise_xor, np.logical_xor, "stablehlo.xor")):
        case_id = f"elementwise.{name}.pred.r2"
        rng = rng_for(case_id)
        a, b = random_array(rng, SHAPES["r2"], "pred"), random_array(rng, SHAPES["r2"], "pred")
        yield CaseSpec(case_id, fn, [a, b], numpy_ref=nary_ref(ref), numpy_ref_name=f"numpy.logical_{name}", expect_ops=(op,))
    case_id = "elementwise.not.pred.r2"
    yield CaseSpec(case_id, lax.bitwise_not, [random_array(rng_for(case_id), SHAPES["r2"], "pred")],
                   numpy_ref=unary_ref(np.logical_not), numpy_ref_name="numpy.logical_not", expect_ops=("stablehlo.not",))
    case_id = "elementwise.select.pred.r2"
    rng = rng_for(case_id)
    yield CaseSpec(case_id, lax.select, [random_array(rng, SHAPES["r2"], "pred") for _ in range(3)],
                   numpy_ref=nary_ref(np.where), numpy_ref_name="numpy.where", expect_ops=("stablehlo.select",))


# ---- comparisons ------------------------------------------------------------------------------------

COMPARE = {
    "EQ": (lax.eq, np.equal), "NE": (lax.ne, np.not_equal), "LT": (lax.lt, np.less),
    "LE": (lax.le, np.less_equal), "GT": (lax.gt, np.greater), "GE": (lax.ge, np.greater_equal),
}


def _compare_cases() -> Iterator[CaseSpec]:
    for direction, (fn, ref) in COMPARE.items():
        for dtype in dtypes.INTEGER_NAMES + FLOATS:
            case_id = f"compare.{direction.lower()}.{dtype}.r1"
            rng = rng_for(case_id)
            if dtype in FLOATS:
                special = special_values(dtype)
                a = np.concatenate([special, special, rng.standard_normal(4)]).astype(dtypes.dtype_of(dtype))
                b = np.concatenate([special, special[::-1], rng.standard_normal(4)]).astype(dtypes.dtype_of(dtype))
            else:
                a = random_array(rng, (16,), dtype, "small")
                b = random_array(rng, (16,), dtype, "small")
                b[:4] = a[:4]  # equal pairs
            yield CaseSpec(case_id, fn, [a, b], numpy_ref=nary_ref(ref), numpy_ref_name=f"numpy.compare_{direction.lower()}",
                           expect_ops=("stablehlo.compare",))
        for dtype in ("pred",) + dtypes.COMPLEX_NAMES:
            if direction not in ("EQ", "NE") and dtype != "pred":
                continue
            case_id = f"compare.{direction.lower()}.{dtype}.r1"
            rng = rng_for(case_id)
            a = random_array(rng, (8,), dtype)
            b = random_array(rng, (8,), dtype)
            b[:3] = a[:3]
            yield CaseSpec(case_id, fn, [a, b], numpy_ref=nary_ref(ref), numpy_ref_name=f"numpy.compare_{direction.lower()}",
                           expect_ops=("stablehlo.compare",))


# ---- special float values and integer overflow ------------------------------------------------------

SPECIAL_BINARY = ("add", "subtract", "multiply", "divide", "maximum", "minimum", "power", "atan2", "remainder")
SPECIAL_UNARY = ("abs", "negate", "sqrt", "rsqrt", "exponential", "log", "log_plus_one", "tanh", "sign", "ceil",
                 "floor", "round_nearest_even", "round_nearest_afz", "is_finite", "logistic", "cbrt",
                 "exponential_minus_one", "sine", "cosine")


def _special_cases() -> Iterator[CaseSpec]:
    for dtype in ("f32", "f64", "f16", "bf16"):
        values = special_values(dtype)
        a = values.astype(dtypes.dtype_of(dtype))
        b = np.roll(values, 5).astype(dtypes.dtype_of(dtype))
        for name in SPECIAL_BINARY:
            fn, ref, op_class, _, op = FLOAT_BINARY[name]
            case_id = f"special.{name}.{dtype}"
            grid_a = np.repeat(a, a.size)
            grid_b = np.tile(a, a.size)
            if name in ("maximum", "minimum"):
                # NaN operands get their own cases: NaN propagation through max/min is a separate finding.
                has_nan = np.isnan(grid_a.astype(np.float64)) | np.isnan(grid_b.astype(np.float64))
                yield CaseSpec(f"special.{name}_nan.{dtype}", fn, [grid_a[has_nan], grid_b[has_nan]], op_class=op_class,
                               numpy_ref=nary_ref(ref), numpy_ref_name=f"numpy.{name}", expect_ops=(op,),
                               features=["special_values", "nan_propagation"])
                grid_a, grid_b = grid_a[~has_nan], grid_b[~has_nan]
                # IEEE-754 maximum/minimum order -0.0 below +0.0: also a separate finding.
                both_zero = (grid_a.astype(np.float64) == 0) & (grid_b.astype(np.float64) == 0)
                yield CaseSpec(f"special.{name}_signed_zero.{dtype}", fn, [grid_a[both_zero], grid_b[both_zero]],
                               op_class=op_class, numpy_ref=nary_ref(ref), numpy_ref_name=f"numpy.{name}",
                               expect_ops=(op,), features=["special_values", "signed_zero"], zero_inputs_ok=(0, 1))
                grid_a, grid_b = grid_a[~both_zero], grid_b[~both_zero]
            yield CaseSpec(case_id, fn, [grid_a, grid_b], op_class=op_class, numpy_ref=nary_ref(ref),
                           numpy_ref_name=f"numpy.{name}", expect_ops=(op,), features=["special_values"])
        for name in SPECIAL_UNARY:
            fn, ref, op_class, _, op = FLOAT_UNARY[name]
            case_id = f"special.{name}.{dtype}"
            # sin/cos of huge arguments need exact argument reduction; keep the special values finite-sized.
            x = a if name not in ("sine", "cosine") else np.where(np.abs(a.astype(np.float64)) > 1e4, 3.0, a).astype(a.dtype)
            yield CaseSpec(case_id, fn, [x], op_class=op_class, numpy_ref=unary_ref(ref),
                           numpy_ref_name=f"numpy.{name}", expect_ops=(op,), features=["special_values"])
        del b


# Functions whose naive forms (log(1 + x), exp(x) - 1) lose every digit for |x| << eps.
TINY_UNARY = ("log_plus_one", "exponential_minus_one")


def tiny_values(name: str) -> np.ndarray:
    """+-10**-k from 0.1 down to the smallest subnormal of float type `name` (every decade, or every
    fourth for f64), plus its smallest normal, largest and smallest subnormal: in that type, never 0."""
    info = ml_dtypes.finfo(dtypes.dtype_of(name))
    smallest_subnormal = float(info.smallest_subnormal)
    step = 4 if name == "f64" else 1
    exponents = np.arange(1, int(np.floor(-np.log10(smallest_subnormal))) + 1, step)
    magnitudes = np.concatenate([10.0 ** -exponents, [float(info.tiny), float(info.tiny) - smallest_subnormal,
                                                      smallest_subnormal]])
    values = np.concatenate([magnitudes, -magnitudes]).astype(dtypes.dtype_of(name))
    return values[values.astype(np.float64) != 0]


def _tiny_cases() -> Iterator[CaseSpec]:
    for dtype in FLOATS:
        x = tiny_values(dtype)
        for name in TINY_UNARY:
            fn, ref, op_class, _, op = FLOAT_UNARY[name]
            yield CaseSpec(f"special.{name}_tiny.{dtype}", fn, [x], op_class=op_class, numpy_ref=unary_ref(ref),
                           numpy_ref_name=f"numpy.{name}", expect_ops=(op,), features=["special_values", "tiny_values"])


def _overflow_cases() -> Iterator[CaseSpec]:
    for dtype in dtypes.INTEGER_NAMES:
        np_dtype = dtypes.dtype_of(dtype)
        info = np.iinfo(np_dtype)
        edges = np.array([info.min, info.max, info.min + 1, info.max - 1, 0, 1, info.max // 2 + 1], dtype=np_dtype)
        grid_a = np.repeat(edges, edges.size)
        grid_b = np.tile(edges, edges.size)
        for name in ("add", "subtract", "multiply"):
            fn, ref, op = INT_BINARY[name]
            yield CaseSpec(f"overflow.{name}.{dtype}", fn, [grid_a, grid_b], numpy_ref=nary_ref(ref),
                           numpy_ref_name=f"numpy.{name}", expect_ops=(op,), features=["integer_overflow"])
        names = ("negate", "abs") if dtype.startswith("s") else ("negate",)
        for name in names:
            fn, ref, op = {**INT_UNARY, **SIGNED_UNARY}[name]
            yield CaseSpec(f"overflow.{name}.{dtype}", fn, [edges], numpy_ref=unary_ref(ref),
                           numpy_ref_name=f"numpy.{name}", expect_ops=(op,), features=["integer_overflow"])


def cases() -> Iterator[CaseSpec]:
    yield from _float_cases()
    yield from _int_cases()
    yield from _compare_cases()
    yield from _special_cases()
    yield from _tiny_cases()
    yield from _overflow_cases()
