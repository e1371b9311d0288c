"""Host arrays for the suites: deterministic samples of any element type, and the two exact comparisons.

- `assert_same`: equal values (any NaN equals any NaN; signed zeros differ): a computed result against its reference.
- `assert_bit_exact`: equal bytes (NaN payloads too): data the plugin stores or moves, never computes on.

Both fail naming `what` (the PJRT functions involved) and the first differing index with both values, how many
values differ and the max abs/rel error (pjrt_cts.golden.compare, the comparison of every golden output).

PYTEST_DONT_REWRITE: its asserts stay as written (tests/house/test_asserts_as_written.py says why).
"""
from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from pjrt_cts.golden import EXACT, compare

# Integer types numpy does not know as integers (kind "V"): ml_dtypes' sub-byte integers.
_NARROW_INTEGERS = tuple(np.dtype(getattr(ml_dtypes, name))
                         for name in ("int4", "uint4", "int2", "uint2", "int1", "uint1") if hasattr(ml_dtypes, name))


def sample_array(dtype: np.dtype[Any] | type, shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    """Deterministic values spanning the dtype's range (extremes, zero, signed zero, inf/nan where they exist)."""
    dtype = np.dtype(dtype)
    count = int(np.prod(shape, dtype=np.int64))
    rng = np.random.default_rng(seed)
    if dtype == np.bool_:
        return (np.arange(count) % 3 == 0).reshape(shape)
    if dtype.kind in "iu" or dtype in _NARROW_INTEGERS:
        return _integer_sample(dtype, shape, count, rng)
    if dtype.kind == "c":
        part = np.float32 if dtype == np.complex64 else np.float64
        out = np.empty(count, dtype)
        out.real = sample_array(np.dtype(part), (count,), seed)
        out.imag = sample_array(np.dtype(part), (count,), seed + 1)
        return out.reshape(shape)
    info = ml_dtypes.finfo(dtype)
    specials = np.array([0.0, -0.0, 1.0, -1.0, 0.5, float(info.max), -float(info.max), float(info.tiny),
                         float(info.smallest_subnormal), np.inf, -np.inf, np.nan], dtype=np.float64)
    values = rng.standard_normal(count) * 4.0
    values[: min(count, len(specials))] = specials[: min(count, len(specials))]
    with np.errstate(all="ignore"):
        return values.astype(dtype).reshape(shape)


def _integer_sample(dtype: np.dtype[Any], shape: tuple[int, ...], count: int, rng: np.random.Generator) -> np.ndarray:
    info: np.iinfo[Any] | ml_dtypes.iinfo = ml_dtypes.iinfo(dtype) if dtype.kind not in "iu" else np.iinfo(dtype)
    specials = [info.min, info.max, 0, 1 if info.max >= 1 else 0]
    wide = np.int64 if info.max < 2**63 else np.uint64
    values = rng.integers(int(info.min), int(info.max), size=count, endpoint=True, dtype=wide).astype(object)
    values[: min(count, len(specials))] = specials[: min(count, len(specials))]
    return np.array([int(v) for v in values], dtype=wide).astype(dtype).reshape(shape)


def first_differing_index(actual: np.ndarray, expected: np.ndarray) -> tuple[int, ...] | None:
    """Index of the first element whose bytes differ (None when the bytes are identical); same dtype and shape."""
    a = np.ascontiguousarray(actual).reshape(-1).view(np.uint8)
    e = np.ascontiguousarray(expected).reshape(-1).view(np.uint8)
    if np.array_equal(a, e):
        return None
    flat = int(np.argmax(a != e)) // expected.dtype.itemsize
    return tuple(int(i) for i in np.unravel_index(flat, expected.shape)) if expected.shape else ()


def bit_mismatch(actual: Any, expected: Any) -> str | None:
    """None when `actual` has `expected`'s dtype, shape and bytes; else what differs, the first differing element
    first (its index, both values and bit patterns), then how many values differ and by how much."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    if actual.dtype != expected.dtype or actual.shape != expected.shape:
        return str(compare(actual, expected, EXACT))
    index = first_differing_index(actual, expected)
    if index is None:
        return None
    first = (f"element {list(index)} is {actual[index]!r} instead of {expected[index]!r}"
             f"{_bit_patterns(actual, expected, index)}")
    values = compare(actual, expected, EXACT)
    if values is None:
        return f"{first}: equal values, other bits (a NaN payload, or bits the type leaves unused)"
    first_value = values.first_mismatch_index
    where = "" if first_value == index else f", the first at index {list(first_value or ())}"
    return (f"{first}; {values.num_mismatches} of {values.num_elements} values differ{where} "
            f"({values.dtype}): max abs err {values.max_abs_err:.6g}, max rel err {values.max_rel_err:.6g}")


def _bit_patterns(actual: np.ndarray, expected: np.ndarray, index: tuple[int, ...]) -> str:
    bits = {8: np.uint64, 4: np.uint32, 2: np.uint16, 1: np.uint8}.get(expected.dtype.itemsize)
    if bits is None:  # complex128: two float64 parts, each shown by its value
        return ""
    as_bits = [np.require(array, requirements="C").view(bits)[index] for array in (actual, expected)]
    return f" (bits 0x{as_bits[0]:x} instead of 0x{as_bits[1]:x})"


def assert_bit_exact(actual: Any, expected: Any, what: str) -> None:
    """Same dtype, shape and bytes; `what` names the PJRT functions involved. The defect catalogue recognises a
    wrong element by the words "should be bit-exact, but element" (pjrt_cts/judgment/defects/catalogue.toml)."""
    __tracebackhide__ = True
    mismatch = bit_mismatch(actual, expected)
    assert mismatch is None, f"{what} should be bit-exact, but {mismatch}"


def assert_same(actual: Any, expected: Any, what: str) -> None:
    """Equal values (NaN equal to NaN, signed zeros differ); `what` names the PJRT functions involved."""
    __tracebackhide__ = True
    mismatch = compare(np.asarray(actual), np.asarray(expected), EXACT)
    assert mismatch is None, f"{what}: {mismatch}"
