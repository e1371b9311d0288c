"""PJRT_Buffer_Delete / IsDeleted, and using a deleted buffer: an error, never a crash.

Delete frees the device memory but keeps the handle valid (only Destroy frees it), so these
calls are safe to make in-process.
"""
from __future__ import annotations

import ctypes
from typing import Any, Callable

import numpy as np
import pytest

from pjrt_cts.runtime import PjrtError
from pjrt_cts.testing import assert_bit_exact, requires, sample_array


def _to_host(buffer: Any) -> None:
    out = ctypes.create_string_buffer(64)
    event = buffer.to_host_into(ctypes.addressof(out), 64)
    event.wait()
    event.close()


def _ready_event(buffer: Any) -> None:
    event = buffer.ready_event()
    try:
        event.wait()
    finally:
        event.close()


def _copy_to_device(buffer: Any) -> None:
    buffer.copy_to_device(buffer.client.addressable_devices[-1]).to_numpy()


def _copy_to_memory(buffer: Any) -> None:
    buffer.copy_to_memory(buffer.client.addressable_devices[0].default_memory).to_numpy()


def _copy_raw_to_host(buffer: Any) -> None:
    buffer.copy_raw_to_host(0, 16)


# (use, the PJRT function it exercises); uses of slots beyond the base ones require them
USES = [
    pytest.param(_to_host, "PJRT_Buffer_ToHostBuffer", id="to_host_buffer"),
    pytest.param(_ready_event, "PJRT_Buffer_ReadyEvent + PJRT_Event_Await", id="ready_event"),
    pytest.param(_copy_to_device, "PJRT_Buffer_CopyToDevice", id="copy_to_device"),
    pytest.param(_copy_to_memory, "PJRT_Buffer_CopyToMemory", id="copy_to_memory", marks=requires("Buffer_CopyToMemory")),
    pytest.param(_copy_raw_to_host, "PJRT_Buffer_CopyRawToHost", id="copy_raw_to_host",
                 marks=requires("Buffer_CopyRawToHost")),
]


def test_live_buffer_is_not_deleted(client: Any) -> None:
    buffer = client.buffer_from_numpy(sample_array(np.float32, (16,)))
    assert not buffer.is_deleted, "PJRT_Buffer_IsDeleted of a new buffer should be false, but is true"


def test_delete_marks_buffer_deleted(client: Any) -> None:
    buffer = client.buffer_from_numpy(sample_array(np.float32, (16,)))
    buffer.delete()
    assert buffer.is_deleted, "PJRT_Buffer_IsDeleted after PJRT_Buffer_Delete should be true, but is false"


def test_destroy_after_delete(client: Any) -> None:
    buffer = client.buffer_from_numpy(sample_array(np.float32, (16,)))
    buffer.delete()
    buffer.close()  # PJRT_Buffer_Destroy of a deleted buffer; a PjrtError here fails the test
    assert buffer.closed


def test_delete_leaves_copies_alive(client: Any) -> None:
    data = sample_array(np.float32, (16,))
    buffer = client.buffer_from_numpy(data)
    copy = buffer.copy_to_device(client.addressable_devices[-1])
    buffer.delete()
    assert not copy.is_deleted, "PJRT_Buffer_Delete of a source should not delete its CopyToDevice copy, but IsDeleted is true"
    assert_bit_exact(copy.to_numpy(), data, "PJRT_Buffer_ToHostBuffer of a copy after PJRT_Buffer_Delete of its source")


@pytest.mark.parametrize(("use", "function"), USES)
def test_use_after_delete_is_an_error(client: Any, use: Callable[[Any], None],
                                      function: str) -> None:
    use(client.buffer_from_numpy(sample_array(np.float32, (16,))))  # the control: the same use of a live buffer works
    buffer = client.buffer_from_numpy(sample_array(np.float32, (16,)))
    buffer.delete()
    try:
        use(buffer)
    except PjrtError:
        return  # returned directly or through the event: either is the contract
    raise AssertionError(f"{function} on a deleted buffer should fail (directly or through its event), but succeeded")
