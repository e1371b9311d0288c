"""PJRT_Buffer_CopyRawToHostFuture (0.84+): a raw copy whose destination is handed over later.

Contract (pjrt_c_api.h; the C++ PjRtBuffer::CopyRawToHostFuture it wraps): the call returns an event, callback
data and a `future_ready_callback`; the copy does not happen until the caller invokes the callback with the
destination (`dst`), then writes `transfer_size` raw bytes from `offset` there and completes the event. Invoked
with an error code, the copy is cancelled and the event carries that error. The buffer is kept alive for the copy
even when it is deleted before the destination is given. A range outside the buffer is an error, of the call or of
its event.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pjrt_cts.runtime import ErrorCode, PjrtError
from pjrt_cts.runtime.readback import FIRST_POISON, poison
from pjrt_cts.testing import requires, sample_array, settled_error, unsupported_if_unimplemented
from pjrt_cts.testing.readiness import PENDING_GRACE_S

FUTURE = "PJRT_Buffer_CopyRawToHostFuture"

pytestmark = requires("Buffer_CopyRawToHostFuture", "Buffer_CopyRawToHost")

WINDOWS = [pytest.param(offset, size, id=f"offset{offset}-size{size}") for offset, size in [(0, 64), (8, 16), (60, 4), (4, 56)]]
OUT_OF_RANGE = [pytest.param(offset, size, id=name) for name, offset, size in
                [("past_end", 60, 8), ("negative_offset", -4, 4), ("too_long", 0, 128), ("offset_at_end", 64, 4)]]


@pytest.fixture
def source(client: Any) -> Any:
    """A dense f32[16] buffer (64 bytes)."""
    return client.buffer_from_numpy(sample_array(np.float32, (16,), seed=41))


def request(buffer: Any, offset: int, size: int) -> Any:
    with unsupported_if_unimplemented(FUTURE):
        return buffer.copy_raw_to_host_future(offset, size)


def completed(future: Any, what: str) -> Any:
    """The PjrtError the future's event completed with (None: OK)."""
    __tracebackhide__ = True
    assert future.event is not None, f"{FUTURE} returned no event ({what})"
    return settled_error(future.event, f"the event of {FUTURE} {what}")


@pytest.mark.parametrize(("offset", "size"), WINDOWS)
def test_copy_waits_for_its_destination_then_matches_copy_raw_to_host(source: Any, offset: int, size: int) -> None:
    expected = source.copy_raw_to_host(offset, size)
    future = request(source, offset, size)
    assert future.event is not None, f"{FUTURE}(offset={offset}, size={size}) returned no event"
    assert not future.event.ready_within(PENDING_GRACE_S), (
        f"the event of {FUTURE}(offset={offset}, size={size}) is ready before future_ready_callback gave a destination")
    destination = np.full(size, FIRST_POISON, np.uint8)
    future.fulfil(destination.ctypes.data)
    error = completed(future, f"(offset={offset}, size={size}) after its destination was given")
    assert error is None, f"{FUTURE}(offset={offset}, size={size}) failed with {error.code}: {error.message}"
    assert destination.tobytes() == expected, (
        f"{FUTURE}(offset={offset}, size={size}) wrote {destination.tobytes().hex()}, but PJRT_Buffer_CopyRawToHost "
        f"of the same window gives {expected.hex()}")


def test_destination_error_cancels_the_copy(source: Any) -> None:
    future = request(source, 0, 64)
    destination = np.empty(64, np.uint8)
    poison(destination.ctypes.data, 64)
    message = "pjrt-cts: the host gave up on this copy"
    future.cancel(ErrorCode.CANCELLED, message)
    error = completed(future, "whose future_ready_callback got an error")
    assert error is not None and error.code == "CANCELLED" and message in error.message, (
        f"the event of {FUTURE} whose future_ready_callback got CANCELLED: {message!r} should carry that error, but "
        + ("completed OK" if error is None else f"carries {error.code}: {error.message!r}"))
    assert (destination == FIRST_POISON).all(), f"{FUTURE} wrote to host memory after its copy was cancelled"


def test_copy_outlives_deletion_of_its_buffer(client: Any) -> None:
    """The C++ contract: the buffer is kept alive until the destination is given, even if it is deleted first."""
    data = sample_array(np.float32, (16,), seed=42)
    buffer = client.buffer_from_numpy(data)
    future = request(buffer, 0, data.nbytes)
    buffer.delete()
    destination = np.full(data.nbytes, FIRST_POISON, np.uint8)
    future.fulfil(destination.ctypes.data)
    error = completed(future, "of a buffer deleted before the destination was given")
    assert error is None, (
        f"{FUTURE} of a buffer deleted before its destination was given failed with {error.code}: {error.message}; "
        "the copy keeps the buffer alive until it is done")
    assert destination.tobytes() == data.tobytes(), (
        f"{FUTURE} of a buffer deleted before its destination was given wrote {destination.tobytes().hex()}, "
        f"not the buffer's bytes {data.tobytes().hex()}")


@pytest.mark.parametrize(("offset", "size"), OUT_OF_RANGE)
def test_range_outside_the_buffer_is_an_error(source: Any, offset: int, size: int) -> None:
    """Rejected by the call, or by its event once the destination is given; the same call in range works."""
    control = request(source, 0, 4)
    control_destination = np.full(4, FIRST_POISON, np.uint8)
    control.fulfil(control_destination.ctypes.data)
    control_error = completed(control, "(offset=0, size=4), the control")
    assert control_error is None, (
        f"the control {FUTURE}(offset=0, size=4) failed too ({control_error.code}: {control_error.message}): "
        "a rejection would show nothing")
    destination = np.full(max(size, 1), FIRST_POISON, np.uint8)
    try:
        future = source.copy_raw_to_host_future(offset, size)
    except PjrtError as error:
        assert error.code in ("INVALID_ARGUMENT", "OUT_OF_RANGE"), (
            f"{FUTURE}(offset={offset}, size={size}) of a 64-byte buffer should fail with INVALID_ARGUMENT or "
            f"OUT_OF_RANGE, but failed with {error.code}: {error.message}")
        return
    future.fulfil(destination.ctypes.data)
    event_error = completed(future, f"(offset={offset}, size={size}) of a 64-byte buffer")
    assert event_error is not None, f"{FUTURE}(offset={offset}, size={size}) of a 64-byte buffer succeeded"
    assert event_error.code in ("INVALID_ARGUMENT", "OUT_OF_RANGE"), (
        f"the event of {FUTURE}(offset={offset}, size={size}) of a 64-byte buffer should carry INVALID_ARGUMENT or "
        f"OUT_OF_RANGE, but carries {event_error.code}: {event_error.message}")
