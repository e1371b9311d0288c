"""DLPack export primitives: IncreaseExternalReferenceCount + OpaqueDeviceMemoryDataPointer + UnsafePointer.

Contract: while the external reference count is > 0 the buffer's memory is neither freed nor moved and the
pointer reads the buffer's bytes; decreasing below zero is INVALID_ARGUMENT.
"""
from __future__ import annotations

import numpy as np
import pytest

from pjrt_cts import dlpack
from pjrt_cts.testing import assert_same, expect_rejection, requires, unsupported_if_unimplemented

DECREASE = "PJRT_Buffer_DecreaseExternalReferenceCount"
pytestmark = requires("Buffer_IncreaseExternalReferenceCount", "Buffer_DecreaseExternalReferenceCount",
                      "Buffer_OpaqueDeviceMemoryDataPointer")


def _balanced_pair(buffer):
    """The control of a rejected decrease: an increase followed by a decrease succeeds."""
    return lambda: (buffer.increase_external_reference_count(), buffer.decrease_external_reference_count())


VALUES = {
    "f32": np.arange(12, dtype=np.float32).reshape(3, 4) - 5.5,
    "s32": np.arange(-6, 6, dtype=np.int32).reshape(2, 6),
    "u8": np.arange(250, 256, dtype=np.uint8),
    "f64": np.linspace(-1, 1, 8, dtype=np.float64).reshape(2, 2, 2),
    "pred": np.array([True, False, True, True]),
}


# _filled: a reader of the raw device pointer must wait for the buffer's ready event first; the host-to-device
# copy that fills it may still be in flight (seen on CUDA: zeros read right after BufferFromHostBuffer).


@pytest.fixture
def exported(client, device):
    """(buffer, pointer, values): an f32 buffer with one external reference, released afterwards if still live."""
    values = VALUES["f32"]
    buffer = client.buffer_from_numpy(values, device).block_until_ready()  # see _filled
    buffer.increase_external_reference_count()
    pointer = buffer.opaque_device_memory_pointer
    yield buffer, pointer, values
    if not buffer.closed and not buffer.is_deleted:
        buffer.decrease_external_reference_count()


@pytest.mark.parametrize("dtype", sorted(VALUES))
def test_exported_pointer_reads_buffer_bytes(client, device, helpers, dtype) -> None:
    values = VALUES[dtype]
    buffer = client.buffer_from_numpy(values, device).block_until_ready()  # see _filled
    buffer.increase_external_reference_count()
    try:
        pointer = buffer.opaque_device_memory_pointer
        assert pointer, "PJRT_Buffer_OpaqueDeviceMemoryDataPointer returned NULL for a live, referenced buffer"
        seen = helpers.read_exported(buffer, pointer)
        assert_same(
            seen, values, f"memory at PJRT_Buffer_OpaqueDeviceMemoryDataPointer 0x{pointer:x} does not hold the buffer's {dtype} values"
        )
    finally:
        buffer.decrease_external_reference_count()


@requires("Buffer_UnsafePointer")
def test_unsafe_pointer_of_referenced_buffer_reads_buffer_bytes(client, device, helpers, exported) -> None:
    buffer, pointer, values = exported
    with unsupported_if_unimplemented("PJRT_Buffer_UnsafePointer"):
        unsafe = buffer.unsafe_pointer
    assert unsafe, "PJRT_Buffer_UnsafePointer returned 0 for a live buffer"
    if buffer.is_on_cpu:  # platform-dependent meaning off the host; on host memory it is the data address
        assert_same(helpers.read_host_memory(unsafe, buffer.dims, buffer.dtype), values,
                                      f"memory at PJRT_Buffer_UnsafePointer 0x{unsafe:x} does not hold the buffer's values")


def test_exported_pointer_stays_valid_while_referenced(client, device, helpers, exported) -> None:
    buffer, pointer, values = exported
    churn = [client.buffer_from_numpy(np.full(values.shape, -7, values.dtype), device) for _ in range(32)]
    for scratch in churn:
        scratch.close()
    again = buffer.opaque_device_memory_pointer
    assert again == pointer, (
        f"PJRT_Buffer_OpaqueDeviceMemoryDataPointer moved from 0x{pointer:x} to 0x{again:x} while externally referenced"
    )
    assert_same(helpers.read_exported(buffer, pointer), values,
                                  "externally referenced memory changed after other buffers were allocated and freed")
    assert_same(buffer.to_numpy(), values, "PJRT_Buffer_ToHostBuffer of an externally referenced buffer")


def test_reference_count_balances_and_then_rejects_decrease(client, device) -> None:
    buffer = client.buffer_from_numpy(VALUES["f32"], device)
    for _ in range(3):
        buffer.increase_external_reference_count()
    for index in range(3):
        try:
            buffer.decrease_external_reference_count()
        except Exception as error:  # noqa: BLE001 - reported as the assertion
            raise AssertionError(f"PJRT_Buffer_DecreaseExternalReferenceCount #{index + 1} after 3 increases failed: {error}") from None
    expect_rejection(buffer.decrease_external_reference_count, control=_balanced_pair(buffer), function=DECREASE,
                     what="a decrease below zero (3 increases, 4th decrease)")


def test_decrease_without_reference_is_invalid_argument(client, device) -> None:
    buffer = client.buffer_from_numpy(VALUES["f32"], device)
    expect_rejection(buffer.decrease_external_reference_count, control=_balanced_pair(buffer), function=DECREASE,
                     what="a decrease on a buffer never referenced")
    assert_same(buffer.to_numpy(), VALUES["f32"], "buffer changed by a rejected decrease")


@pytest.mark.isolated
def test_buffer_delete_while_referenced_keeps_memory(client, device, helpers, exported) -> None:
    buffer, pointer, values = exported
    buffer.delete()
    churn = [client.buffer_from_numpy(np.full(values.shape, -7, values.dtype), device) for _ in range(32)]
    assert_same(
        helpers.read_exported(buffer, pointer), values,
        "PJRT_Buffer_Delete freed memory that an external reference (IncreaseExternalReferenceCount) still holds",
    )
    del churn


@pytest.mark.isolated
def test_buffer_destroy_while_referenced_keeps_memory(client, device, helpers) -> None:
    values = np.arange(1024, dtype=np.float32)
    buffer = client.buffer_from_numpy(values, device).block_until_ready()  # see _filled
    buffer.increase_external_reference_count()
    pointer = buffer.opaque_device_memory_pointer
    on_host, dims, dtype = buffer.is_on_cpu, buffer.dims, buffer.dtype
    dl_device = None if on_host else dlpack.dl_device_of(buffer)  # decided while the handle is still valid
    buffer.close()  # PJRT_Buffer_Destroy with the external reference still held (never released: the handle is gone)
    churn = [client.buffer_from_numpy(np.full(1024, -7.0, np.float32), device) for _ in range(32)]
    if dl_device is None:  # on host
        seen = helpers.read_host_memory(pointer, dims, dtype)
    else:
        seen = helpers.consume_with_framework(dlpack.PointerExporter(pointer, dims, dtype, dl_device))
    reused = [b for b in churn if b.is_on_cpu and b.unsafe_pointer == pointer]
    assert_same(
        seen, values,
        (
            "PJRT_Buffer_Destroy freed memory still held through PJRT_Buffer_IncreaseExternalReferenceCount"
            + (f" (a new buffer now lives at 0x{pointer:x})" if reused else "")
        ),
    )
