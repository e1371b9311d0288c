"""Spec-reference cases of the bitwise, logical, comparison, selection and conversion ops
(pjrt_cts.golden.spec.ops.bitwise).

Inputs are the element types' edge values (spec_cases.edges), crossed where an op has two operands, and
every bit pattern for types of 8 bits or fewer where an op reads bits (popcnt, clz, bitcast_convert).
Elements whose result the spec leaves undefined (see the ops module's docstring: negative shift amounts,
TOTALORDER's ambiguous pairs, inexact or out-of-range conversions, ...) are dropped from each case.

compare and convert elements with a subnormal bf16/f32/f64 (or c64/c128 part) operand or convert result go to a
case of their own, `spec.<op>.<settings>.subnormal.<dtype>`: the spec defines them like any other value (IEEE-754
has no denormals-are-zero), but XLA:CPU flushes them, and that one root cause must not hide every other difference
of the main case.
"""
from __future__ import annotations

import itertools
from typing import Any, Iterator, Sequence

import ml_dtypes
import numpy as np

from pjrt_cts.golden import dtypes
from pjrt_cts.golden.generator.core import CaseSpec, rng_for
from pjrt_cts.golden.generator.spec_cases import edges, pairs, spec_case
from pjrt_cts.golden.spec.numeric import UndefinedResult, round_to, wrap
from pjrt_cts.golden.spec.ops import bitwise
from pjrt_cts.golden.spec.registry import TensorType, lookup
from pjrt_cts.golden.spec.types import REPRESENTATIVES, bit_width, class_of, int_range, np_dtype

INTEGERS = REPRESENTATIVES["signed"] + REPRESENTATIVES["unsigned"] + ("s2", "u2")
LOGICAL = ("pred",) + INTEGERS
EVERY = tuple(name for names in REPRESENTATIVES.values() for name in names)


# ------------------------------------------------------------------------------------------- helpers


def _defined(op: str, inputs: Sequence[np.ndarray], result: str,
             attributes: dict[str, Any] | None = None) -> list[np.ndarray]:
    """The elements (same index in every 1-D input) whose result the spec defines."""
    spec = lookup(op)
    keep = []
    for i in range(len(inputs[0])):
        try:
            with np.errstate(all="ignore"):
                spec.evaluate([x[i:i + 1] for x in inputs], attributes or {}, [TensorType((1,), result)])
            keep.append(i)
        except UndefinedResult:
            pass
    return [x[keep] for x in inputs]


# Types whose subnormals are subnormal in the hardware's float32/float64 (bf16 is computed in f32; complex parts
# are f32/f64): XLA:CPU runs with flush-to-zero / denormals-are-zero. f16 and narrower floats are widened to f32,
# where their subnormals are normal, and XLA gets them right.
SUBNORMAL_SPLIT_TYPES = ("bf16", "f32", "f64", "c64", "c128")


def _subnormal(x: np.ndarray) -> np.ndarray:
    """Which elements of `x` are (or have a real/imaginary part that is) subnormal in x's own type, for
    SUBNORMAL_SPLIT_TYPES; all False for other types."""
    name = dtypes.name_of(x.dtype)
    if name not in SUBNORMAL_SPLIT_TYPES:
        return np.zeros(x.shape, dtype=bool)
    part = {"c64": "f32", "c128": "f64"}.get(name, name)
    tiny = float(ml_dtypes.finfo(np_dtype(part)).tiny)
    parts = [x.real, x.imag] if class_of(name) == "complex" else [x]
    mask = np.zeros(x.shape, dtype=bool)
    with np.errstate(invalid="ignore"):
        for v in parts:
            wide = np.abs(v.astype(np.float64))
            mask |= (wide > 0) & (wide < tiny)
    return mask


def _split_subnormal(inputs: Sequence[np.ndarray], results: Sequence[np.ndarray] = ()
                     ) -> Iterator[tuple[bool, list[np.ndarray]]]:
    """(is_subnormal_part, inputs): the elements without a subnormal input or result, then (if any) those with one.
    Inputs and results are 1-D arrays of the same length."""
    sub = np.zeros(inputs[0].shape, dtype=bool)
    for x in [*inputs, *results]:
        sub |= _subnormal(x)
    if not sub.all():
        yield False, [x[~sub] for x in inputs]
    if sub.any():
        yield True, [x[sub] for x in inputs]


def _subnormal_suffix(settings: str, name: str, subnormal: bool) -> str:
    return f"{settings}.subnormal.{name}" if subnormal else f"{settings}.{name}"


def _subnormal_rule(rule: str, subnormal: bool) -> str:
    return rule + ("; subnormal operands are values like any other (IEEE-754 has no denormals-are-zero)"
                   if subnormal else "")


def _patterns(name: str) -> np.ndarray:
    """Every bit pattern of an integer or float type of at most 8 bits; else edges and a few patterns."""
    n = bit_width(name)
    if n <= 8:
        return bitwise.from_bits(range(1 << n), name, (1 << n,))
    rng = rng_for(f"spec.bitwise.patterns.{name}")
    chosen = [0, 1, (1 << n) - 1, 1 << (n - 1), (1 << (n - 1)) - 1, 0x5 << (n - 4)]
    chosen += [int(v) for v in rng.integers(0, 1 << 30, 4)] + [1 << k for k in range(0, n, 5)]
    patterns = bitwise.from_bits([p % (1 << n) for p in chosen], name, (len(chosen),))
    return np.concatenate([edges(name), patterns]) if class_of(name) in ("signed", "unsigned") else patterns


def _single(op: str, name: str, inputs: Sequence[np.ndarray], rule: str, suffix: str | None = None,
            **kwargs: Any) -> CaseSpec:
    shape = inputs[-1].shape  # select's pred may be a scalar; the others' operands share the result shape
    return spec_case(op, suffix or name, list(inputs), [TensorType(shape, name)], rule=rule, **kwargs)


# ----------------------------------------------------------------------------------- and / or / xor / not


def _numpy_logical(fn: Any) -> Any:
    return lambda xs: [fn(*xs)]


def _logical_cases() -> Iterator[CaseSpec]:
    numpy_fns = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}
    for op, fn in numpy_fns.items():
        for name in LOGICAL:
            x, y = pairs(name)
            native = name not in ("s2", "s4", "u2", "u4")
            kind = "logical" if name == "pred" else "bitwise"
            yield _single(op, name, [x, y], f"{op} on {name}: {kind} {op.upper()}",
                          numpy_ref=_numpy_logical(fn) if native else None,
                          numpy_ref_name=f"numpy.bitwise_{op}" if native else None)
    for name in LOGICAL:
        x = edges(name) if name == "pred" else _patterns(name)
        native = name not in ("s2", "s4", "u2", "u4")
        yield _single("not", name, [x], "not: logical NOT on i1, bitwise NOT (all N bits) on integers",
                      numpy_ref=_numpy_logical(np.invert) if native else None,
                      numpy_ref_name="numpy.invert" if native else None)


# -------------------------------------------------------------------------------------------- shifts


_SHIFTS = {
    "shift_left": "shift_left: the N-bit pattern moved left by rhs bits, zeros in",
    "shift_right_logical": "shift_right_logical: the N-bit pattern moved right by rhs bits, zeros in",
    "shift_right_arithmetic": "shift_right_arithmetic: moved right by rhs bits, copies of the top bit in",
}


def _shift_inputs(name: str, amounts: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    lhs = edges(name)
    x = np.repeat(lhs, len(amounts))
    y = np.tile(np.array(list(amounts), dtype=object).astype(np_dtype(name)), len(lhs))
    return x, y


def _shift_cases() -> Iterator[CaseSpec]:
    for op, rule in _SHIFTS.items():
        for name in INTEGERS:
            n, (_, hi) = bit_width(name), int_range(name)
            x, y = _shift_inputs(name, range(min(n, hi + 1)))
            yield _single(op, name, [x, y], f"{rule}; amounts 0..N-1")
            big = sorted({k for k in (n, n + 1, 2 * n - 1, 2 * n, hi) if n <= k <= hi})
            if big:  # si2 holds no amount >= 2
                x, y = _shift_inputs(name, big)
                yield _single(op, name, [x, y], f"{rule}; amounts >= N move every bit out (literal reading)",
                              suffix=f"oversized.{name}")


# ------------------------------------------------------------------------------------- popcnt / clz


def _count_cases() -> Iterator[CaseSpec]:
    rules = {"popcnt": "popcnt: the number of bits set in the N-bit pattern",
             "count_leading_zeros": "count_leading_zeros: leading zero bits of the N-bit pattern"}
    for op, rule in rules.items():
        for name in INTEGERS:
            (x,) = _defined(op, [_patterns(name)], name)
            yield _single(op, name, [x], rule)


# -------------------------------------------------------------------------------------------- compare


def _compare_inputs(name: str) -> tuple[np.ndarray, np.ndarray]:
    if class_of(name) != "complex":
        return pairs(name)
    parts = [0.0, -0.0, 1.0, -1.5, float("inf"), float("nan")]
    values = np.array([complex(re, im) for re in parts for im in parts if not (np.isnan(re) and np.isnan(im))],
                      dtype=np_dtype(name))
    left, right = zip(*itertools.product(range(len(values)), range(len(values))))
    return values[list(left)], values[list(right)]


def _compare_rule(name: str, compare_type: str | None) -> str:
    effective = compare_type or bitwise.default_compare_type(name)
    cls = class_of(name)
    if cls == "complex":
        text = "complex: lexicographic comparison of (real, imag) pairs"
    elif effective == "TOTALORDER":
        text = "floats with TOTALORDER: IEEE-754 totalOrder and compareQuietEqual"
    elif cls == "float":
        text = "floats with FLOAT: IEEE-754 compareQuiet* (NaN unordered, -0 = +0)"
    else:
        text = "booleans and integers: mathematical comparison"
    return text + ("" if compare_type else "; compare_type omitted (the one C3 implies)")


def _compare_cases() -> Iterator[CaseSpec]:
    for name in EVERY:
        x_all, y_all = _compare_inputs(name)
        for compare_type in bitwise.allowed_compare_types(name) + (None,):
            for direction in bitwise.DIRECTIONS:
                attributes = {"comparison_direction": direction, "compare_type": compare_type}
                text = f"comparison_direction = #stablehlo<comparison_direction {direction}>"
                if compare_type is not None:
                    text += f", compare_type = #stablehlo<comparison_type {compare_type}>"
                settings = f"{direction}_{compare_type or 'default'}"
                rule = _compare_rule(name, compare_type)
                for subnormal, (x, y) in _split_subnormal(_defined("compare", [x_all, y_all], "pred", attributes)):
                    yield spec_case("compare", _subnormal_suffix(settings, name, subnormal), [x, y],
                                    [TensorType(x.shape, "pred")], attributes=attributes, mlir_attributes=text,
                                    rule=_subnormal_rule(rule, subnormal))


# --------------------------------------------------------------------------------------------- select


def _select_cases() -> Iterator[CaseSpec]:
    for index, name in enumerate(EVERY):
        on_true = edges(name)
        on_false = np.roll(on_true, 3)
        rng = rng_for(f"spec.select.{name}")
        pred = rng.random(on_true.shape) < 0.5
        yield _single("select", name, [pred, on_true, on_false],
                      "select: pred[i] ? on_true[i] : on_false[i]", suffix=f"tensor_pred.{name}")
        scalar = np.array(index % 2 == 0)
        yield _single("select", name, [scalar, on_true, on_false],
                      "select: rank(pred) = 0 picks on_true or on_false as a whole", suffix=f"scalar_pred.{name}")


# -------------------------------------------------------------------------------------------- convert


def _python(array: np.ndarray) -> list[Any]:
    cls = class_of(dtypes.name_of(array.dtype))
    if cls == "bool":
        return [int(v) for v in array]
    if cls in ("signed", "unsigned"):
        return [int(v) for v in array]
    if cls == "complex":
        return [c for v in array for c in (float(v.real), float(v.imag))]
    return [float(np.float64(v)) for v in array.astype(np.float64)]



def _dedupe(array: np.ndarray) -> np.ndarray:
    seen: set[bytes] = set()
    keep = []
    for i in range(len(array)):
        key = array[i:i + 1].tobytes()
        if key not in seen:
            seen.add(key)
            keep.append(i)
    return array[keep]


def _holds(values: Sequence[Any], name: str) -> list[Any]:
    """The candidates that type `name` (integer or float) holds exactly, as Python numbers."""
    kept = []
    for v in values:
        if class_of(name) in ("signed", "unsigned"):
            if isinstance(v, float) and not (np.isfinite(v) and v.is_integer()):
                continue
            lo, hi = int_range(name)
            if lo <= int(v) <= hi:
                kept.append(int(v))
            continue
        try:
            kept.append(bitwise.convert_value(v, "f64" if isinstance(v, float) else "s64", name))
        except (UndefinedResult, OverflowError):
            pass
    return kept


# Large integers near the limits of the integer types and of the float significands (exact in some
# float types only; in range of some integer types only): int <-> float exactness and truncation edges.
_WIDE = [2 ** k for k in (7, 8, 11, 15, 16, 24, 31, 32, 53, 63, 64)] + [
    2 ** 24 - 1, 2 ** 24 + 2, 2 ** 53 - 1, 2 ** 31 - 2 ** 7, 2 ** 32 - 2 ** 8, 2 ** 63 - 2 ** 39, 2 ** 63 - 2 ** 10,
    2 ** 64 - 2 ** 40, 2 ** 64 - 2 ** 11]


def _convert_source(src: str, dst: str) -> np.ndarray:
    """Source values probing the target: both types' edges, and (to integers) truncation edges."""
    if src == "pred":
        return np.array([False, True])
    dst_real = {"c64": "f32", "c128": "f64"}.get(dst, dst)
    candidates: list[Any] = _python(edges(src)) + ([] if dst == "pred" else _python(edges(dst_real)))
    if dst != "pred":
        candidates += _WIDE + [-v for v in _WIDE]
    if class_of(dst) in ("signed", "unsigned"):
        lo, hi = int_range(dst)
        candidates += [hi + 0.75, lo - 0.75, float(hi + 1), float(lo - 1), 0.75, -0.75, 2.5, -2.5, -0.0]
    if class_of(src) != "complex":
        held = _holds(candidates, src)
        if class_of(src) in ("signed", "unsigned"):
            return _dedupe(wrap(np.array(held, dtype=object), src))
        return _dedupe(_float_array(held, src))
    part = "f32" if src == "c64" else "f64"
    reals = _holds([float(v) for v in candidates], part)
    imags = [reals[(7 * i + 3) % len(reals)] for i in range(len(reals))]
    values = [complex(r, i) for r, i in zip(reals, imags)] + [complex(0.0, 1.0), complex(-0.0, float("nan")),
                                                             complex(1.0, float("inf"))]
    return _dedupe(np.array(values, dtype=np_dtype(src)))


def _float_array(values: Sequence[float], name: str) -> np.ndarray:
    return round_to(np.array(values, dtype=np.float64), name)  # exact values: no rounding


def _convert_cases() -> Iterator[CaseSpec]:
    for src, dst in itertools.product(EVERY, EVERY):
        if src == dst:
            continue
        (x,) = _defined("convert", [_convert_source(src, dst)], dst)
        if x.size == 0:
            continue
        rule = _convert_rule(src, dst)
        with np.errstate(all="ignore"):
            results = lookup("convert").evaluate([x], {}, [TensorType(x.shape, dst)])
        for subnormal, (part,) in _split_subnormal([x], results):
            yield _single("convert", dst, [part], _subnormal_rule(rule, subnormal),
                          suffix=_subnormal_suffix(f"from_{src}", dst, subnormal))


def _convert_rule(src: str, dst: str) -> str:
    s, d = class_of(src), class_of(dst)
    if s == "bool":
        return "boolean-to-any: false -> 0, true -> 1"
    if d == "bool":
        extra = " (complex: the imaginary part is ignored)" if s == "complex" else ""
        return "any-to-boolean: zero -> false, non-zero -> true" + extra
    if s == "complex" and d != "complex":
        return "complex-to-other: the imaginary part is ignored, the real part converted"
    if d in ("signed", "unsigned") and s in ("float", "complex"):
        return "float-to-integer: the fractional part is truncated (values that fit only)"
    if d == "complex" and s != "complex":
        return "other-to-complex: the imaginary part is zeroed, the real part converted exactly"
    return "source values exactly representable in the destination give that exact value"


# ------------------------------------------------------------------------------------ bitcast_convert


_BITCAST_PAIRS = (
    ("s2", "u2"), ("s4", "u4"), ("s4", "f4e2m1fn"), ("u4", "f4e2m1fn"), ("f6e3m2fn", "f6e2m3fn"),
    ("s8", "u8"), ("s8", "f8e4m3fn"), ("u8", "f8e5m2"), ("f8e4m3fn", "f8e5m2"),
    ("s16", "f16"), ("u16", "bf16"), ("f16", "bf16"), ("s32", "f32"), ("u32", "f32"), ("s32", "u32"),
    ("s64", "f64"), ("u64", "f64"), ("s64", "u64"),
)


def _bitcast_cases() -> Iterator[CaseSpec]:
    rule = "bitcast_convert, equal widths: bits(result[i]) = bits(operand[i])"
    for a, b in _BITCAST_PAIRS:
        for src, dst in ((a, b), (b, a)):
            x = _patterns(src) if class_of(src) != "float" or bit_width(src) <= 8 else edges(src)
            yield _single("bitcast_convert", dst, [x], rule, suffix=f"from_{src}.{dst}")
    for name in ("pred", "c64", "c128"):
        yield _single("bitcast_convert", name, [edges(name)], rule + " (same type)", suffix=f"from_{name}.{name}")


def cases() -> Iterator[CaseSpec]:
    yield from _logical_cases()
    yield from _shift_cases()
    yield from _count_cases()
    yield from _compare_cases()
    yield from _select_cases()
    yield from _convert_cases()
    yield from _bitcast_cases()
