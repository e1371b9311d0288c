"""PJRT_HostBufferSemantics: when the caller may reuse the host array, and the done_with_host_buffer event."""
from __future__ import annotations

import threading
from typing import Any

import numpy as np
import pytest

from pjrt_cts.runtime import HostBufferSemantics
from pjrt_cts.testing import assert_bit_exact, sample_array, unsupported_if_unimplemented

SEMANTICS = [pytest.param(s, id=s.name.lower()) for s in HostBufferSemantics]
COPYING = [pytest.param(s, id=s.name.lower()) for s in
           (HostBufferSemantics.IMMUTABLE_ONLY_DURING_CALL, HostBufferSemantics.IMMUTABLE_UNTIL_TRANSFER_COMPLETES)]
ZERO_COPY = [pytest.param(s, id=s.name.lower()) for s in
             (HostBufferSemantics.IMMUTABLE_ZERO_COPY, HostBufferSemantics.MUTABLE_ZERO_COPY)]
EVENT_TIMEOUT_S = 30.0
MUTABLE_ZERO_COPY_SINCE = 48


def _upload(client: Any, data: np.ndarray, semantics: HostBufferSemantics) -> tuple[Any, Any]:
    """BufferFromHostBuffer with `semantics`: NOT_SUPPORTED if UNIMPLEMENTED, or if it fails while the plugin's API
    predates kMutableZeroCopy (0.48); a plugin that accepts it anyway is tested."""
    plugin = client.plugin
    declared = None
    if semantics == HostBufferSemantics.MUTABLE_ZERO_COPY and plugin.api_version[1] < MUTABLE_ZERO_COPY_SINCE:
        declared = f"kMutableZeroCopy was added in API 0.{MUTABLE_ZERO_COPY_SINCE}; the plugin reports {plugin.version_string}"
    with unsupported_if_unimplemented("PJRT_Client_BufferFromHostBuffer", declared_unsupported=declared):
        return client.buffer_from_host_async(data, semantics=semantics)


def _fresh() -> np.ndarray:
    # 64-byte aligned storage so that zero-copy plugins can actually alias it.
    raw = np.empty(256 * 4 + 64, np.uint8)
    start = (-raw.ctypes.data) % 64
    data = raw[start:start + 256 * 4].view(np.float32).reshape(16, 16)
    data[...] = sample_array(np.float32, (16, 16), seed=5)
    return data


@pytest.mark.parametrize("semantics", SEMANTICS)
def test_semantics_round_trip(client: Any, semantics: HostBufferSemantics) -> None:
    data = _fresh()
    expected = data.copy()
    buffer, done = _upload(client, data, semantics)
    assert_bit_exact(buffer.to_numpy(), expected, f"PJRT_Client_BufferFromHostBuffer({semantics.name}) -> PJRT_Buffer_ToHostBuffer")
    buffer.close()  # zero-copy: done_with_host_buffer may fire only once the buffer is gone
    if done is not None:
        done.wait()
        done.close()


@pytest.mark.parametrize("semantics", SEMANTICS)
def test_done_with_host_buffer_event_completes(client: Any, semantics: HostBufferSemantics) -> None:
    data = _fresh()
    buffer, done = _upload(client, data, semantics)
    assert done is not None, (
        f"PJRT_Client_BufferFromHostBuffer({semantics.name}) should return a done_with_host_buffer event, but returned NULL"
    )
    if semantics in (HostBufferSemantics.IMMUTABLE_ZERO_COPY, HostBufferSemantics.MUTABLE_ZERO_COPY) and not done.is_ready():
        buffer.close()  # an aliasing plugin releases the host memory once the buffer is gone
    done.wait()  # raises PjrtError naming the event if it completed with an error
    assert done.is_ready(), "PJRT_Event_IsReady should be true after PJRT_Event_Await returned"
    done.close()


@pytest.mark.parametrize("semantics", COPYING)
def test_mutating_host_after_done_event_keeps_buffer(client: Any, semantics: HostBufferSemantics) -> None:
    data = _fresh()
    expected = data.copy()
    buffer, done = _upload(client, data, semantics)
    if done is not None:
        done.wait()
        done.close()
    data[...] = -7.0
    assert_bit_exact(buffer.to_numpy(), expected,
              f"PJRT_Buffer_ToHostBuffer after the host array changed once done_with_host_buffer fired ({semantics.name})")


def test_immutable_only_during_call_copies_before_returning(client: Any) -> None:
    data = _fresh()
    expected = data.copy()
    buffer, done = _upload(client, data, HostBufferSemantics.IMMUTABLE_ONLY_DURING_CALL)
    data[...] = -7.0  # allowed as soon as the call returned, before any event
    if done is not None:
        done.wait()
        done.close()
    assert_bit_exact(buffer.to_numpy(), expected,
              "PJRT_Buffer_ToHostBuffer after the host array changed right after BufferFromHostBuffer(kImmutableOnlyDuringCall) returned")


@pytest.mark.parametrize("semantics", ZERO_COPY)
def test_zero_copy_done_event_honoured(client: Any, semantics: HostBufferSemantics) -> None:
    """A ready done event means the plugin no longer reads the host array; otherwise it fires once the buffer is gone."""
    data = _fresh()
    expected = data.copy()
    buffer, done = _upload(client, data, semantics)
    assert done is not None, (
        f"PJRT_Client_BufferFromHostBuffer({semantics.name}) should return a done_with_host_buffer event, but returned NULL")
    if done.is_ready():
        done.wait()
        data[...] = -7.0
        assert_bit_exact(buffer.to_numpy(), expected,
                  f"PJRT_Buffer_ToHostBuffer after the host array changed once done_with_host_buffer was ready ({semantics.name})")
        done.close()
        return
    fired = threading.Event()
    done.on_ready(lambda error: fired.set())
    buffer.close()
    assert fired.wait(EVENT_TIMEOUT_S), (
        f"done_with_host_buffer of BufferFromHostBuffer({semantics.name}) should fire once PJRT_Buffer_Destroy released "
        f"the aliased host array, but was not ready after {EVENT_TIMEOUT_S:g}s"
    )
    done.close()
