"""Correct rounding into the spec's floating-point types (IEEE-754 roundTiesToEven), independent of XLA.

ml_dtypes before 0.7 converts float64 to bf16/fp8/fp6/fp4 through float32, which rounds twice
(1 + 2^-8 + 2^-30 becomes bf16 1.0, not 1 + 2^-7); 0.7 rounds once. So that the reference does not depend on the
installed version, narrow types are rounded here from a table of every value the type holds. float32 and float64 results come from numpy, whose float64 -> float32
conversion is the hardware's correctly rounded one.

PYTEST_DONT_REWRITE: its asserts stay as written (tests/house/test_asserts_as_written.py says why).
"""
from __future__ import annotations

import dataclasses
import functools

import numpy as np

from pjrt_cts.golden.spec.types import bit_width, int_range, np_dtype


class UndefinedResult(ValueError):
    """The spec defines no value here (e.g. overflow in a type with neither infinity nor NaN)."""


@dataclasses.dataclass(frozen=True)
class _Table:
    magnitudes: np.ndarray  # float64, ascending: every finite non-negative value the type holds
    patterns: np.ndarray  # the bit pattern of each magnitude (positive sign)
    negative: dict[float, int]  # magnitude -> pattern of its negative (absent: the type has no such value)
    nan: int | None
    inf: int | None
    storage: np.dtype


@functools.cache
def _table(name: str) -> _Table:
    bits = bit_width(name)
    storage = np.dtype(np.uint8 if bits <= 8 else np.uint16)
    patterns = np.arange(2 ** bits, dtype=storage)
    with np.errstate(invalid="ignore"):
        values = patterns.view(np_dtype(name)).astype(np.float64)
    nan = next((int(p) for p, v in zip(patterns, values) if np.isnan(v)), None)
    inf = next((int(p) for p, v in zip(patterns, values) if np.isposinf(v)), None)
    positive: dict[float, int] = {}
    negative: dict[float, int] = {}
    for p, v in zip(patterns, values):
        if not np.isfinite(v):
            continue
        target = negative if np.signbit(v) else positive
        target.setdefault(abs(float(v)), int(p))
    magnitudes = np.array(sorted(positive), dtype=np.float64)
    return _Table(magnitudes, np.array([positive[m] for m in magnitudes], dtype=storage), negative, nan, inf,
                  storage)


def has_inf(name: str) -> bool:
    return name in ("f32", "f64") or _table(name).inf is not None


def has_nan(name: str) -> bool:
    return name in ("f32", "f64") or _table(name).nan is not None


def _round_one(x: float, t: _Table, name: str) -> int:
    if np.isnan(x):
        if t.nan is None:
            raise UndefinedResult(f"{name} has no NaN")
        return t.nan
    sign = bool(np.signbit(x))
    a = abs(x)
    largest = t.magnitudes[-1]
    overflow = bool(np.isinf(a))
    if not overflow and a > largest:
        midpoint = largest + (largest - t.magnitudes[-2]) / 2  # to the next value the exponent range lacks
        # RNE: past the midpoint overflows; at it, the even one of (largest, next) wins
        overflow = a > midpoint or (a == midpoint and int(t.patterns[-1]) % 2 == 1)
    if overflow:
        if t.inf is not None:
            return _signed(t, float("inf"), sign, name)
        # Finite-only types (fn, fnuz, fp6, fp4): the papers the spec cites let an implementation saturate or
        # give NaN; the spec itself does not say which.
        raise UndefinedResult(f"{x!r} overflows {name}, which has no infinity")
    if a > largest:
        return _signed(t, float(largest), sign, name)
    i = int(np.searchsorted(t.magnitudes, a))
    if i < len(t.magnitudes) and t.magnitudes[i] == a:
        chosen = i
    elif i == 0:
        chosen = 0
    elif i == len(t.magnitudes):
        chosen = i - 1
    else:
        lo, hi = t.magnitudes[i - 1], t.magnitudes[i]
        if a - lo < hi - a:
            chosen = i - 1
        elif hi - a < a - lo:
            chosen = i
        else:  # a tie: the value whose pattern is even
            chosen = i - 1 if int(t.patterns[i - 1]) % 2 == 0 else i
    return _signed(t, float(t.magnitudes[chosen]), sign, name)


def _signed(t: _Table, magnitude: float, sign: bool, name: str) -> int:
    if np.isinf(magnitude):
        assert t.inf is not None
        if not sign:
            return t.inf
        with np.errstate(invalid="ignore"):
            values = np.arange(2 ** bit_width(name), dtype=t.storage).view(np_dtype(name)).astype(np.float64)
        return int(np.flatnonzero(np.isneginf(values))[0])
    if not sign:
        return int(t.patterns[np.searchsorted(t.magnitudes, magnitude)])
    if magnitude in t.negative:
        return t.negative[magnitude]
    if magnitude == 0.0:  # the type has no -0 (fnuz, e8m0): the rounded value is +0
        return int(t.patterns[0])
    raise UndefinedResult(f"-{magnitude} is not a value of {name} (an unsigned type)")


def round_to(values: np.ndarray | float, name: str) -> np.ndarray:
    """Exact (or float64) values rounded to nearest, ties to even, into element type `name`.

    Raises UndefinedResult where the spec gives no value (see the exception)."""
    x = np.asarray(values, dtype=np.float64)
    dtype = np_dtype(name)
    if name in ("f32", "f64"):
        with np.errstate(over="ignore", invalid="ignore"):
            return x.astype(dtype)
    t = _table(name)
    flat = x.ravel()
    with np.errstate(over="ignore", invalid="ignore"):
        direct = flat.astype(dtype)  # ml_dtypes' conversion: exact where the type holds the value
        back = direct.astype(np.float64)
    # Values the type holds need no rounding (and no version of ml_dtypes rounds them wrongly); the rest are
    # rounded one by one from the table.
    held = (back == flat) & (np.signbit(back) == np.signbit(flat))
    patterns = direct.view(t.storage).copy()
    for i in np.flatnonzero(~held):
        patterns[i] = _round_one(float(flat[i]), t, name)
    return patterns.view(dtype).reshape(x.shape)


def round_toward_zero(values: np.ndarray | float, name: str) -> np.ndarray:
    """Float values rounded toward zero (IEEE-754 roundTowardZero) into element type `name`: the value of the
    type nearest to each that is not larger in magnitude (a finite value never overflows to infinity)."""
    x = np.asarray(values, dtype=np.float64)
    dtype = np_dtype(name)
    if name in ("f32", "f64"):
        with np.errstate(over="ignore", invalid="ignore"):
            nearest = x.astype(dtype)
            toward = np.where(np.isfinite(x) & (np.abs(nearest.astype(np.float64)) > np.abs(x)),
                              np.nextafter(nearest, dtype.type(0)), nearest)
        return np.asarray(toward, dtype=dtype)
    t = _table(name)
    chosen = []
    for value in x.ravel().tolist():
        if np.isnan(value) or np.isinf(value):
            chosen.append(_round_one(value, t, name))
            continue
        magnitude = t.magnitudes[max(int(np.searchsorted(t.magnitudes, abs(value), side="right")) - 1, 0)]
        chosen.append(_signed(t, float(magnitude), bool(np.signbit(value)), name))
    return np.array(chosen, dtype=t.storage).view(dtype).reshape(x.shape)


def to_f64(array: np.ndarray) -> np.ndarray:
    """A float array's exact values as float64 (every spec float type up to f64 embeds exactly)."""
    return np.asarray(array).astype(np.float64)


def wrap(values: np.ndarray, name: str) -> np.ndarray:
    """Integers reduced modulo 2^N into the range of integer type `name` (two's complement wrap-around)."""
    lo, hi = int_range(name)
    span = hi - lo + 1
    wrapped = [(int(v) - lo) % span + lo for v in np.asarray(values, dtype=object).ravel()]
    return np.array(wrapped, dtype=np.int64 if lo < 0 or hi < 2 ** 63 else np.uint64).astype(
        np_dtype(name)).reshape(np.shape(values))
