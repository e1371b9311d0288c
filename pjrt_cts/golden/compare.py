"""THE compare function: every numeric check of a golden output goes through `compare`."""
from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from pjrt_cts.golden import dtypes
from pjrt_cts.golden.tolerance import Tolerance


@dataclasses.dataclass
class Mismatch:
    """Why an actual array is not within tolerance of the expected one."""

    message: str
    dtype: str
    max_abs_err: float | None = None
    max_rel_err: float | None = None
    first_mismatch_index: tuple[int, ...] | None = None
    num_mismatches: int = 0
    num_elements: int = 0

    def __str__(self) -> str:
        return self.message

    def details(self) -> dict[str, Any]:
        """The fields results.json `details` carries for a numeric diff."""
        return {
            "max_abs_err": self.max_abs_err,
            "max_rel_err": self.max_rel_err,
            "first_mismatch_index": list(self.first_mismatch_index) if self.first_mismatch_index is not None else None,
            "dtype": self.dtype,
            "num_mismatches": self.num_mismatches,
        }


def _dtype_name(array: np.ndarray) -> str:
    try:
        return dtypes.name_of(array.dtype)
    except ValueError:
        return str(array.dtype)


def _ulp(expected: np.ndarray, dtype_name: str) -> np.ndarray:
    """Spacing of the element type at each expected value (float64), subnormal-aware."""
    info = dtypes.finfo(dtype_name)
    magnitude = np.abs(np.nan_to_num(expected, nan=0.0, posinf=0.0, neginf=0.0))
    with np.errstate(divide="ignore"):
        exponent = np.floor(np.log2(np.where(magnitude > 0, magnitude, 1.0)))
    exponent = np.maximum(exponent, int(info.minexp))
    return np.ldexp(1.0, (exponent - int(info.nmant)).astype(np.int64))


def _components(array: np.ndarray) -> list[np.ndarray]:
    if np.iscomplexobj(array):
        return [array.real.astype(np.float64), array.imag.astype(np.float64)]
    return [array.astype(np.float64)]


def _modulus(expected: np.ndarray) -> np.ndarray | None:
    """|expected| of a complex array (float64, finite where both components are); None for reals."""
    if not np.iscomplexobj(expected):
        return None
    with np.errstate(invalid="ignore", over="ignore"):
        return np.abs(expected.astype(np.complex128))


def compare(actual: np.ndarray, expected: np.ndarray, tolerance: Tolerance) -> Mismatch | None:
    """None when `actual` matches `expected` within `tolerance`, else a Mismatch saying how."""
    actual = np.asarray(actual)
    expected = np.asarray(expected)
    dtype_name = _dtype_name(expected)
    if actual.dtype != expected.dtype:
        return Mismatch(f"dtype mismatch: actual {_dtype_name(actual)}, expected {dtype_name}", dtype=dtype_name)
    if actual.shape != expected.shape:
        return Mismatch(f"shape mismatch: actual {list(actual.shape)}, expected {list(expected.shape)} ({dtype_name})",
                        dtype=dtype_name)
    if expected.size == 0:
        return None
    if actual.tobytes() == expected.tobytes():
        return None  # bit-identical is within every tolerance (NaNs, signed zeros and subnormals included)
    floating = dtypes.is_floating(dtype_name) or dtypes.is_complex(dtype_name)
    if not floating:
        bad = actual != expected
        if not bad.any():
            return None
        diff = np.abs(actual.astype(np.float64) - expected.astype(np.float64)) if dtype_name != "pred" else bad.astype(float)
        return _mismatch(actual, expected, bad, diff, np.abs(expected.astype(np.float64)), dtype_name, tolerance)

    bad = np.zeros(expected.shape, dtype=bool)
    abs_err = np.zeros(expected.shape, dtype=np.float64)
    magnitude = np.zeros(expected.shape, dtype=np.float64)
    modulus = _modulus(expected)
    for a, e in zip(_components(actual), _components(expected)):
        a_nan, e_nan = np.isnan(a), np.isnan(e)
        a_inf, e_inf = np.isinf(a), np.isinf(e)
        finite = ~(a_nan | e_nan | a_inf | e_inf)
        with np.errstate(invalid="ignore", over="ignore"):
            err = np.where(finite, np.abs(a - e), 0.0)
        component_bad = a_nan != e_nan
        component_bad |= (a_inf | e_inf) & ~(a_nan | e_nan) & (a != e)
        if tolerance.kind == "exact":
            component_bad |= finite & ((a != e) | (np.signbit(a) != np.signbit(e)))
        else:
            if tolerance.kind == "ulp":
                outside = err > tolerance.ulps * _ulp(e, dtype_name)
            else:
                # Relative to |expected| (for complex values: the modulus, see tolerance.py).
                outside = err > tolerance.atol + tolerance.rtol * (np.abs(e) if modulus is None else modulus)
            # Flushing a subnormal result to zero is allowed (XLA CPU runs with FTZ/DAZ).
            tiny = float(dtypes.finfo(dtype_name).tiny)
            flushed = (a == 0) & (np.abs(e) < tiny)
            component_bad |= finite & outside & ~flushed
        # A NaN or inf where a finite value was expected counts as an infinite error.
        err = np.where(component_bad & ~finite, np.inf, err)
        bad |= component_bad
        abs_err = np.maximum(abs_err, err)
        magnitude = np.maximum(magnitude, np.where(np.isfinite(e), np.abs(e), 0.0))
    if not bad.any():
        return None
    return _mismatch(actual, expected, bad, abs_err, magnitude, dtype_name, tolerance)


def _mismatch(actual: np.ndarray, expected: np.ndarray, bad: np.ndarray, abs_err: np.ndarray,
              magnitude: np.ndarray, dtype_name: str, tolerance: Tolerance) -> Mismatch:
    with np.errstate(divide="ignore", invalid="ignore"):
        rel_err = np.where(magnitude > 0, abs_err / magnitude, np.where(abs_err > 0, np.inf, 0.0))
    first = tuple(int(i) for i in np.argwhere(bad)[0])
    max_abs = float(np.max(abs_err))
    max_rel = float(np.max(rel_err))
    count = int(bad.sum())
    message = (
        f"{count} of {expected.size} elements differ ({dtype_name}, tolerance {tolerance}): "
        f"max abs err {max_abs:.6g}, max rel err {max_rel:.6g}, first mismatch at index {list(first)}: "
        f"actual {actual[first]!r}, expected {expected[first]!r}"
    )
    return Mismatch(message, dtype=dtype_name, max_abs_err=max_abs, max_rel_err=max_rel,
                    first_mismatch_index=first, num_mismatches=count, num_elements=int(expected.size))
