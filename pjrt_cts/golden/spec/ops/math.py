"""Elementwise math functions of the spec: sqrt, rsqrt, cbrt, exponential, exponential_minus_one, log,
log_plus_one, logistic, sine, cosine, tan, tanh, atan2 (spec sections named in each registration).

Floats: the spec names the IEEE-754 operation (`squareRoot`, `rSqrt`, `rootn(x, 3)`, `exp`, `expm1`, `log`,
`logp1`, `sin`, `cos`, `tan`, `tanh`, `atan2`). The reference evaluates it in float64 on the operand's exact
value and rounds once into the result type (`numeric.round_to`). `squareRoot` is correctly rounded and float64
has more than 2p + 2 bits for every narrower type, so sqrt is exact (a float64 sqrt rounded again is the
correctly rounded narrow result); the other functions are not bit-exactly specified in practice (the spec's own
rsqrt example, 1/sqrt(9) = 0.33333343 in f32, is not correctly rounded) and are compared with the
`transcendental` tolerance. Their special values (IEEE-754 clause 9.2.1: log(±0) = -inf, log(x < 0) = NaN,
rSqrt(±0) = ±inf, exp(-inf) = +0, expm1(-inf) = -1, logp1(-1) = -inf, tanh(±inf) = ±1, sin(±inf) = NaN,
atan2(±0, -0) = ±pi, ...) are those of the C99 functions numpy calls, which IEEE-754 adopts.

The narrow floats newer than the stored spec (f4E2M1FN, f6E2M3FN, f6E3M2FN, f8E3M4, f8E4M3, f8E8M0FNU) are
treated as the spec's floating-point class: IEEE-754-like semantics in their own encodings.

Exclusions (UndefinedResult, dropped by the case generator):
- a result that overflows a type without infinity (fn / fnuz / f6 / f4), or is NaN in a type without NaN
  (log(0) in f8E4M3FN, log(-1) in f4E2M1FN, exp(large) in f8E4M3FN, ...);
- logistic, defined as `division(1, addition(1, exp(-x)))`, where the intermediate exp(-x) overflows a type
  without infinity;
- complex: the spec names "complex square root", "complex logarithm", ... without a special-value convention
  (no C99 Annex G), so only finite operands with finite results are defined here; operands on a branch cut
  whose imaginary part is -0 (which side of the cut they lie on is a signed-zero convention the spec does not
  state) and operands within rounding distance of a cut are dropped. Complex atan2, which the spec names
  without a formula, is taken as -i * log((x + iy) / sqrt(x^2 + y^2)) (the usual continuation of the real
  atan2); complex cbrt as the principal cube root exp(log(z) / 3), negative reals (where the real cube
  root competes with the principal one) excluded.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

import numpy as np

from pjrt_cts.golden.spec.numeric import UndefinedResult, has_inf, round_to, to_f64
from pjrt_cts.golden.spec.registry import TensorType, spec_op
from pjrt_cts.golden.spec.types import class_of, np_dtype

FLOAT_OR_COMPLEX = ("float", "complex")
# How close (relative to |z|) to a branch cut an operand may be before rounding in c64 could put it on the
# other side: such operands are dropped.
CUT_MARGIN = 1e-5

RealFn = Callable[[np.ndarray], np.ndarray]
ComplexFn = Callable[[np.ndarray], np.ndarray]


def _real(fn: RealFn, x: np.ndarray, name: str) -> np.ndarray:
    """fn on the float64 values of `x`, rounded once into `name`."""
    with np.errstate(all="ignore"):
        return round_to(fn(to_f64(x)), name)


def _on_cut(z: np.ndarray, cut: Callable[[np.ndarray], np.ndarray], closed: bool) -> np.ndarray:
    """Which of `z` lie on or within CUT_MARGIN of a branch cut along the negative real axis of `cut(z)`.

    On the cut itself with imaginary part +0 the principal value (approached from above) is unambiguous,
    unless `closed` (cbrt: whether a negative real has the real or the principal cube root is ambiguous)."""
    w = cut(z)
    near = np.abs(w.imag) <= CUT_MARGIN * np.abs(w)
    exactly_plus_zero = (w.imag == 0) & ~np.signbit(w.imag) & (z.imag == 0) & ~np.signbit(z.imag)
    return (w.real < 0) & near & (closed | ~exactly_plus_zero)


def _complex(fn: ComplexFn, z: np.ndarray, name: str, cut: Callable[[np.ndarray], np.ndarray] | None = None,
             closed: bool = False) -> np.ndarray:
    """fn on complex128 values of finite `z`, each component rounded into the result type once."""
    wide = np.asarray(z).astype(np.complex128)
    if not np.all(np.isfinite(wide)):
        raise UndefinedResult("complex operands with infinite or NaN parts: the spec gives no convention")
    if cut is not None:
        with np.errstate(all="ignore"):
            bad = _on_cut(wide, cut, closed)
        if np.any(bad):
            raise UndefinedResult(f"complex operand on a branch cut: {wide[bad][:3]}")
    with np.errstate(all="ignore"):
        out = fn(wide)
    if not np.all(np.isfinite(out)):
        raise UndefinedResult("complex result at a pole or overflowing: the spec gives no convention")
    return out.astype(np_dtype(name))


def _unary(real: RealFn, complex_fn: ComplexFn, cut: Callable[[np.ndarray], np.ndarray] | None = None,
           closed: bool = False):
    """An evaluate function applying `real` to floats and `complex_fn` to complex operands."""

    def evaluate(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
                 results: Sequence[TensorType]) -> list[np.ndarray]:
        (x,) = operands
        name = results[0].dtype
        if class_of(name) == "complex":
            return [_complex(complex_fn, x, name, cut, closed)]
        return [_real(real, x, name)]

    return evaluate


def _identity(z: np.ndarray) -> np.ndarray:
    return z


def _complex_cbrt(z: np.ndarray) -> np.ndarray:
    """Principal cube root; 0 at 0 (where log(z) is -inf)."""
    safe = np.where(z == 0, 1, z)
    return np.where(z == 0, 0, np.exp(np.log(safe) / 3))


def _logistic_real(x: np.ndarray, name: str) -> np.ndarray:
    if not has_inf(name):
        with np.errstate(all="ignore"):
            e = np.exp(-to_f64(x))
        try:
            round_to(e[np.isfinite(to_f64(x))], name)
        except UndefinedResult as exc:
            raise UndefinedResult(f"logistic: exp(-x) overflows {name}, which has no infinity") from exc
    return _real(lambda v: 1.0 / (1.0 + np.exp(-v)), x, name)


@spec_op("sqrt", classes=FLOAT_OR_COMPLEX, op_class="arith", exact=True)
def sqrt(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
         results: Sequence[TensorType]) -> list[np.ndarray]:
    """spec #sqrt: floats: IEEE-754 `squareRoot` (correctly rounded; sqrt(-0) = -0, sqrt(x < 0) = NaN,
    sqrt(+inf) = +inf); complex: complex square root (principal branch, cut along the negative reals)."""
    return _unary(np.sqrt, np.sqrt, cut=_identity)(operands, attributes, results)


@spec_op("rsqrt", classes=FLOAT_OR_COMPLEX, op_class="transcendental", exact=False)
def rsqrt(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
          results: Sequence[TensorType]) -> list[np.ndarray]:
    """spec #rsqrt: floats: IEEE-754 `rSqrt` (rSqrt(±0) = ±inf, rSqrt(x < 0) = NaN, rSqrt(+inf) = +0);
    complex: complex reciprocal square root 1 / sqrt(z)."""
    return _unary(lambda v: 1.0 / np.sqrt(v), lambda z: 1.0 / np.sqrt(z), cut=_identity)(
        operands, attributes, results)


@spec_op("cbrt", classes=FLOAT_OR_COMPLEX, op_class="transcendental", exact=False)
def cbrt(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
         results: Sequence[TensorType]) -> list[np.ndarray]:
    """spec #cbrt: floats: IEEE-754 `rootn(x, 3)` (odd root: cbrt(-8) = -2, cbrt(±0) = ±0, cbrt(±inf) = ±inf);
    complex: complex cubic root (principal; negative reals, where the real root competes, are excluded)."""
    return _unary(np.cbrt, _complex_cbrt, cut=_identity, closed=True)(operands, attributes, results)


@spec_op("exponential", classes=FLOAT_OR_COMPLEX, op_class="transcendental", exact=False)
def exponential(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
                results: Sequence[TensorType]) -> list[np.ndarray]:
    """spec #exponential: floats: IEEE-754 `exp` (exp(-inf) = +0, exp(+inf) = +inf, overflow to +inf);
    complex: complex exponential."""
    return _unary(np.exp, np.exp)(operands, attributes, results)


@spec_op("exponential_minus_one", classes=FLOAT_OR_COMPLEX, op_class="transcendental", exact=False)
def exponential_minus_one(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
                          results: Sequence[TensorType]) -> list[np.ndarray]:
    """spec #exponential_minus_one: floats: IEEE-754 `expm1` (expm1(±0) = ±0, expm1(-inf) = -1); complex:
    complex exponential minus one."""
    return _unary(np.expm1, np.expm1)(operands, attributes, results)


@spec_op("log", classes=FLOAT_OR_COMPLEX, op_class="transcendental", exact=False)
def log(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
        results: Sequence[TensorType]) -> list[np.ndarray]:
    """spec #log: floats: IEEE-754 `log` (log(±0) = -inf, log(x < 0) = NaN, log(1) = +0, log(+inf) = +inf);
    complex: complex logarithm (principal branch)."""
    return _unary(np.log, np.log, cut=_identity)(operands, attributes, results)


@spec_op("log_plus_one", classes=FLOAT_OR_COMPLEX, op_class="transcendental", exact=False)
def log_plus_one(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
                 results: Sequence[TensorType]) -> list[np.ndarray]:
    """spec #log_plus_one: floats: IEEE-754 `logp1` (logp1(-1) = -inf, logp1(x < -1) = NaN, logp1(±0) = ±0);
    complex: complex logarithm of 1 + z."""
    return _unary(np.log1p, np.log1p, cut=lambda z: 1 + z)(operands, attributes, results)


@spec_op("logistic", classes=FLOAT_OR_COMPLEX, op_class="transcendental", exact=False)
def logistic(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
             results: Sequence[TensorType]) -> list[np.ndarray]:
    """spec #logistic: floats: `division(1, addition(1, exp(-x)))` from IEEE-754 (logistic(+inf) = 1,
    logistic(-inf) = +0); complex: complex logistic 1 / (1 + exp(-z))."""
    (x,) = operands
    name = results[0].dtype
    if class_of(name) == "complex":
        return [_complex(lambda z: 1.0 / (1.0 + np.exp(-z)), x, name)]
    return [_logistic_real(x, name)]


@spec_op("sine", classes=FLOAT_OR_COMPLEX, op_class="transcendental", exact=False)
def sine(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
         results: Sequence[TensorType]) -> list[np.ndarray]:
    """spec #sine: floats: IEEE-754 `sin` (sin(±0) = ±0, sin(±inf) = NaN); complex: complex sine."""
    return _unary(np.sin, np.sin)(operands, attributes, results)


@spec_op("cosine", classes=FLOAT_OR_COMPLEX, op_class="transcendental", exact=False)
def cosine(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
           results: Sequence[TensorType]) -> list[np.ndarray]:
    """spec #cosine: floats: IEEE-754 `cos` (cos(±0) = 1, cos(±inf) = NaN); complex: complex cosine."""
    return _unary(np.cos, np.cos)(operands, attributes, results)


@spec_op("tan", classes=FLOAT_OR_COMPLEX, op_class="transcendental", exact=False)
def tan(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
        results: Sequence[TensorType]) -> list[np.ndarray]:
    """spec #tan: floats: IEEE-754 `tan` (tan(±0) = ±0, tan(±inf) = NaN); complex: complex tangent. (The
    section is newer than the stored spec text; its wording follows its sibling sections.)"""
    return _unary(np.tan, np.tan)(operands, attributes, results)


@spec_op("tanh", classes=FLOAT_OR_COMPLEX, op_class="transcendental", exact=False)
def tanh(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
         results: Sequence[TensorType]) -> list[np.ndarray]:
    """spec #tanh: floats: IEEE-754 `tanh` (tanh(±0) = ±0, tanh(±inf) = ±1); complex: complex hyperbolic
    tangent."""
    return _unary(np.tanh, np.tanh)(operands, attributes, results)


def _complex_atan2_cut(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Operands where a branch cut of -i * log((x + iy) / sqrt(x^2 + y^2)) is within reach of rounding."""
    w = x * x + y * y
    near_sqrt = (w.real <= 0) & (np.abs(w.imag) <= CUT_MARGIN * np.abs(w))
    with np.errstate(all="ignore"):
        q = (x + 1j * y) / np.sqrt(w)
    near_log = (q.real <= 0) & (np.abs(q.imag) <= CUT_MARGIN * np.abs(q))
    return near_sqrt | near_log | (np.abs(w) == 0)


@spec_op("atan2", classes=FLOAT_OR_COMPLEX, op_class="transcendental", exact=False)
def atan2(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
          results: Sequence[TensorType]) -> list[np.ndarray]:
    """spec #atan2: floats: IEEE-754 `atan2(lhs, rhs)` (atan2(±0, -0) = ±pi, atan2(±0, +0) = ±0,
    atan2(±0, x < 0) = ±pi, atan2(±inf, -inf) = ±3pi/4, atan2(y > 0, ±0) = pi/2, ...); complex: complex atan2,
    taken as -i * log((x + iy) / sqrt(x^2 + y^2))."""
    lhs, rhs = operands
    name = results[0].dtype
    if class_of(name) != "complex":
        with np.errstate(all="ignore"):
            return [round_to(np.arctan2(to_f64(lhs), to_f64(rhs)), name)]
    y, x = np.asarray(lhs).astype(np.complex128), np.asarray(rhs).astype(np.complex128)
    if not (np.all(np.isfinite(y)) and np.all(np.isfinite(x))):
        raise UndefinedResult("complex operands with infinite or NaN parts: the spec gives no convention")
    with np.errstate(all="ignore"):
        if np.any(_complex_atan2_cut(y, x)):
            raise UndefinedResult("complex atan2 operand on or near a branch cut")
        out = -1j * np.log((x + 1j * y) / np.sqrt(x * x + y * y))
    if not np.all(np.isfinite(out)):
        raise UndefinedResult("complex atan2 at a singularity")
    return [out.astype(np_dtype(name))]
