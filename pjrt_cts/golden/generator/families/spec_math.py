"""Spec-reference cases of the elementwise math functions (pjrt_cts.golden.spec.ops.math).

One case per (op, element type): every float representative and both complex types. Float operands are the
type's edge values (spec_cases.edges: ±0, ±1, subnormals, the extremes, ±inf, NaN) plus values where each
function has a defined special result or a known accuracy trap (cbrt(-8), log(1), exp past the overflow
threshold, sin at multiples of pi/2, tanh saturation, ...); atan2 takes every pair of edge values, which covers
IEEE-754's signed-zero and infinity table. Complex operands are finite values off the branch cuts (see the
reference module's docstring); inputs whose result the spec leaves undefined in the type are dropped.

Subnormal operands go in a case of their own per (op, type), `spec.<op>.subnormal.<dtype>`: IEEE-754 defines
sqrt(2^-149) = 2^-74.5 and so on, but XLA:CPU treats subnormal operands as zero (denormals-are-zero), which
would otherwise mark every case of the op as differing and hide any other difference.
"""
from __future__ import annotations

import math
from typing import Iterator, Sequence

import ml_dtypes
import numpy as np

from pjrt_cts.golden import dtypes
from pjrt_cts.golden.generator.core import CaseSpec
from pjrt_cts.golden.generator.spec_cases import edges, pairs, spec_case
from pjrt_cts.golden.spec import registry
from pjrt_cts.golden.spec.numeric import UndefinedResult
from pjrt_cts.golden.spec.registry import TensorType
from pjrt_cts.golden.spec.types import REPRESENTATIVES, class_of, np_dtype
from pjrt_cts.golden.tolerance import RULES as TOLERANCE_RULES
from pjrt_cts.golden.tolerance import Tolerance

PI = math.pi
# Ordinary and trap operands per op (cast into each type; those out of the type's range are skipped).
EXTRA: dict[str, tuple[float, ...]] = {
    "sqrt": (4.0, 2.0, 0.25, 9.0, 1e10, 1e-10, 1e300, 1e-300),
    "rsqrt": (4.0, 2.0, 0.25, 9.0, 25.0, 1e10, 1e-10, 1e300, 1e-300),
    "cbrt": (-8.0, 8.0, 27.0, -27.0, -0.125, 1e30, -1e-30),
    "exponential": (10.0, -10.0, 11.0, -17.0, 88.0, 89.0, -103.0, -104.0, 709.0, 710.0, -745.0, 0.6931471805599453),
    "exponential_minus_one": (1e-3, -1e-3, 1e-8, -1e-8, 10.0, -10.0, -40.0, 88.0, 89.0, 710.0),
    "log": (2.0, 10.0, 1e-3, 1e10, 1e-30, 1e300, 1.0009765625, 0.9990234375),
    "log_plus_one": (1e-3, -1e-3, 1e-8, -0.999, 7.0, 6.38905621, 15.0, 1e10, 1e300),
    "logistic": (2.0, 3.0, -3.0, 10.0, -10.0, 20.0, -20.0, 40.0, -40.0, -100.0, -750.0),
    "sine": (PI / 2, PI, 3 * PI / 2, 2 * PI, -PI, 100.0, 1e4, 1e6, 1e22, 1e300),
    "cosine": (PI / 2, PI, 3 * PI / 2, 2 * PI, -PI, 100.0, 1e4, 1e6, 1e22, 1e300),
    "tan": (PI / 4, PI / 2, PI, -PI / 4, 1.5, 100.0, 1e4, 1e6, 1e22, 1e300),
    "tanh": (0.1, -0.1, 1e-4, 5.0, -5.0, 9.0, 10.0, 20.0, -20.0, 40.0),
}
EXTRA_COMPLEX: tuple[complex, ...] = (1 + 2j, -3 + 4j, 0.25 - 0.75j, -2 - 1j, 3 + 0.5j, -0.5 + 3j)

RULES = {
    "sqrt": "floats: IEEE-754 squareRoot (correctly rounded; sqrt(-0) = -0, sqrt(x<0) = NaN)",
    "rsqrt": "floats: IEEE-754 rSqrt (rSqrt(±0) = ±inf, rSqrt(x<0) = NaN, rSqrt(+inf) = +0)",
    "cbrt": "floats: IEEE-754 rootn(x, 3) (cbrt(-8) = -2, cbrt(±0) = ±0, cbrt(±inf) = ±inf)",
    "exponential": "floats: IEEE-754 exp (exp(-inf) = +0, exp(+inf) = +inf, overflow to +inf)",
    "exponential_minus_one": "floats: IEEE-754 expm1 (expm1(±0) = ±0, expm1(-inf) = -1)",
    "log": "floats: IEEE-754 log (log(±0) = -inf, log(x<0) = NaN, log(+inf) = +inf)",
    "log_plus_one": "floats: IEEE-754 logp1 (logp1(-1) = -inf, logp1(x<-1) = NaN, logp1(±0) = ±0)",
    "logistic": "floats: division(1, addition(1, exp(-x))) (logistic(+inf) = 1, logistic(-inf) = +0)",
    "sine": "floats: IEEE-754 sin (sin(±0) = ±0, sin(±inf) = NaN)",
    "cosine": "floats: IEEE-754 cos (cos(±0) = 1, cos(±inf) = NaN)",
    "tan": "floats: IEEE-754 tan (tan(±0) = ±0, tan(±inf) = NaN)",
    "tanh": "floats: IEEE-754 tanh (tanh(±0) = ±0, tanh(±inf) = ±1)",
    "atan2": "floats: IEEE-754 atan2 (atan2(±0, -0) = ±pi, atan2(±0, +0) = ±0, atan2(±inf, ±inf) = ±pi/4, ±3pi/4)",
}
COMPLEX_RULES = {
    "sqrt": "complex square root (principal branch)", "rsqrt": "complex reciprocal square root",
    "cbrt": "complex cubic root (principal)", "exponential": "complex exponential",
    "exponential_minus_one": "complex exponential minus one", "log": "complex logarithm (principal branch)",
    "log_plus_one": "complex logarithm plus one", "logistic": "complex logistic",
    "sine": "complex sine", "cosine": "complex cosine", "tan": "complex tangent",
    "tanh": "complex hyperbolic tangent", "atan2": "complex atan2",
}
UNARY = tuple(EXTRA)


def _cast(values: Sequence[float], name: str) -> np.ndarray:
    """The values within the type's finite range, converted into it (any value of the type is an operand)."""
    largest = float(ml_dtypes.finfo(np_dtype(name)).max)
    kept = [v for v in values if abs(v) <= largest]
    with np.errstate(all="ignore"):
        return np.array(kept, dtype=np.float64).astype(np_dtype(name))


def _unique(x: np.ndarray) -> np.ndarray:
    """Deduplicated by bit pattern, order kept."""
    seen: set[bytes] = set()
    keep = []
    for i in range(x.size):
        key = x[i:i + 1].tobytes()
        if key not in seen:
            seen.add(key)
            keep.append(i)
    return x[keep]


def _defined(op: str, operands: Sequence[np.ndarray], name: str) -> list[np.ndarray]:
    """The elements (across the operands) whose result the spec reference defines in `name`."""
    keep = []
    for i in range(operands[0].size):
        single = [o[i:i + 1] for o in operands]
        try:
            registry.evaluate(op, single, {}, [TensorType((1,), name)])
            keep.append(i)
        except UndefinedResult:
            pass
    return [o[keep] for o in operands]


def _unary_operands(op: str, name: str) -> np.ndarray:
    if class_of(name) == "complex":
        base = edges(name)
        extra = np.array(EXTRA_COMPLEX, dtype=np_dtype(name))
        x = np.concatenate([base[np.isfinite(base)], extra])
    else:
        x = np.concatenate([edges(name), _cast(EXTRA[op], name)])
    return _unique(x)


def _atan2_operands(name: str) -> tuple[np.ndarray, np.ndarray]:
    y, x = pairs(name)
    if class_of(name) == "complex":
        finite = np.isfinite(y) & np.isfinite(x)
        y, x = y[finite], x[finite]
        extra = np.array(EXTRA_COMPLEX, dtype=np_dtype(name))
        y = np.concatenate([y, extra, extra[::-1]])
        x = np.concatenate([x, extra[::-1], np.roll(extra, 1)])
    return y, x


def _subnormal(x: np.ndarray) -> np.ndarray:
    """Which elements of a float array are subnormal (nonzero, below the smallest normal)."""
    if class_of(dtypes.name_of(x.dtype)) != "float":
        return np.zeros(x.shape, dtype=bool)
    with np.errstate(invalid="ignore"):
        wide = np.abs(x.astype(np.float64))
    return (wide > 0) & (wide < float(ml_dtypes.finfo(x.dtype).tiny))


def _complex_atan2_tolerance(name: str) -> Tolerance:
    """Complex atan2 goes through log((x + iy) / sqrt(x^2 + y^2)), a unit-modulus quotient: its rounding error
    is absolute (eps), not relative to the result, and the result is 0 wherever y = 0. The spec names no
    formula or accuracy, so an absolute atol of the transcendental rtol (8 eps) is allowed as well."""
    eps = float(ml_dtypes.finfo(np.float32 if name == "c64" else np.float64).eps)
    rtol = TOLERANCE_RULES["transcendental"].rtol_eps * eps
    return Tolerance("rel", rtol=rtol, atol=rtol, op_class="transcendental", atol_basis="absolute")


def _case(op: str, operands: list[np.ndarray], name: str, subnormal: bool = False) -> CaseSpec:
    complex_type = class_of(name) == "complex"
    rule = COMPLEX_RULES[op] if complex_type else RULES[op]
    if subnormal:
        rule = f"{rule}; subnormal operands are values like any other (IEEE-754 has no denormals-are-zero)"
    # complex square root is not an IEEE-754 correctly rounded operation: compared like the other functions
    op_class = "transcendental" if complex_type and op == "sqrt" else "exact"
    tolerance = _complex_atan2_tolerance(name) if complex_type and op == "atan2" else None
    suffix = f"subnormal.{name}" if subnormal else name
    return spec_case(op, suffix, operands, [TensorType(operands[0].shape, name)], rule=rule, op_class=op_class,
                     tolerance=tolerance)


def _split(op: str, operands: list[np.ndarray], name: str) -> Iterator[CaseSpec]:
    """The case without subnormal operands, then (if any) the case of the elements with one."""
    sub = np.zeros(operands[0].shape, dtype=bool)
    for x in operands:
        sub |= _subnormal(x)
    yield _case(op, [x[~sub] for x in operands], name)
    if np.any(sub):
        yield _case(op, [x[sub] for x in operands], name, subnormal=True)


def _types() -> list[str]:
    return list(REPRESENTATIVES["float"]) + list(REPRESENTATIVES["complex"])


def cases() -> Iterator[CaseSpec]:
    for op in UNARY:
        for name in _types():
            yield from _split(op, _defined(op, [_unary_operands(op, name)], name), name)
    for name in _types():
        yield from _split("atan2", _defined("atan2", list(_atan2_operands(name)), name), name)
