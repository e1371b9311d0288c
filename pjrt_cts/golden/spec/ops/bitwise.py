"""Bitwise, logical, comparison, selection and conversion ops (spec sections named in each registration).

The spec's text is followed literally; where it gives no value the reference raises `UndefinedResult` and
the case generator leaves those inputs out:

* shifts: a negative shift amount (the spec says "by `rhs` number of bits" and nothing more). Amounts of
  N or more bits (N = the bit width) are read literally as moving every bit out: 0 for shift_left and
  shift_right_logical, N copies of the top bit for shift_right_arithmetic.
* popcnt / count_leading_zeros: a count the result type cannot hold (only si2: popcnt(-1) = 2,
  clz(0) = 2 > max(si2) = 1); an integer overflow is implementation-defined (spec "Errors").
* compare with compare_type TOTALORDER: the spec says it "uses the combination of `totalOrder` and
  `compareQuietEqual`" without saying which direction uses which, so the pairs where the two readings
  differ (NaN against NaN, -0 against +0) are undefined here; NaN in types whose NaN has no sign
  (fnuz, e8m0) too. Complex GE/GT/LE/LT with a NaN part: the lexicographic order of `(real, imag)` pairs
  is not defined for unordered parts.
* convert: "if the source value can be exactly represented in the destination type, the result value
  is that exact representation. Otherwise, the behavior is TBD" (integer-to-integer, integer-to-float,
  float-to-float), and float-to-integer values whose truncation the destination cannot hold (NaN, ±inf,
  out of range) are TBD; -0 into a type without -0 (fnuz, e8m0) is not "exactly represented" either.
* bitcast_convert between different widths: the order of the parts is implementation-defined (`bits`
  is implementation-defined); only equal widths are given values here (two's complement integers and the
  types' IEEE-754-like encodings, as ml_dtypes defines them).

The spec version read predates si2/ui2 and f4/f6/f8E3M4/f8E4M3/f8E8M0FNU; those are treated as integer
and floating-point types of the spec's classes with their own widths and encodings.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from pjrt_cts.golden import dtypes
from pjrt_cts.golden.spec import variants
from pjrt_cts.golden.spec.numeric import UndefinedResult, has_nan, round_to, round_toward_zero, to_f64, wrap
from pjrt_cts.golden.spec.registry import TensorType, spec_op
from pjrt_cts.golden.spec.types import bit_width, class_of, int_range, np_dtype

INTEGER = ("signed", "unsigned")
LOGICAL = ("bool", "signed", "unsigned")
ALL = ("bool", "signed", "unsigned", "float", "complex")
DIRECTIONS = ("EQ", "NE", "GE", "GT", "LE", "LT")
SIGNLESS_NAN = ("f8e4m3fnuz", "f8e5m2fnuz", "f8e4m3b11fnuz", "f8e8m0fnu")  # NaN without a sign


# ---------------------------------------------------------------------------------------------- bits


def bits(array: np.ndarray, name: str) -> list[int]:
    """Each element's N-bit pattern as a Python int (two's complement for integers, the encoding for
    floats; i1 is 0 or 1)."""
    cls = class_of(name)
    n = bit_width(name)
    flat = np.asarray(array).ravel()
    if cls == "bool":
        return [int(bool(v)) for v in flat]
    if cls in INTEGER:
        return [int(v) % (1 << n) for v in flat]
    if cls == "float":
        storage = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[np_dtype(name).itemsize]
        return [int(p) & ((1 << n) - 1) for p in np.ascontiguousarray(flat).view(storage)]
    raise ValueError(f"no bit pattern for complex type {name}")


def from_bits(patterns: Sequence[int], name: str, shape: tuple[int, ...]) -> np.ndarray:
    """The elements of type `name` whose N-bit patterns are `patterns`."""
    cls = class_of(name)
    if cls == "bool":
        return np.array([bool(p) for p in patterns], dtype=np.bool_).reshape(shape)
    if cls in INTEGER:
        return wrap(np.array(list(patterns), dtype=object), name).reshape(shape)
    if cls == "float":
        storage = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[np_dtype(name).itemsize]
        return np.array(list(patterns), dtype=storage).view(np_dtype(name)).reshape(shape)
    raise ValueError(f"no bit pattern for complex type {name}")


def _int_result(values: Sequence[int], name: str, shape: tuple[int, ...]) -> np.ndarray:
    """Integers known to be in range of `name`, as an array of that type."""
    return wrap(np.array(list(values), dtype=object), name).reshape(shape)


# ------------------------------------------------------------------------------------- and, or, xor, not


def _logical(lhs: np.ndarray, rhs: np.ndarray, name: str, fn: Callable[[int, int], int]) -> np.ndarray:
    if class_of(name) == "bool":
        return np.array([bool(fn(int(a), int(b))) for a, b in zip(lhs.ravel(), rhs.ravel())],
                        dtype=np.bool_).reshape(lhs.shape)
    patterns = [fn(a, b) for a, b in zip(bits(lhs, name), bits(rhs, name))]
    return from_bits(patterns, name, lhs.shape)


@spec_op("and", classes=LOGICAL)
def and_(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
         results: Sequence[TensorType]) -> list[np.ndarray]:
    """spec #and: booleans: logical AND; integers: bitwise AND."""
    return [_logical(operands[0], operands[1], results[0].dtype, lambda a, b: a & b)]


@spec_op("or", classes=LOGICAL)
def or_(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
        results: Sequence[TensorType]) -> list[np.ndarray]:
    """spec #or: booleans: logical OR; integers: bitwise OR."""
    return [_logical(operands[0], operands[1], results[0].dtype, lambda a, b: a | b)]


@spec_op("xor", classes=LOGICAL)
def xor(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
        results: Sequence[TensorType]) -> list[np.ndarray]:
    """spec #xor: booleans: logical XOR; integers: bitwise XOR."""
    return [_logical(operands[0], operands[1], results[0].dtype, lambda a, b: a ^ b)]


@spec_op("not", classes=LOGICAL)
def not_(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
         results: Sequence[TensorType]) -> list[np.ndarray]:
    """spec #not: booleans: logical NOT; integers: bitwise NOT (every one of the N bits flipped)."""
    (operand,) = operands
    name = results[0].dtype
    mask = (1 << bit_width(name)) - 1
    return [_logical(operand, operand, name, lambda a, _: a ^ mask)]


# ------------------------------------------------------------------------------------------------ shifts


def _shift_amounts(rhs: np.ndarray) -> list[int]:
    amounts = [int(v) for v in rhs.ravel()]
    if any(k < 0 for k in amounts):
        raise UndefinedResult("a negative shift amount: the spec shifts 'by rhs number of bits' only")
    return amounts


def _shift(operands: Sequence[np.ndarray], name: str, fn: Callable[[int, int, int], int]) -> np.ndarray:
    lhs, rhs = operands
    n = bit_width(name)
    patterns = [fn(p, k, n) for p, k in zip(bits(lhs, name), _shift_amounts(rhs))]
    return from_bits(patterns, name, lhs.shape)


def _left(p: int, k: int, n: int) -> int:
    return (p << k) & ((1 << n) - 1) if k < n else 0


def _right_logical(p: int, k: int, n: int) -> int:
    return p >> k if k < n else 0


def _right_arithmetic(p: int, k: int, n: int) -> int:
    top = p >> (n - 1)
    fill = ((1 << min(k, n)) - 1) << (n - min(k, n)) if top else 0
    return (p >> min(k, n)) | fill


@spec_op("shift_left", classes=INTEGER)
def shift_left(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
               results: Sequence[TensorType]) -> list[np.ndarray]:
    """spec #shift_left: the N-bit pattern of `lhs` shifted left by `rhs` bits, zeros shifted in (so
    `rhs` >= N gives 0). Negative `rhs`: undefined here (see the module docstring)."""
    return [_shift(operands, results[0].dtype, _left)]


@spec_op("shift_right_logical", classes=INTEGER)
def shift_right_logical(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
                        results: Sequence[TensorType]) -> list[np.ndarray]:
    """spec #shift_right_logical: the N-bit pattern shifted right by `rhs` bits, zeros shifted in
    (`rhs` >= N gives 0)."""
    return [_shift(operands, results[0].dtype, _right_logical)]


@spec_op("shift_right_arithmetic", classes=INTEGER)
def shift_right_arithmetic(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
                           results: Sequence[TensorType]) -> list[np.ndarray]:
    """spec #shift_right_arithmetic: the N-bit pattern shifted right by `rhs` bits, copies of the top
    (sign) bit shifted in — on unsigned types too (`rhs` >= N gives N copies of the top bit)."""
    return [_shift(operands, results[0].dtype, _right_arithmetic)]


# ------------------------------------------------------------------------------------ popcnt, clz


def _count(operand: np.ndarray, name: str, fn: Callable[[int, int], int]) -> np.ndarray:
    n = bit_width(name)
    counts = [fn(p, n) for p in bits(operand, name)]
    _, hi = int_range(name)
    if any(c > hi for c in counts):
        raise UndefinedResult(f"a count of {max(counts)} overflows {name} (implementation-defined)")
    return _int_result(counts, name, operand.shape)


@spec_op("popcnt", classes=INTEGER)
def popcnt(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
           results: Sequence[TensorType]) -> list[np.ndarray]:
    """spec #popcnt: the number of bits set in each element's N-bit two's complement pattern."""
    return [_count(operands[0], results[0].dtype, lambda p, n: bin(p).count("1"))]


@spec_op("count_leading_zeros", classes=INTEGER)
def count_leading_zeros(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
                        results: Sequence[TensorType]) -> list[np.ndarray]:
    """spec #count_leading_zeros: the number of leading zero bits of each element's N-bit pattern
    (N for 0, 0 for negative values)."""
    return [_count(operands[0], results[0].dtype, lambda p, n: n - p.bit_length())]


# -------------------------------------------------------------------------------------------- compare


def default_compare_type(name: str) -> str:
    """The compare_type (C3) allows for the element type: the only one, or FLOAT for floats."""
    return {"bool": "UNSIGNED", "signed": "SIGNED", "unsigned": "UNSIGNED", "float": "FLOAT",
            "complex": "FLOAT"}[class_of(name)]


def allowed_compare_types(name: str) -> tuple[str, ...]:
    """spec #compare (C3): the compare_type values legal for element type `name`."""
    return ("FLOAT", "TOTALORDER") if class_of(name) == "float" else (default_compare_type(name),)


_ORDERED: dict[str, Callable[[Any, Any], bool]] = {
    "EQ": lambda a, b: a == b, "NE": lambda a, b: a != b, "GE": lambda a, b: a >= b,
    "GT": lambda a, b: a > b, "LE": lambda a, b: a <= b, "LT": lambda a, b: a < b,
}


def _total_order_key(pattern: int, name: str) -> int:
    """IEEE-754 totalOrder as an integer order on encodings: -NaN < -inf < ... < -0 < +0 < ... < +NaN."""
    n = bit_width(name)
    if name == "f8e8m0fnu":  # no sign bit
        return pattern
    sign = pattern >> (n - 1)
    magnitude = pattern & ((1 << (n - 1)) - 1)
    return -magnitude - 1 if sign else magnitude


def _compare_totalorder(lhs: np.ndarray, rhs: np.ndarray, name: str, direction: str) -> list[bool]:
    x, y = to_f64(lhs).ravel(), to_f64(rhs).ravel()
    out = []
    for a, b, pa, pb in zip(x, y, bits(lhs, name), bits(rhs, name)):
        if np.isnan(a) and np.isnan(b):
            raise UndefinedResult("TOTALORDER on NaN and NaN: totalOrder and compareQuietEqual disagree")
        if (np.isnan(a) or np.isnan(b)) and name in SIGNLESS_NAN:
            raise UndefinedResult(f"TOTALORDER on the NaN of {name}, which has no sign")
        if a == 0 and b == 0 and np.signbit(a) != np.signbit(b):
            raise UndefinedResult("TOTALORDER on -0 and +0: totalOrder and compareQuietEqual disagree")
        out.append(_ORDERED[direction](_total_order_key(pa, name), _total_order_key(pb, name)))
    return out


def _compare_complex(lhs: np.ndarray, rhs: np.ndarray, direction: str) -> list[bool]:
    out = []
    for a, b in zip(lhs.ravel().astype(np.complex128), rhs.ravel().astype(np.complex128)):
        if direction in ("EQ", "NE"):
            equal = a.real == b.real and a.imag == b.imag
            out.append(equal if direction == "EQ" else not equal)
            continue
        if variants.current().complex_order == "real":  # a deviation's hypothesis: the real parts only
            out.append(bool(_ORDERED[direction](float(a.real), float(b.real))))
            continue
        if any(np.isnan(v) for v in (a.real, a.imag, b.real, b.imag)):
            raise UndefinedResult("lexicographic order of complex values with a NaN part")
        # lexicographic on (real, imag), with -0 == +0 as compareQuietEqual has it (x + 0.0 turns -0 into +0)
        key_a = (float(a.real) + 0.0, float(a.imag) + 0.0)
        key_b = (float(b.real) + 0.0, float(b.imag) + 0.0)
        out.append(_ORDERED[direction](key_a, key_b))
    return out


@spec_op("compare", classes=ALL)
def compare(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
            results: Sequence[TensorType]) -> list[np.ndarray]:
    """spec #compare: booleans and integers: the mathematical comparison of values; floats with FLOAT:
    IEEE-754 compareQuiet* (NaN unordered, -0 = +0); floats with TOTALORDER: IEEE-754 totalOrder (pairs
    where it and compareQuietEqual disagree are undefined here); complex: lexicographic on (real, imag).

    attributes: `comparison_direction` (EQ NE GE GT LE LT), `compare_type` (None when omitted: the one
    (C3) implies, FLOAT for floats)."""
    lhs, rhs = operands
    name = dtypes.name_of(lhs.dtype)
    direction = attributes["comparison_direction"]
    compare_type = attributes.get("compare_type") or default_compare_type(name)
    if compare_type not in allowed_compare_types(name):
        raise ValueError(f"compare_type {compare_type} is not allowed for {name} (spec #compare C3)")
    cls = class_of(name)
    if cls == "complex":
        out = _compare_complex(lhs, rhs, direction)
    elif compare_type == "TOTALORDER":
        out = _compare_totalorder(lhs, rhs, name, direction)
    elif cls == "float":
        x, y = to_f64(lhs).ravel(), to_f64(rhs).ravel()
        out = [bool(_ORDERED[direction](a, b)) for a, b in zip(x, y)]  # IEEE quiet predicates
    else:
        out = [_ORDERED[direction](int(a), int(b)) for a, b in zip(lhs.ravel(), rhs.ravel())]
    return [np.array(out, dtype=np.bool_).reshape(lhs.shape)]



# --------------------------------------------------------------------------------------------- select


@spec_op("select", classes=ALL)
def select(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
           results: Sequence[TensorType]) -> list[np.ndarray]:
    """spec #select: `pred_element ? on_true[i] : on_false[i]`, `pred_element` the scalar `pred` when
    rank(pred) = 0, else `pred[i]`."""
    pred, on_true, on_false = operands
    chosen = np.broadcast_to(np.asarray(pred, dtype=np.bool_), on_true.shape)
    out = on_false.copy()
    out[chosen] = on_true[chosen]
    return [out]


# -------------------------------------------------------------------------------------------- convert


def _python_value(value: Any, cls: str) -> Any:
    if cls == "bool":
        return int(bool(value))
    if cls in INTEGER:
        return int(value)
    if cls == "complex":
        return complex(value)
    return float(np.float64(value))


def _exact_float(value: int | float, name: str) -> float:
    """`value` if type `name` holds it exactly (spec #convert: else the behavior is TBD). A float value under
    the hypothesis convert_rounding="toward_zero" (variants.current()): that rounding of it."""
    if isinstance(value, float) and not math.isnan(value) and variants.current().convert_rounding == "toward_zero":
        return float(np.asarray(round_toward_zero(np.float64(value), name)).astype(np.float64))
    if isinstance(value, int):
        as_float = float(value)
        if int(as_float) != value:
            raise UndefinedResult(f"{value} is not exactly representable in {name}")
        value = as_float
    if math.isnan(value):
        if not has_nan(name):
            raise UndefinedResult(f"{name} has no NaN")
        return value
    rounded = round_to(np.float64(value), name)
    back = float(np.asarray(rounded).astype(np.float64))
    if back != value or math.copysign(1.0, back) != math.copysign(1.0, value):
        raise UndefinedResult(f"{value!r} is not exactly representable in {name}")
    return value


def _to_int(value: int | float, name: str) -> int:
    """Integer sources kept if in range; floats truncated toward zero, kept if the result is in range."""
    if isinstance(value, float):
        if not math.isfinite(value):
            raise UndefinedResult(f"{value!r} has no integer truncation")
        value = math.trunc(value)
    lo, hi = int_range(name)
    if not lo <= value <= hi:
        raise UndefinedResult(f"{value} is out of range of {name}")
    return value


def convert_value(value: Any, source: str, target: str) -> Any:
    """One element's conversion per spec #convert, as a Python value of the target's class."""
    src_cls, dst_cls = class_of(source), class_of(target)
    value = _python_value(value, src_cls)
    if src_cls == "complex" and dst_cls != "complex":
        value = value.real  # "the source imaginary value is ignored" (also for booleans: see spec)
    if dst_cls == "bool":
        return value != 0  # NaN is non-zero; -0 is zero
    if dst_cls in INTEGER:
        return _to_int(value, target)
    if dst_cls == "float":
        return _exact_float(value, target)
    part = "f32" if target == "c64" else "f64"
    if isinstance(value, complex):
        return complex(_exact_float(value.real, part), _exact_float(value.imag, part))
    return complex(_exact_float(value, part), 0.0)  # "the destination imaginary value is zeroed"


@spec_op("convert", classes=ALL)
def convert(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
            results: Sequence[TensorType]) -> list[np.ndarray]:
    """spec #convert: false/true -> 0/1; to boolean: zero -> false, non-zero -> true; integer/float
    sources exactly representable in the target give that value; float -> integer truncates toward zero;
    complex -> other: imaginary part ignored; other -> complex: imaginary part +0. Everything else is
    TBD in the spec: UndefinedResult."""
    (operand,) = operands
    source, target = dtypes.name_of(operand.dtype), results[0].dtype
    values = [convert_value(v, source, target) for v in operand.ravel()]
    shape = operand.shape
    cls = class_of(target)
    if cls == "bool":
        return [np.array(values, dtype=np.bool_).reshape(shape)]
    if cls in INTEGER:
        return [_int_result(values, target, shape)]
    if cls == "complex":
        return [np.array(values, dtype=np_dtype(target)).reshape(shape)]
    return [round_to(np.array(values, dtype=np.float64), target).reshape(shape)]  # exact: no rounding


# ------------------------------------------------------------------------------------ bitcast_convert


@spec_op("bitcast_convert", classes=ALL)
def bitcast_convert(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
                    results: Sequence[TensorType]) -> list[np.ndarray]:
    """spec #bitcast_convert, equal widths: `bits(result[i]) = bits(operand[i])`. Different widths:
    the order of the parts is implementation-defined (UndefinedResult). Complex only to complex (C2)."""
    (operand,) = operands
    source, target = dtypes.name_of(operand.dtype), results[0].dtype
    if (class_of(source) == "complex") != (class_of(target) == "complex"):
        raise ValueError("bitcast_convert between complex and non-complex types is not allowed (C2)")
    if bit_width(source) != bit_width(target):
        raise UndefinedResult("bitcast_convert between different widths: the part order is "
                              "implementation-defined")
    if class_of(source) == "complex":
        return [operand.copy()]
    return [from_bits(bits(operand, source), target, operand.shape)]
