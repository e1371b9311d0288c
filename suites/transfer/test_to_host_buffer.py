"""PJRT_Buffer_ToHostBuffer: the dst=NULL size query, too-small destinations, the completion event."""
from __future__ import annotations

import ctypes
from typing import Any, Callable

import numpy as np
import pytest

from pjrt_cts.testing import assert_bit_exact, expect_rejection, sample_array

# Destination sizes short of the required size, as functions of it.
TOO_SMALL = [pytest.param(f, id=name) for name, f in
             [("needed_minus_1", lambda n: n - 1), ("half", lambda n: n // 2), ("one_byte", lambda n: 1), ("zero", lambda n: 0)]]
SIZE_DTYPES = [pytest.param(np.dtype(t), id=n) for t, n in [(np.float32, "f32"), (np.int8, "s8"), (np.complex128, "c128")]]


@pytest.mark.parametrize("dtype", SIZE_DTYPES)
def test_size_query_reports_dense_size(client: Any, dtype: np.dtype) -> None:
    data = sample_array(dtype, (5, 6))
    size = client.buffer_from_numpy(data).host_size()
    assert size == data.nbytes, f"PJRT_Buffer_ToHostBuffer(dst=NULL) of {dtype.name}[5,6] should report {data.nbytes} bytes, but reported {size}"


@pytest.mark.parametrize("shortfall", TOO_SMALL)
def test_too_small_destination_is_invalid_argument(client: Any, shortfall: Callable[[int], int]) -> None:
    data = sample_array(np.float32, (4, 4))
    buffer = client.buffer_from_numpy(data)
    size = shortfall(data.nbytes)
    destination = ctypes.create_string_buffer(max(1, size))

    enough = ctypes.create_string_buffer(data.nbytes)

    def copy(destination: Any, size: int) -> None:
        event = buffer.to_host_into(ctypes.addressof(destination), size)
        event.wait()
        event.close()

    expect_rejection(lambda: copy(destination, size), control=lambda: copy(enough, data.nbytes),
                     function="PJRT_Buffer_ToHostBuffer", what=f"dst_size={size} for a {data.nbytes}-byte f32[4,4] buffer")


def test_larger_destination_receives_the_data(client: Any) -> None:
    data = sample_array(np.float32, (4, 4))
    buffer = client.buffer_from_numpy(data)
    out = np.full(data.size + 8, -3.0, np.float32)
    event = buffer.to_host_into(out.ctypes.data, out.nbytes)
    event.wait()
    event.close()
    assert_bit_exact(out[: data.size].reshape(data.shape), data, f"PJRT_Buffer_ToHostBuffer(dst_size={out.nbytes}) of f32[4,4]")


def test_completion_event_becomes_ready(client: Any) -> None:
    data = sample_array(np.float32, (64, 64))
    buffer = client.buffer_from_numpy(data)
    out = np.empty_like(data)
    event = buffer.to_host_into(out.ctypes.data, out.nbytes)
    event.wait()
    assert event.is_ready(), "PJRT_Event_IsReady of a ToHostBuffer event should be true after PJRT_Event_Await"
    error = event.error()
    assert error is None, f"PJRT_Event_Error of a completed ToHostBuffer event should be OK, but is {error.code}: {error.message}"
    event.close()


def test_concurrent_reads_of_one_buffer(client: Any) -> None:
    data = sample_array(np.int64, (32, 32))
    buffer = client.buffer_from_numpy(data)
    outs = [np.empty_like(data) for _ in range(3)]
    events = [buffer.to_host_into(out.ctypes.data, out.nbytes) for out in outs]
    for event in events:
        event.wait()
        event.close()
    for i, out in enumerate(outs):
        assert_bit_exact(out, data, f"PJRT_Buffer_ToHostBuffer #{i} of three in flight at once")
