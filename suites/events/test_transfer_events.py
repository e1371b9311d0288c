"""done_with_host_buffer events of PJRT_Client_BufferFromHostBuffer, observed through OnReady/IsReady/Await.

Contract: the event says when the caller may free or mutate the host data. For copying semantics that is
after the copy; for zero-copy semantics, when the buffer aliases the host memory, not before the buffer
is gone. OnReady fires exactly once either way.
"""
from __future__ import annotations

import numpy as np
import pytest

from pjrt_cts.runtime import HostBufferSemantics
from pjrt_cts.runtime import PjrtError
from pjrt_cts.testing import assert_same

ALIGNMENT = 256  # XLA CPU plugins alias host memory only when it is 64-byte aligned


def _aligned_values(count: int) -> tuple[np.ndarray, np.ndarray]:
    backing = np.zeros(count * 4 + ALIGNMENT, np.uint8)
    offset = (-backing.ctypes.data) % ALIGNMENT
    host = backing[offset: offset + count * 4].view(np.float32)
    host[:] = np.arange(count, dtype=np.float32)
    return host, backing


@pytest.mark.parametrize("semantics", ["IMMUTABLE_ONLY_DURING_CALL", "IMMUTABLE_UNTIL_TRANSFER_COMPLETES"])
def test_done_with_host_buffer_of_copy_fires_once_and_frees_host_data(client, device, recorder, semantics) -> None:
    host, _backing = _aligned_values(64)
    expected = host.copy()
    buffer, done = client.buffer_from_host_async(host, device, semantics=HostBufferSemantics[semantics])
    assert done is not None, (
        f"PJRT_Client_BufferFromHostBuffer ({semantics}) should return a done_with_host_buffer event, but returned NULL")
    done.on_ready(recorder)
    try:
        done.wait()
    except PjrtError as error:
        raise AssertionError(f"done_with_host_buffer ({semantics}): PJRT_Event_Await returned {error.code}: {error.message}") from None
    assert recorder.wait_for(1) == 1 and recorder.calls[0] == ("OK", ""), (
        f"done_with_host_buffer ({semantics}): OnReady callback calls {recorder.calls}, expected one OK call"
    )
    host[:] = -1.0  # the event said the host data is free to change
    assert_same(buffer.to_numpy(), expected,
                f"buffer from {semantics} changed when the host data was overwritten after done_with_host_buffer")
    done.close()


@pytest.mark.parametrize("semantics", ["IMMUTABLE_ZERO_COPY", "MUTABLE_ZERO_COPY"])
def test_done_with_host_buffer_of_zero_copy_waits_for_the_buffer(client, device, recorder, semantics) -> None:
    host, _backing = _aligned_values(64)
    buffer, done = client.buffer_from_host_async(host, device, semantics=HostBufferSemantics[semantics])
    assert done is not None, (
        f"PJRT_Client_BufferFromHostBuffer ({semantics}) should return a done_with_host_buffer event, but returned NULL")
    aliases = buffer.is_on_cpu and buffer.unsafe_pointer == host.ctypes.data
    done.on_ready(recorder)
    if aliases:
        assert not done.is_ready(), (
            f"{semantics}: done_with_host_buffer is ready while the buffer still uses the host memory at 0x{host.ctypes.data:x}"
        )
        assert recorder.wait_for(1, timeout=0.1) == 0, f"{semantics}: OnReady fired while the buffer still aliases the host memory"
        buffer.close()
    assert recorder.wait_for(1) == 1, (
        f"{semantics}: done_with_host_buffer OnReady callback ran {recorder.count} times "
        f"({'after the aliasing buffer was destroyed' if aliases else 'after a copy'}), expected exactly once"
    )
    assert recorder.calls[0] == ("OK", ""), f"{semantics}: done_with_host_buffer carried error {recorder.calls[0]}"
    assert done.is_ready(), f"{semantics}: PJRT_Event_IsReady false after its OnReady callback ran"
    done.close()
