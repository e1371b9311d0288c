"""Elementwise arithmetic and math ops (spec sections named in each registration).

Floats are computed exactly (float64, Python ints or Fractions) and rounded once with `round_to`; the narrow
float types newer than the stored spec (f4, f6, f8E3M4, f8E4M3) are treated as its floating-point class
(IEEE-754-like semantics in their own encodings).

Inputs with no spec value (the functions raise UndefinedResult; case generators drop them):
- integer results outside the type (spec ## Errors: "error
  conditions are still possible, e.g. through integer overflows ... implementation-defined behavior"):
  subtract/multiply/power overflow, abs and negate of INT_MIN, unsigned negate of 2^(N-1), INT_MIN / -1;
- integer divide/remainder by zero (an error condition, implementation-defined);
- power on integers with a negative exponent (the spec's "integer exponentiation" gives no value);
- float results that overflow a type without infinity, NaN in a type without NaN (see numeric.round_to);
- complex multiply/divide/abs/sign/power with inf/NaN parts, division by 0, power of a base on the
  non-positive real axis ("Exceptions for nonstandard operations (e.g. complex arithmetic ...) are
  implementation-defined");
- remainder: complex (TBD in the spec), finite % inf (its formula and its sign sentence disagree);
- maximum/minimum/clamp on complex: NaN parts, or parts equal but for the sign of zero;
- reduce_precision of a subnormal operand when only the mantissa is reduced.
"""
from __future__ import annotations

import math
import sys
from fractions import Fraction
from typing import Any, Callable, Mapping, Sequence

import ml_dtypes
import numpy as np

from pjrt_cts.golden import dtypes
from pjrt_cts.golden.spec import variants
from pjrt_cts.golden.spec.numeric import UndefinedResult, round_to, to_f64
from pjrt_cts.golden.spec.registry import TensorType, spec_op
from pjrt_cts.golden.spec.types import bit_width, class_of, int_range, np_dtype


@spec_op("add", classes=("bool", "signed", "unsigned", "float", "complex"), op_class="arith", exact=True)
def add(operands: Sequence[np.ndarray], attributes: Mapping[str, Any], results: Sequence[TensorType]) -> list[np.ndarray]:
    """spec #add: booleans: logical OR; integers: addition (an overflow is implementation-defined: spec ## Errors);
    floats: IEEE-754 addition; complex: componentwise addition."""
    lhs, rhs = operands
    name = results[0].dtype
    cls = class_of(name)
    if cls == "bool":
        return [np.logical_or(lhs, rhs)]
    if cls in ("signed", "unsigned"):
        return [_int_result([a + b for a, b in zip(_ints(lhs), _ints(rhs))], name, lhs.shape)]
    if cls == "complex":
        with np.errstate(all="ignore"):
            return [(lhs + rhs).astype(lhs.dtype)]
    with np.errstate(all="ignore"):  # the float64 sum of two narrower floats is exact: one rounding
        return [round_to(to_f64(lhs) + to_f64(rhs), name)]


# --- shared helpers -------------------------------------------------------------------------------------------------


def _ints(array: np.ndarray) -> list[int]:
    """The elements of an integer array as Python ints (exact for u64 and the sub-byte types)."""
    return [int(v) for v in np.asarray(array).ravel()]


def _int_result(values: Sequence[int], name: str, shape: tuple[int, ...]) -> np.ndarray:
    """Exact integer results in type `name`. spec ## Errors: "error conditions are still possible, e.g. through
    integer overflows ... all these errors result in implementation-defined behavior" - so a result outside the
    type's range has no spec value."""
    lo, hi = int_range(name)
    for v in values:
        if not lo <= v <= hi:
            raise UndefinedResult(f"{v} overflows {name} (integer overflow is implementation-defined)")
    wide = np.dtype(np.int64 if lo < 0 else np.uint64)
    return np.array(list(values), dtype=object).astype(wide).astype(np_dtype(name)).reshape(shape)


def _trunc_div(a: int, b: int) -> int:
    """The integer quotient rounded toward zero (see `divide`)."""
    if b == 0:
        raise UndefinedResult("integer division by zero is an error condition (implementation-defined)")
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _float_unary(x: np.ndarray, fn: Callable[[np.ndarray], np.ndarray], name: str) -> np.ndarray:
    with np.errstate(all="ignore"):
        return round_to(fn(to_f64(x)), name)


def _require_finite_complex(*arrays: np.ndarray) -> None:
    """spec ## Errors: "Exceptions for nonstandard operations (e.g. complex arithmetic ...) are implementation-defined"."""
    for a in arrays:
        if not (np.isfinite(a.real).all() and np.isfinite(a.imag).all()):
            raise UndefinedResult("complex arithmetic on inf/NaN parts: exceptions are implementation-defined")


def _make_complex(re: np.ndarray, im: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """A complex array from its parts without arithmetic (1j * inf would make a NaN real part)."""
    out = np.empty(np.shape(re), dtype=dtype)
    out.real = re
    out.imag = im
    return out


def _round_complex(re: Sequence[Fraction | float], im: Sequence[Fraction | float], dtype: np.dtype,
                   shape: tuple[int, ...]) -> np.ndarray:
    """Exact parts rounded once to float64, then to the complex type's part type."""
    part = np.float32 if dtype == np.complex64 else np.float64
    with np.errstate(over="ignore"):
        real = np.array([float(v) for v in re], dtype=np.float64).astype(part)
        imag = np.array([float(v) for v in im], dtype=np.float64).astype(part)
    if not (np.isfinite(real).all() and np.isfinite(imag).all()):
        raise UndefinedResult("complex result overflows (exceptions of complex arithmetic are implementation-defined)")
    return _make_complex(real.reshape(shape), imag.reshape(shape), dtype)


def _fractions(values: np.ndarray) -> list[Fraction]:
    return [Fraction(float(v)) for v in np.asarray(values, dtype=np.float64).ravel()]


# --- arithmetic -----------------------------------------------------------------------------------------------------

@spec_op("subtract", classes=("signed", "unsigned", "float", "complex"), op_class="arith", exact=True)
def subtract(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
             results: Sequence[TensorType]) -> list[np.ndarray]:
    """spec #subtract: integers: integer subtraction (a result outside the type is an integer overflow:
    implementation-defined, no value); floats: IEEE-754 subtraction; complex: complex (componentwise) subtraction."""
    lhs, rhs = operands
    name = results[0].dtype
    cls = class_of(name)
    if cls in ("signed", "unsigned"):
        return [_int_result([a - b for a, b in zip(_ints(lhs), _ints(rhs))], name, lhs.shape)]
    if cls == "complex":
        with np.errstate(all="ignore"):
            return [(lhs - rhs).astype(lhs.dtype)]
    with np.errstate(all="ignore"):  # the float64 difference of two narrower floats rounds innocuously (p' >= 2p+2)
        return [round_to(to_f64(lhs) - to_f64(rhs), name)]


@spec_op("multiply", classes=("bool", "signed", "unsigned", "float", "complex"), op_class="arith", exact=True)
def multiply(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
             results: Sequence[TensorType]) -> list[np.ndarray]:
    """spec #multiply: booleans: logical AND; integers: integer multiplication (overflow: no value); floats:
    IEEE-754 multiplication; complex: complex multiplication, here (ac - bd) + (ad + bc)i computed exactly and
    rounded once (finite parts only: complex exceptions are implementation-defined)."""
    lhs, rhs = operands
    name = results[0].dtype
    cls = class_of(name)
    if cls == "bool":
        return [np.logical_and(lhs, rhs)]
    if cls in ("signed", "unsigned"):
        return [_int_result([a * b for a, b in zip(_ints(lhs), _ints(rhs))], name, lhs.shape)]
    if cls == "complex":
        _require_finite_complex(lhs, rhs)
        a, b, c, d = (_fractions(p) for p in (lhs.real, lhs.imag, rhs.real, rhs.imag))
        re = [ai * ci - bi * di for ai, bi, ci, di in zip(a, b, c, d)]
        im = [ai * di + bi * ci for ai, bi, ci, di in zip(a, b, c, d)]
        return [_round_complex(re, im, lhs.dtype, lhs.shape)]
    with np.errstate(all="ignore"):  # the float64 product of two floats of <= 26 bits is exact
        return [round_to(to_f64(lhs) * to_f64(rhs), name)]


@spec_op("divide", classes=("signed", "unsigned", "float", "complex"), op_class="arith", exact=True)
def divide(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
           results: Sequence[TensorType]) -> list[np.ndarray]:
    """spec #divide: integers: "integer division" - rounded toward zero, as spec #remainder requires (its result
    takes the dividend's sign and is lhs - divide(lhs, rhs) * rhs); division by zero and INT_MIN / -1 (an
    overflow) are error conditions, implementation-defined (spec ## Errors): no value. Floats: IEEE-754 division
    (x/0 = ±inf, 0/0 = NaN). Complex: complex division, exact then rounded once, finite parts and a non-zero
    divisor only (complex exceptions are implementation-defined)."""
    lhs, rhs = operands
    name = results[0].dtype
    cls = class_of(name)
    if cls in ("signed", "unsigned"):
        return [_int_result([_trunc_div(a, b) for a, b in zip(_ints(lhs), _ints(rhs))], name, lhs.shape)]
    if cls == "complex":
        _require_finite_complex(lhs, rhs)
        a, b, c, d = (_fractions(p) for p in (lhs.real, lhs.imag, rhs.real, rhs.imag))
        if any(ci == 0 and di == 0 for ci, di in zip(c, d)):
            raise UndefinedResult("complex division by zero: exceptions of complex arithmetic are implementation-defined")
        den = [ci * ci + di * di for ci, di in zip(c, d)]
        re = [(ai * ci + bi * di) / n for ai, bi, ci, di, n in zip(a, b, c, d, den)]
        im = [(bi * ci - ai * di) / n for ai, bi, ci, di, n in zip(a, b, c, d, den)]
        return [_round_complex(re, im, lhs.dtype, lhs.shape)]
    with np.errstate(all="ignore"):  # float64 division then one rounding is innocuous for types of <= 25 bits
        return [round_to(to_f64(lhs) / to_f64(rhs), name)]


@spec_op("remainder", classes=("signed", "unsigned", "float"))
def remainder(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
              results: Sequence[TensorType]) -> list[np.ndarray]:
    """spec #remainder: "the sign of the result is taken from the dividend, and the absolute value of the result
    is always less than the divisor's absolute value"; lhs - d * rhs with d the integer quotient rounded toward
    zero (integers: `divide`; floats: "in contrast with the remainder operation from IEEE-754" - i.e. C fmod,
    exact). Complex: TBD in the spec (#997), not covered. No value: integer x % 0 and INT_MIN % -1 (`divide` of
    those is an error condition); float finite x % ±inf (the stated formula, lhs - 0 * inf, gives NaN while the
    sign/magnitude sentence gives x: ambiguous)."""
    lhs, rhs = operands
    name = results[0].dtype
    if class_of(name) in ("signed", "unsigned"):
        values = []
        for a, b in zip(_ints(lhs), _ints(rhs)):
            q = _trunc_div(a, b)
            _int_result([q], name, (1,))  # INT_MIN / -1 overflows in `divide`
            values.append(a - q * b)
        return [_int_result(values, name, lhs.shape)]
    x, y = to_f64(lhs), to_f64(rhs)
    if (np.isfinite(x) & np.isinf(y)).any():
        raise UndefinedResult("finite % inf: the spec's formula and its sign sentence disagree")
    with np.errstate(all="ignore"):
        return [round_to(np.fmod(x, y), name)]  # fmod is exact; a zero result keeps the dividend's sign


def _int_power(base: int, exponent: int) -> int:
    if exponent < 0:
        raise UndefinedResult("integer exponentiation by a negative exponent: the spec defines no value")
    if base in (0, 1) or exponent == 0:
        return 1 if exponent == 0 else base
    if base == -1:
        return -1 if exponent % 2 else 1
    if exponent > 64:  # |base| >= 2: overflows every integer type
        raise UndefinedResult("integer exponentiation overflows")
    return base ** exponent


@spec_op("power", classes=("signed", "unsigned", "float", "complex"), op_class="transcendental", exact=False)
def power(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
          results: Sequence[TensorType]) -> list[np.ndarray]:
    """spec #power: integers: "integer exponentiation" (exact; a negative exponent has no integer-exponentiation
    value in the spec and overflow is implementation-defined: no value; 0^0 = 1, the empty product); floats:
    `pow` from IEEE-754 (its special cases: pow(x, ±0) = 1, pow(+1, y) = 1, negative base with non-integer
    exponent = NaN, ...), computed by the float64 libm pow and rounded to the type; complex: principal value
    exp(rhs * log(lhs)) for finite parts, lhs not on the non-positive real axis (branch cut / 0^z: exceptions of
    complex functions are implementation-defined)."""
    lhs, rhs = operands
    name = results[0].dtype
    cls = class_of(name)
    if cls in ("signed", "unsigned"):
        return [_int_result([_int_power(a, b) for a, b in zip(_ints(lhs), _ints(rhs))], name, lhs.shape)]
    if cls == "complex":
        _require_finite_complex(lhs, rhs)
        if ((lhs.imag == 0) & (lhs.real <= 0)).any():
            raise UndefinedResult("complex power of a base on the non-positive real axis (branch cut, 0^z)")
        with np.errstate(all="ignore"):
            out = np.power(lhs.astype(np.complex128), rhs.astype(np.complex128))
        _require_finite_complex(out)
        return [out.astype(lhs.dtype)]
    with np.errstate(all="ignore"):
        return [round_to(np.power(to_f64(lhs), to_f64(rhs)), name)]


# --- unary ----------------------------------------------------------------------------------------------------------

@spec_op("abs", classes=("signed", "float", "complex"))
def abs_(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
         results: Sequence[TensorType]) -> list[np.ndarray]:
    """spec #abs: signed integers: integer modulus (|INT_MIN| overflows: implementation-defined, no value); floats:
    IEEE-754 abs (clears the sign, NaN stays NaN); complex: modulus, a real result (finite parts only; not
    correctly rounded, so cases compare it with the transcendental tolerance)."""
    (x,) = operands
    name = results[0].dtype
    cls = class_of(dtypes.name_of(np.asarray(x).dtype))
    if cls == "signed":
        return [_int_result([abs(v) for v in _ints(x)], name, x.shape)]
    if cls == "complex":
        _require_finite_complex(x)
        with np.errstate(all="ignore"):
            return [np.hypot(x.real.astype(np.float64), x.imag.astype(np.float64)).astype(np_dtype(name))]
    return [_float_unary(x, np.abs, name)]


@spec_op("negate", classes=("signed", "unsigned", "float", "complex"))
def negate(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
           results: Sequence[TensorType]) -> list[np.ndarray]:
    """spec #negate: signed: integer negation (-INT_MIN overflows: no value); unsigned: "bitcast to signed integer,
    integer negation, bitcast back" - 2^N - x, 0 for 0, none for 2^(N-1) (its bitcast is INT_MIN); floats:
    IEEE-754 negate (flips the sign, also of zero; types without -0 give +0); complex: componentwise negation."""
    (x,) = operands
    name = results[0].dtype
    cls = class_of(name)
    if cls == "signed":
        return [_int_result([-v for v in _ints(x)], name, x.shape)]
    if cls == "unsigned":
        bits = bit_width(name)
        values = []
        for v in _ints(x):
            signed = v - 2 ** bits if v >= 2 ** (bits - 1) else v
            if signed == -2 ** (bits - 1):
                raise UndefinedResult(f"negate of {v}: its signed bitcast is INT_MIN, whose negation overflows")
            values.append((-signed) % 2 ** bits)
        return [_int_result(values, name, x.shape)]
    if cls == "complex":
        return [_make_complex(-x.real, -x.imag, x.dtype)]
    return [_float_unary(x, np.negative, name)]


@spec_op("sign", classes=("signed", "float", "complex"))
def sign(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
         results: Sequence[TensorType]) -> list[np.ndarray]:
    """spec #sign: integers: -1, 0, 1; floats: NaN for NaN, ±0 for ±0 (the spec's example: sign(+0.0) = +0.0,
    sign(-0.0) = -0.0), else ±1; complex: (NaN, NaN) if a part is NaN, (0, 0) for zero, else x / |x| (finite
    parts only: the division of an infinite value is an implementation-defined complex exception)."""
    (x,) = operands
    name = results[0].dtype
    cls = class_of(name)
    if cls == "signed":
        return [_int_result([(v > 0) - (v < 0) for v in _ints(x)], name, x.shape)]
    if cls == "float":
        return [_float_unary(x, lambda v: np.where(np.isnan(v) | (v == 0), v, np.sign(v)), name)]
    re, im = x.real.astype(np.float64), x.imag.astype(np.float64)
    nan = np.isnan(re) | np.isnan(im)
    if (~nan & (np.isinf(re) | np.isinf(im))).any():
        raise UndefinedResult("sign of an infinite complex value divides inf by inf (implementation-defined)")
    with np.errstate(all="ignore"):
        modulus = np.hypot(re, im)
        zero = modulus == 0
        out_re = np.where(nan, np.nan, np.where(zero, 0.0, re / np.where(zero, 1.0, modulus)))
        out_im = np.where(nan, np.nan, np.where(zero, 0.0, im / np.where(zero, 1.0, modulus)))
    return [_make_complex(out_re, out_im, x.dtype)]


def _rounding(operands: Sequence[np.ndarray], results: Sequence[TensorType],
              fn: Callable[[np.ndarray], np.ndarray]) -> list[np.ndarray]:
    (x,) = operands
    return [_float_unary(x, fn, results[0].dtype)]  # an integral float64 value is exact in the type


@spec_op("floor", classes=("float",))
def floor(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
          results: Sequence[TensorType]) -> list[np.ndarray]:
    """spec #floor: IEEE-754 roundToIntegralTowardNegative (±0, ±inf, NaN unchanged)."""
    return _rounding(operands, results, np.floor)


@spec_op("ceil", classes=("float",))
def ceil(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
         results: Sequence[TensorType]) -> list[np.ndarray]:
    """spec #ceil: IEEE-754 roundToIntegralTowardPositive (ceil(-0.5) = -0.0, the spec's example)."""
    return _rounding(operands, results, np.ceil)


def _ties_away(x: np.ndarray) -> np.ndarray:
    """roundToIntegralTiesToAway: trunc(x), plus ±1 where the dropped fraction is >= 1/2 (x - trunc(x) is exact;
    floor(|x| + 0.5) is not: 0.49999999999999994 + 0.5 rounds to 1)."""
    t = np.trunc(x)
    with np.errstate(invalid="ignore"):
        frac = np.where(np.isfinite(x), np.abs(x - t), 0.0)
    return np.where(frac >= 0.5, t + np.sign(x), t)


@spec_op("round_nearest_afz", classes=("float",))
def round_nearest_afz(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
                      results: Sequence[TensorType]) -> list[np.ndarray]:
    """spec #round_nearest_afz: IEEE-754 roundToIntegralTiesToAway (-2.5 -> -3, 0.5 -> 1, -0.4 -> -0)."""
    return _rounding(operands, results, _ties_away)


@spec_op("round_nearest_even", classes=("float",))
def round_nearest_even(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
                       results: Sequence[TensorType]) -> list[np.ndarray]:
    """spec #round_nearest_even: IEEE-754 roundToIntegralTiesToEven (2.5 -> 2, 0.5 -> 0, -0.5 -> -0)."""
    return _rounding(operands, results, np.rint)


@spec_op("is_finite", classes=("float",))
def is_finite(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
              results: Sequence[TensorType]) -> list[np.ndarray]:
    """spec #is_finite: IEEE-754 isFinite - false for ±inf and NaN, true otherwise; an i1 result."""
    (x,) = operands
    with np.errstate(invalid="ignore"):
        return [np.isfinite(to_f64(x))]


@spec_op("real", classes=("float", "complex"))
def real(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
         results: Sequence[TensorType]) -> list[np.ndarray]:
    """spec #real: `is_complex(x) ? x.real : x`."""
    (x,) = operands
    return [x.real.copy() if np.iscomplexobj(x) else x.copy()]


@spec_op("imag", classes=("float", "complex"))
def imag(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
         results: Sequence[TensorType]) -> list[np.ndarray]:
    """spec #imag: `is_complex(x) ? x.imag : 0.0` (+0.0 for a float operand, whatever its value)."""
    (x,) = operands
    if np.iscomplexobj(x):
        return [x.imag.copy()]
    return [round_to(np.zeros(x.shape), results[0].dtype)]


@spec_op("complex", classes=("float",))
def complex_(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
             results: Sequence[TensorType]) -> list[np.ndarray]:
    """spec #complex: the complex value (lhs, rhs); operands f32 or f64 only (spec constraint), parts copied
    unchanged (NaN, inf and signed zeros included)."""
    lhs, rhs = operands
    return [_make_complex(lhs, rhs, np_dtype(results[0].dtype))]


# --- ordering -------------------------------------------------------------------------------------------------------

def ieee_extreme(a: float, b: float, larger: bool, tiny: float = 0.0) -> float:
    """IEEE-754 maximum/minimum (2019, 9.6): NaN if either is NaN; -0 compares less than +0. Under another
    `variants.current()` (the diagnosis' hypotheses only), NaN and equal operands pick as it says, and values
    below `tiny` (the type's smallest normal) may be compared as zeros, the operand picked returned unchanged."""
    semantics = variants.current()
    x, y = a, b  # the values compared
    if semantics.compare_flushes_subnormals:
        x, y = (math.copysign(0.0, v) if abs(v) < tiny else v for v in (a, b))
    if math.isnan(x) or math.isnan(y):
        mode = semantics.max_min_nan
        if mode == "propagate" or (math.isnan(x) and math.isnan(y)):
            return math.nan
        if mode == "non_nan":
            return b if math.isnan(x) else a
        return a if mode == "first" else b
    if x == y and semantics.max_min_zero != "ordered":
        return a if semantics.max_min_zero == "first" else b
    if x == y:
        if larger:
            return a if not math.copysign(1.0, x) < 0 else b
        return a if math.copysign(1.0, x) < 0 else b
    return a if (x > y) == larger else b


def lexicographic_extreme(a: complex, b: complex, larger: bool) -> complex:
    """Lexicographic (real, imag) max/min. Where it depends on what the spec leaves open - NaN parts, or parts
    equal in value but not in the sign of zero - there is no value. (Hypothesis "real": real parts only, equal
    ones giving the `complex_tie` operand.)"""
    semantics = variants.current()
    if semantics.complex_order == "real":
        if math.isnan(a.real) or math.isnan(b.real):
            raise UndefinedResult("ordering complex values by a NaN real part")
        if a.real == b.real:
            return a if semantics.complex_tie == "first" else b
        return a if (a.real > b.real) == larger else b
    parts = (a.real, a.imag, b.real, b.imag)
    if any(math.isnan(p) for p in parts):
        raise UndefinedResult("lexicographic order of complex values with NaN parts is not defined by the spec")

    def same(x: float, y: float) -> bool:
        return x == y and math.copysign(1.0, x) == math.copysign(1.0, y)

    if a.real == b.real and not same(a.real, b.real):
        raise UndefinedResult("complex order of +0 and -0 real parts is not defined by the spec")
    if same(a.real, b.real) and a.imag == b.imag and not same(a.imag, b.imag):
        raise UndefinedResult("complex order of +0 and -0 imaginary parts is not defined by the spec")
    a_first = (a.real, a.imag) >= (b.real, b.imag)
    return a if a_first == larger else b


def _extreme(lhs: np.ndarray, rhs: np.ndarray, name: str, larger: bool) -> np.ndarray:
    cls = class_of(name)
    if cls == "bool":
        return np.logical_or(lhs, rhs) if larger else np.logical_and(lhs, rhs)
    if cls in ("signed", "unsigned"):
        pick = max if larger else min
        return _int_result([pick(a, b) for a, b in zip(_ints(lhs), _ints(rhs))], name, lhs.shape)
    if cls == "complex":
        values = [lexicographic_extreme(complex(a), complex(b), larger) for a, b in zip(lhs.ravel(), rhs.ravel())]
        return np.array(values, dtype=lhs.dtype).reshape(lhs.shape)
    tiny = float(dtypes.finfo(name).tiny)
    values = [ieee_extreme(float(a), float(b), larger, tiny) for a, b in zip(to_f64(lhs).ravel(), to_f64(rhs).ravel())]
    return round_to(np.array(values, dtype=np.float64).reshape(lhs.shape), name)


@spec_op("maximum", classes=("bool", "signed", "unsigned", "float", "complex"))
def maximum(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
            results: Sequence[TensorType]) -> list[np.ndarray]:
    """spec #maximum: booleans: logical OR; integers: integer maximum; floats: IEEE-754 `maximum` (NaN
    propagates, -0 < +0); complex: lexicographic maximum of (real, imag)."""
    lhs, rhs = operands
    return [_extreme(lhs, rhs, results[0].dtype, larger=True)]


@spec_op("minimum", classes=("bool", "signed", "unsigned", "float", "complex"))
def minimum(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
            results: Sequence[TensorType]) -> list[np.ndarray]:
    """spec #minimum: booleans: logical AND; integers: integer minimum; floats: IEEE-754 `minimum` (NaN
    propagates, -0 < +0); complex: lexicographic minimum of (real, imag)."""
    lhs, rhs = operands
    return [_extreme(lhs, rhs, results[0].dtype, larger=False)]


@spec_op("clamp", classes=("bool", "signed", "unsigned", "float", "complex"))
def clamp(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
          results: Sequence[TensorType]) -> list[np.ndarray]:
    """spec #clamp: `minimum(maximum(operand, min_val), max_val)`, min/max of rank 0 broadcast. The spec's
    constraints do not require min <= max, so min > max gives max (the formula's value)."""
    low, x, high = operands
    name = results[0].dtype
    low = np.broadcast_to(low, x.shape)
    high = np.broadcast_to(high, x.shape)
    if variants.current().clamp_bound_first:
        return [_extreme(_extreme(low, x, name, larger=True), high, name, larger=False)]
    return [_extreme(_extreme(x, low, name, larger=True), high, name, larger=False)]


# --- reduce_precision -----------------------------------------------------------------------------------------------

def _reduce_one(v: float, exponent_bits: int, mantissa_bits: int, src_exponent_bits: int, src_mantissa_bits: int,
                src_tiny: float) -> float:
    if math.isnan(v) or math.isinf(v) or v == 0.0:
        return v
    magnitude = Fraction(abs(v))
    if mantissa_bits < src_mantissa_bits:
        if abs(v) < src_tiny and exponent_bits >= src_exponent_bits:
            # The operand's own mantissa field has fewer significant bits here: rounding "to mantissa_bits" of
            # the field (a fixed position) and of the value (its leading bit) differ; the spec does not say.
            raise UndefinedResult("reduce_precision of a subnormal operand with no exponent reduction is ambiguous")
        exponent = math.frexp(abs(v))[1] - 1  # |v| in [2^e, 2^(e+1))
        quantum = Fraction(2) ** (exponent - mantissa_bits)
        magnitude = round(magnitude / quantum) * quantum  # Fraction rounding: ties to even
    if exponent_bits < src_exponent_bits:
        bias = 2 ** (exponent_bits - 1) - 1  # normal exponents [1 - bias, bias], as in IEEE-754 formats
        if magnitude >= Fraction(2) ** (bias + 1):
            return math.copysign(math.inf, v)
        if magnitude < Fraction(2) ** (1 - bias):
            return math.copysign(0.0, v)
    return math.copysign(float(magnitude), v) if magnitude <= Fraction(sys.float_info.max) else \
        math.copysign(math.inf, v)


@spec_op("reduce_precision", classes=("float",))
def reduce_precision(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
                     results: Sequence[TensorType]) -> list[np.ndarray]:
    """spec #reduce_precision: round the mantissa to `mantissa_bits` (roundToIntegralTiesToEven), then, if the
    exponent does not fit `exponent_bits` (IEEE-style normal range [2 - 2^(e-1), 2^(e-1) - 1]), overflow to ±inf
    or underflow to ±0 with the original sign; NaN stays NaN, ±inf stays. A bound at or above the operand
    type's own width changes nothing. Covered for IEEE-like operand types (bf16, f16, f32, f64, f8E5M2); the
    exponent range of finite-only types (fn/fnuz) in these terms is not stated. No value: subnormal operands
    when the mantissa is reduced but the exponent is not (see _reduce_one)."""
    (x,) = operands
    name = results[0].dtype
    info = ml_dtypes.finfo(np_dtype(name))
    e, m = int(attributes["exponent_bits"]), int(attributes["mantissa_bits"])
    src_e = int(info.nexp)
    values = [_reduce_one(float(v), e, m, src_e, int(info.nmant), float(info.tiny)) for v in to_f64(x).ravel()]
    return [round_to(np.array(values, dtype=np.float64).reshape(x.shape), name)]
