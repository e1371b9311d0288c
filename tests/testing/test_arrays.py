"""pjrt_cts.testing.arrays: deterministic samples of every element type, and the two exact comparisons."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from pjrt_cts.runtime.dtypes import BUFFER_TYPE_TO_DTYPE
from pjrt_cts.testing.arrays import assert_bit_exact, assert_same, bit_mismatch, first_differing_index, sample_array

DTYPES = [pytest.param(dtype, id=str(dtype)) for dtype in BUFFER_TYPE_TO_DTYPE.values()]


@pytest.mark.parametrize("dtype", DTYPES)
def test_samples_are_deterministic_and_of_the_asked_type(dtype: np.dtype) -> None:
    first, again = sample_array(dtype, (4, 8), seed=3), sample_array(dtype, (4, 8), seed=3)
    assert first.dtype == dtype and first.shape == (4, 8)
    assert first.tobytes() == again.tobytes()
    assert sample_array(dtype, (), seed=1).shape == ()


def test_samples_hold_the_extremes_of_the_type() -> None:
    floats = sample_array(np.float32, (12,))
    assert np.isnan(floats).any() and np.isinf(floats).any() and np.signbit(floats[1]) and floats[1] == 0
    narrow = sample_array(ml_dtypes.int4, (8,))
    assert int(narrow[0]) == -8 and int(narrow[1]) == 7


def test_first_differing_index_is_by_bytes() -> None:
    expected = np.arange(12, dtype=np.float32).reshape(3, 4)
    actual = expected.copy()
    assert first_differing_index(actual, expected) is None
    actual[2, 1] = -1
    actual[2, 3] = -1
    assert first_differing_index(actual, expected) == (2, 1)
    assert first_differing_index(np.array(-0.0, np.float32), np.array(0.0, np.float32)) == ()


def test_bit_exact_failure_names_the_functions_index_and_errors() -> None:
    expected = np.arange(6, dtype=np.float32).reshape(2, 3)
    actual = expected.copy()
    actual[1, 0] = 5.5
    wanted = (r"^PJRT_Buffer_ToHostBuffer should be bit-exact, but element \[1, 0\] is np\.float32\(5\.5\) instead of "
              r"np\.float32\(3\.0\) \(bits 0x40b00000 instead of 0x40400000\); 1 of 6 values differ \(f32\): max abs "
              r"err 2\.5, max rel err 0\.833333$")
    with pytest.raises(AssertionError, match=wanted):
        assert_bit_exact(actual, expected, "PJRT_Buffer_ToHostBuffer")
    assert_bit_exact(expected.copy(), expected, "PJRT_Buffer_ToHostBuffer")


def test_bit_exact_tells_nan_payloads_and_signed_zeros_apart() -> None:
    expected = np.array([0.0, np.nan], np.float32)
    payload = expected.copy()
    payload.view(np.uint32)[1] += 1
    assert "equal values, other bits" in (bit_mismatch(payload, expected) or "")
    assert_same(payload, expected, "a NaN is a NaN for a computed value")
    negative_zero = np.array([-0.0, np.nan], np.float32)
    assert (bit_mismatch(negative_zero, expected) or "").startswith("element [0] is np.float32(-0.0) instead of")
    with pytest.raises(AssertionError, match="signed zero|first mismatch at index"):
        assert_same(negative_zero, expected, "computed")


def test_bit_exact_reports_the_first_byte_difference_before_a_value_difference() -> None:
    expected = np.array([np.nan, 1.0], np.float32)
    actual = expected.copy()
    actual.view(np.uint32)[0] += 1
    actual[1] = 2.0
    message = bit_mismatch(actual, expected) or ""
    assert message.startswith("element [0] is np.float32(nan)")
    assert "1 of 2 values differ, the first at index [1]" in message


def test_bit_exact_fails_another_dtype_or_shape() -> None:
    data = np.arange(4, dtype=np.int32)
    assert "dtype mismatch: actual s64, expected s32" in (bit_mismatch(data.astype(np.int64), data) or "")
    assert "shape mismatch: actual [2, 2], expected [4]" in (bit_mismatch(data.reshape(2, 2), data) or "")


def test_bit_exact_works_on_views_and_narrow_types() -> None:
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert bit_mismatch(data.T, np.ascontiguousarray(data.T)) is None
    narrow = sample_array(ml_dtypes.float8_e4m3fn, (5,))
    changed = narrow.copy()
    changed[4] = 1
    assert (bit_mismatch(changed, narrow) or "").startswith("element [4] is 1 instead of")


def test_assert_same_names_the_mismatch() -> None:
    assert_same(np.array([1.0, np.nan], np.float32), np.array([1.0, np.nan], np.float32), "same")
    with pytest.raises(AssertionError, match="readback: "):
        assert_same(np.array([1.0, 2.0], np.float32), np.array([1.0, 2.5], np.float32), "readback")
