"""Spec-reference cases of the elementwise arithmetic and math ops (pjrt_cts.golden.spec.ops.elementwise).

Inputs are every pair of the element type's edge values (spec_cases.edges: ±0, ±1, ties, subnormals, the
extremes, ±inf, NaN; integer minimum and maximum), so each case probes the op's whole defined behaviour
in one program.
"""
from __future__ import annotations

import itertools
import math
from typing import Any, Iterator, Mapping, Sequence

import ml_dtypes
import numpy as np

from pjrt_cts.golden.generator.core import CaseSpec, rng_for
from pjrt_cts.golden.generator.spec_cases import representable, edges, pairs, spec_case
from pjrt_cts.golden.spec.numeric import UndefinedResult, to_f64
from pjrt_cts.golden.spec.registry import TensorType, lookup
from pjrt_cts.golden.spec.types import REPRESENTATIVES, class_of, int_range, np_dtype


# --- elementwise ops: inputs whose result the spec leaves undefined are dropped per element ----------------

BINARY_CLASSES = {
    "add": ("bool", "signed", "unsigned", "float", "complex"),
    "subtract": ("signed", "unsigned", "float", "complex"),
    "multiply": ("bool", "signed", "unsigned", "float", "complex"),
    "divide": ("signed", "unsigned", "float", "complex"),
    "remainder": ("signed", "unsigned", "float"),
    "power": ("signed", "unsigned", "float", "complex"),
    "maximum": ("bool", "signed", "unsigned", "float", "complex"),
    "minimum": ("bool", "signed", "unsigned", "float", "complex"),
}
BINARY_RULES = {
    ("add", "bool"): "add on i1 is logical OR",
    ("add", "signed"): "integer addition; overflow is implementation-defined (spec ## Errors)",
    ("add", "unsigned"): "integer addition; overflow is implementation-defined (spec ## Errors)",
    ("add", "float"): "IEEE-754 addition (round to nearest even)",
    ("add", "complex"): "componentwise IEEE-754 addition",
    ("subtract", "signed"): "integer subtraction; overflow is implementation-defined (spec ## Errors)",
    ("subtract", "unsigned"): "integer subtraction; overflow is implementation-defined (spec ## Errors)",
    ("subtract", "float"): "IEEE-754 subtraction",
    ("subtract", "complex"): "complex (componentwise) subtraction",
    ("multiply", "bool"): "multiply on i1 is logical AND",
    ("multiply", "signed"): "integer multiplication; overflow is implementation-defined",
    ("multiply", "unsigned"): "integer multiplication; overflow is implementation-defined",
    ("multiply", "float"): "IEEE-754 multiplication",
    ("multiply", "complex"): "complex multiplication (finite parts)",
    ("divide", "signed"): "integer division rounds toward zero (remainder takes the dividend's sign); x/0 and "
                          "INT_MIN/-1 excluded",
    ("divide", "unsigned"): "integer division; x/0 excluded",
    ("divide", "float"): "IEEE-754 division (x/0 = ±inf, 0/0 = NaN)",
    ("divide", "complex"): "complex division (finite parts, non-zero divisor)",
    ("remainder", "signed"): "the sign of the result is taken from the dividend, |result| < |divisor|",
    ("remainder", "unsigned"): "remainder = lhs - divide(lhs, rhs) * rhs",
    ("remainder", "float"): "lhs - trunc(lhs/rhs) * rhs with the dividend's sign (fmod, not IEEE remainder)",
    ("power", "signed"): "integer exponentiation (exponent >= 0, no overflow)",
    ("power", "unsigned"): "integer exponentiation (no overflow)",
    ("power", "float"): "pow from IEEE-754 (special cases of pow)",
    ("power", "complex"): "complex exponentiation, principal value (finite, off the branch cut)",
    ("maximum", "bool"): "maximum on i1 is logical OR",
    ("maximum", "signed"): "integer maximum",
    ("maximum", "unsigned"): "integer maximum",
    ("maximum", "float"): "IEEE-754 maximum: NaN propagates, -0 < +0",
    ("maximum", "complex"): "lexicographic maximum of (real, imaginary)",
    ("minimum", "bool"): "minimum on i1 is logical AND",
    ("minimum", "signed"): "integer minimum",
    ("minimum", "unsigned"): "integer minimum",
    ("minimum", "float"): "IEEE-754 minimum: NaN propagates, -0 < +0",
    ("minimum", "complex"): "lexicographic minimum of (real, imaginary)",
}
# complex arithmetic beyond componentwise steps is not correctly rounded: compared relative to the modulus
COMPLEX_OP_CLASS = {"multiply": "transcendental", "divide": "transcendental", "power": "transcendental",
                    "abs": "transcendental", "sign": "transcendental"}
UNARY_CLASSES = {
    "abs": ("signed", "float", "complex"),
    "negate": ("signed", "unsigned", "float", "complex"),
    "sign": ("signed", "float", "complex"),
    "floor": ("float",), "ceil": ("float",), "round_nearest_afz": ("float",), "round_nearest_even": ("float",),
    "is_finite": ("float",), "real": ("float", "complex"), "imag": ("float", "complex"),
}
UNARY_RULES = {
    "abs": "signed: integer modulus (|INT_MIN| excluded); floats: IEEE-754 abs; complex: modulus",
    "negate": "integer negation (unsigned via bitcast to signed); IEEE-754 negate; complex negation",
    "sign": "-1/0/1; NaN -> NaN, ±0 -> ±0; complex x/|x|",
    "floor": "IEEE-754 roundToIntegralTowardNegative",
    "ceil": "IEEE-754 roundToIntegralTowardPositive",
    "round_nearest_afz": "IEEE-754 roundToIntegralTiesToAway",
    "round_nearest_even": "IEEE-754 roundToIntegralTiesToEven",
    "is_finite": "IEEE-754 isFinite: false for ±inf and NaN",
    "real": "is_complex(x) ? x.real : x",
    "imag": "is_complex(x) ? x.imag : 0.0",
}
MAX_PAIRS = 1000  # elements per case, about
TIES = (0.25, 0.75, 2.5, -0.5, -1.5, 3.5, -3.5, 4.5, 0.49999997, 8388609.0, -1.75)


def _defined(op: str, inputs: Sequence[np.ndarray], result_dtypes: Sequence[str],
             attributes: Mapping[str, Any] | None = None) -> list[np.ndarray]:
    """The elements (same index in every input) whose result the op's spec reference defines."""
    evaluate = lookup(op).evaluate
    keep = []
    for i in range(len(inputs[0])):
        try:
            with np.errstate(all="ignore"):
                evaluate([x[i:i + 1] for x in inputs], attributes or {}, [TensorType((1,), d) for d in result_dtypes])
            keep.append(i)
        except UndefinedResult:
            pass
    return [x[keep] for x in inputs]


# Types whose subnormals are subnormal in the hardware's float32/float64 (bf16 is computed in f32): XLA:CPU runs with
# flush-to-zero / denormals-are-zero, so elements with a subnormal operand go to their own case
# (`spec.<op>.subnormal.<type>`) and one root cause does not hide every other difference of the main case.
SUBNORMAL_SPLIT_TYPES = ("bf16", "f32", "f64")


def _split_subnormal(inputs: Sequence[np.ndarray], name: str) -> Iterator[tuple[str, list[np.ndarray]]]:
    """(suffix, inputs): the elements without subnormal operands as `<name>`, those with one as
    `subnormal.<name>` (only for SUBNORMAL_SPLIT_TYPES, and only when there are such elements)."""
    if name not in SUBNORMAL_SPLIT_TYPES:
        yield name, list(inputs)
        return
    tiny = float(ml_dtypes.finfo(np_dtype(name)).tiny)
    with np.errstate(invalid="ignore"):
        sub = np.zeros(len(inputs[0]), dtype=bool)
        for x in inputs:
            if x.ndim == 1 and x.dtype == np_dtype(name):
                v = np.abs(to_f64(x))
                sub |= (v > 0) & (v < tiny)
    yield name, [x[~sub] if x.ndim == 1 else x for x in inputs]
    if sub.any():
        yield f"subnormal.{name}", [x[sub] if x.ndim == 1 else x for x in inputs]


def _rule(rule: str, suffix: str) -> str:
    return rule + ("; subnormal operands (IEEE-754 gradual underflow, no flush)" if suffix.startswith("subnormal")
                   else "")


def _complex_values(name: str) -> np.ndarray:
    """Complex edge values plus a few seeded ordinary ones (finite non-zero parts for the non-componentwise ops)."""
    rng = rng_for(f"spec.elementwise.complex.{name}")
    ordinary = (rng.standard_normal(6) + 1j * rng.standard_normal(6)) * 3.0
    return np.concatenate([edges(name), ordinary.astype(np_dtype(name))])


def _pairs(op: str, name: str) -> tuple[np.ndarray, np.ndarray]:
    if class_of(name) == "complex":
        values = _complex_values(name)
        grid = list(itertools.product(range(len(values)), repeat=2))
        left, right = zip(*grid[::-(-len(grid) // MAX_PAIRS)])  # an even subsample of the cross product
        return values[list(left)], values[list(right)]
    x, y = pairs(name)
    if op == "power" and class_of(name) in ("signed", "unsigned"):  # small exponents: results that fit
        lo, hi = int_range(name)
        # small exponents (results that fit) and powers of two (0^64 = 0 tests every exponent bit)
        small = set(range(8)) | {2 ** k for k in range(3, 63)}
        exponents = np.array(sorted({int(v) for v in edges(name)} | {v for v in small if v <= hi}), dtype=object)
        exponents = exponents.astype(np_dtype(name))
        bases = edges(name)
        left, right = zip(*itertools.product(range(len(bases)), range(len(exponents))))
        return bases[list(left)], exponents[list(right)]
    return x, y


def _result_dtype(op: str, name: str) -> str:
    if op == "is_finite":
        return "pred"
    if op in ("abs", "real", "imag") and name in ("c64", "c128"):
        return "f32" if name == "c64" else "f64"
    return name


def _binary_cases() -> Iterator[CaseSpec]:
    for op, classes in BINARY_CLASSES.items():
        for cls in classes:
            for name in REPRESENTATIVES[cls]:
                op_class = COMPLEX_OP_CLASS.get(op, "exact") if cls == "complex" else "exact"
                for suffix, (x, y) in _split_subnormal(_defined(op, _pairs(op, name), [name]), name):
                    yield spec_case(op, suffix, [x, y], [TensorType(x.shape, name)], rule=_rule(BINARY_RULES[op, cls], suffix),
                                    op_class=op_class)


def _unary_inputs(op: str, name: str) -> np.ndarray:
    if class_of(name) == "complex":
        return _complex_values(name)
    values = edges(name)
    if op.startswith("round") or op in ("floor", "ceil"):
        extra = representable([float(v) for v in TIES], name) if class_of(name) == "float" else values[:0]
        values = np.concatenate([values, extra])
    return values


def _unary_cases() -> Iterator[CaseSpec]:
    for op, classes in UNARY_CLASSES.items():
        for cls in classes:
            for name in REPRESENTATIVES[cls]:
                out = _result_dtype(op, name)
                op_class = COMPLEX_OP_CLASS.get(op, "exact") if cls == "complex" else "exact"
                for suffix, (x,) in _split_subnormal(_defined(op, [_unary_inputs(op, name)], [out]), name):
                    yield spec_case(op, suffix, [x], [TensorType(x.shape, out)], rule=_rule(UNARY_RULES[op], suffix),
                                    op_class=op_class)


def _complex_cases() -> Iterator[CaseSpec]:
    for name, out in (("f32", "c64"), ("f64", "c128")):  # the spec allows f32 and f64 operands only
        x, y = pairs(name)
        yield spec_case("complex", name, [x, y], [TensorType(x.shape, out)],
                        rule="complex(lhs, rhs) = (lhs, rhs): parts copied, NaN/inf/-0 included")


def _clamp_bounds(name: str) -> tuple[np.ndarray, np.ndarray]:
    """(min, max) pairs: ordinary, min > max (the formula gives max), equal, and every edge as one bound."""
    values = _complex_values(name) if class_of(name) == "complex" else edges(name)
    n = len(values)
    low = [values[i] for i in range(n)] + [values[n - 1 - i] for i in range(n)]
    high = [values[(i + n // 2) % n] for i in range(n)] + [values[i] for i in range(n)]
    return np.array(low, dtype=values.dtype), np.array(high, dtype=values.dtype)


def _clamp_cases() -> Iterator[CaseSpec]:
    rule = "minimum(maximum(operand, min), max); min > max gives max"
    for cls, names in REPRESENTATIVES.items():
        for name in names:
            values = _complex_values(name) if cls == "complex" else edges(name)
            lows, highs = _clamp_bounds(name)
            picks = list(itertools.product(range(len(values)), range(len(lows))))
            picks = picks[::max(3, -(-len(picks) // MAX_PAIRS))]  # at least a third of all triples
            xs = values[[i for i, _ in picks]]
            triples = _defined("clamp", [lows[[j for _, j in picks]], xs, highs[[j for _, j in picks]]], [name])
            for suffix, (lo, x, hi) in _split_subnormal(triples, name):
                yield spec_case("clamp", f"tensor_bounds.{suffix}", [lo, x, hi], [TensorType(x.shape, name)],
                                rule=_rule(rule, suffix))
            # rank-0 bounds broadcast: the type's first and last ordinary edge values (or min > max for bool)
            low, high = (values[-1:], values[:1]) if cls == "bool" else (values[2:3], values[-2:-1])
            scalar_lo, scalar_hi = low.reshape(()), high.reshape(())
            keep = [i for i in range(len(values)) if _defined_clamp_scalar(scalar_lo, values[i:i + 1], scalar_hi, name)]
            x = values[keep]
            yield spec_case("clamp", f"scalar_bounds.{name}", [scalar_lo, x, scalar_hi], [TensorType(x.shape, name)],
                            rule=rule + "; rank-0 min/max broadcast")


def _defined_clamp_scalar(low: np.ndarray, x: np.ndarray, high: np.ndarray, name: str) -> bool:
    try:
        with np.errstate(all="ignore"):
            lookup("clamp").evaluate([low, x, high], {}, [TensorType(x.shape, name)])
        return True
    except UndefinedResult:
        return False


# (exponent_bits, mantissa_bits): the spec's example, bf16-, f16- and e4m3-like, the smallest allowed, identity on f64
REDUCE_PRECISION_SETTINGS = ((5, 2), (8, 7), (5, 10), (4, 3), (1, 0), (11, 52))
REDUCE_PRECISION_TYPES = ("f8e5m2", "bf16", "f16", "f32", "f64")  # IEEE-like operands (see the op's docstring)


def _reduce_precision_inputs(name: str, e: int, m: int) -> np.ndarray:
    """Edges plus the reduced format's ties (1 + 2^-(m+1), 1 + 3 * 2^-(m+1)), largest finite and overflow
    midpoint, smallest normal and a value just below it, and the spec's example values."""
    bias = 2 ** (e - 1) - 1
    largest = (2 - 2.0 ** -m) * 2.0 ** bias
    tiny = 2.0 ** (1 - bias)
    candidates = [1 + 2.0 ** -(m + 1), 1 + 3 * 2.0 ** -(m + 1), -(1 + 2.0 ** -(m + 1)), largest,
                  largest + 2.0 ** (bias - m - 1), -largest - 2.0 ** (bias - m - 1), largest * 1.25, tiny, -tiny,
                  tiny * (1 - 2.0 ** -(m + 2)), tiny / 2, 1000.0, 1000000.0, 3.0]
    return np.concatenate([edges(name), representable([c for c in candidates if math.isfinite(c)], name)])


def _reduce_precision_cases() -> Iterator[CaseSpec]:
    for name in REDUCE_PRECISION_TYPES:
        for e, m in REDUCE_PRECISION_SETTINGS:
            attributes = {"exponent_bits": e, "mantissa_bits": m}
            (x,) = _defined("reduce_precision", [_reduce_precision_inputs(name, e, m)], [name], attributes)
            yield spec_case("reduce_precision", f"e{e}m{m}.{name}", [x], [TensorType(x.shape, name)],
                            attributes=attributes,
                            mlir_attributes=f"exponent_bits = {e} : i32, mantissa_bits = {m} : i32",
                            rule="round the mantissa to mantissa_bits (ties to even), then overflow to ±inf / "
                                 "underflow to ±0 outside the exponent_bits range")


def cases() -> Iterator[CaseSpec]:
    yield from _binary_cases()
    yield from _unary_cases()
    yield from _complex_cases()
    yield from _clamp_cases()
    yield from _reduce_precision_cases()
