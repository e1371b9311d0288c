"""Memory kinds: BufferFromHostBuffer into a memory, PJRT_Buffer_CopyToMemory between kinds, PJRT_Buffer_Memory."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pjrt_cts.testing import assert_bit_exact, refuse_or_succeed, requires, sample_array

# Memory kinds XLA plugins name (PJRT_Memory_Kind); a device without one makes the case NOT_SUPPORTED.
KINDS = ["device", "pinned_host", "unpinned_host"]
KIND_PARAMS = [pytest.param(k, id=k, marks=requires(memory_kind=k)) for k in KINDS]
KIND_PAIRS = [pytest.param(a, b, id=f"{a}->{b}", marks=requires(memory_kind=(a, b))) for a in KINDS for b in KINDS]


@pytest.mark.parametrize("kind", KIND_PARAMS)
def test_buffer_from_host_into_memory(transfers: Any, kind: str) -> None:
    device = transfers.devices[0]
    memory = transfers.memory_of_kind(device, kind)
    data = sample_array(np.float32, (6, 7))
    buffer = transfers.client.buffer_from_numpy(data, memory=memory)
    where = f"PJRT_Client_BufferFromHostBuffer(memory={kind!r} id {memory.id})"
    assert buffer.memory.handle == memory.handle, (
        f"PJRT_Buffer_Memory after {where} should be that memory, but is {buffer.memory.kind!r} id {buffer.memory.id}"
    )
    assert_bit_exact(buffer.to_numpy(), data, f"{where} -> PJRT_Buffer_ToHostBuffer")


@requires("Buffer_CopyToMemory")
@pytest.mark.parametrize(("source", "destination"), KIND_PAIRS)
def test_copy_to_memory(transfers: Any, source: str, destination: str) -> None:
    device = transfers.devices[0]
    src_memory, dst_memory = transfers.memory_of_kind(device, source), transfers.memory_of_kind(device, destination)
    data = sample_array(np.int32, (5, 9))
    original = transfers.client.buffer_from_numpy(data, memory=src_memory)
    what = f"PJRT_Buffer_CopyToMemory({source!r} -> {destination!r})"

    def check(copy: Any) -> None:
        assert copy.memory.handle == dst_memory.handle, (
            f"{what} should give a buffer in memory id {dst_memory.id}, but PJRT_Buffer_Memory says {copy.memory.kind!r} id {copy.memory.id}"
        )
        assert_bit_exact(copy.to_numpy(), data, f"{what} -> PJRT_Buffer_ToHostBuffer")
        assert_bit_exact(original.to_numpy(), data, f"the source of {what}, read back afterwards")

    # The header allows refusing a copy into the buffer's own memory.
    refuse_or_succeed(lambda: original.copy_to_memory(dst_memory), check=check, function=what,
                      codes=("INVALID_ARGUMENT",) if source == destination else ())


@requires("Buffer_CopyToMemory", devices=2)
@pytest.mark.parametrize("kind", KIND_PARAMS)
def test_copy_to_memory_of_another_device(transfers: Any, kind: str) -> None:
    source, target = transfers.devices[0], transfers.devices[1]
    memory = transfers.memory_of_kind(target, kind)
    data = sample_array(np.float64, (3, 3))
    copy = transfers.client.buffer_from_numpy(data, source).copy_to_memory(memory)
    what = f"PJRT_Buffer_CopyToMemory(device {source.id} 'device' -> device {target.id} {kind!r})"
    assert copy.memory.handle == memory.handle, f"{what} should land in memory id {memory.id}, but is in {copy.memory.id}"
    assert_bit_exact(copy.to_numpy(), data, f"{what} -> PJRT_Buffer_ToHostBuffer")


@pytest.mark.parametrize("kind", KIND_PARAMS)
def test_buffer_in_memory_reports_its_device(transfers: Any, kind: str) -> None:
    device = transfers.devices[0]
    memory = transfers.memory_of_kind(device, kind)
    buffer = transfers.client.buffer_from_numpy(sample_array(np.float32, (2,)), memory=memory)
    owners = {d.handle for d in memory.addressable_by_devices}
    assert buffer.device.handle in owners, (
        f"PJRT_Buffer_Device of a buffer in memory {kind!r} id {memory.id} should be one of the devices that address it "
        f"{[d.id for d in memory.addressable_by_devices]}, but is {buffer.device.id}"
    )


@pytest.mark.parametrize("kind", KIND_PARAMS)
def test_is_on_cpu_by_memory_kind(transfers: Any, kind: str) -> None:
    device = transfers.devices[0]
    memory = transfers.memory_of_kind(device, kind)
    buffer = transfers.client.buffer_from_numpy(sample_array(np.float32, (2,)), memory=memory)
    expected = transfers.client.platform_name == "cpu" or kind in ("pinned_host", "unpinned_host")
    assert buffer.is_on_cpu == expected, (
        f"PJRT_Buffer_IsOnCpu of a buffer in {kind!r} memory of a {transfers.client.platform_name!r} client "
        f"should be {expected}, but is {buffer.is_on_cpu}"
    )
