"""CROSS_HOST_TRANSFERS (pjrt_c_api_cross_host_transfers_extension.h): what a framework's cross-process `device_put`
drives. Within one process the "remote" device is this client's own, so each API is tried as a loop-back transfer:
receive buffers made for the first device, then filled by a send of a source buffer, read back against the source.
A plugin that needs a distributed runtime for any of it answers with a PJRT error (UNIMPLEMENTED: NOT_SUPPORTED;
another code: a finding the plugin's catalogue names). A send to bytes no receiver made must be answered through
on_done, never crash or hang, and leave the source buffer as it was. No level requires the extension."""
from __future__ import annotations

import os
from typing import Any

import numpy as np

from pjrt_cts.runtime.extensions.cross_host_transfers import (COPY, SendOutcome, copy_to_remote_device,
                                                              make_receive_buffers, receive_buffers, send_buffers)
from pjrt_cts.runtime import PjrtError
from pjrt_cts.testing import assert_same, requires, unsupported_if_unimplemented
from pjrt_cts.testing.requirements import unsupported_for_devices

pytestmark = requires(extension="CROSS_HOST_TRANSFERS")
SOURCE = np.arange(8, dtype=np.float32) * 0.5 - 1.0
SHAPE = (SOURCE.shape, SOURCE.dtype)
WAIT_SECONDS = 30.0
RECEIVE, SEND = "CROSS_HOST_TRANSFERS.Client_CrossHostReceiveBuffers", "CROSS_HOST_TRANSFERS.Client_CrossHostSendBuffers"


def _received(buffer: Any, what: str) -> np.ndarray:
    ready = buffer.ready_event()
    assert ready.ready_within(WAIT_SECONDS), f"{what}: the receive buffer was not ready {WAIT_SECONDS:.0f} s after the send"
    error = ready.error()
    assert error is None, f"{what}: the receive buffer's ready event carries an error: {error}"
    return buffer.to_numpy()


def _copy(source: Any, descriptor: bytes) -> SendOutcome:
    """Buffer_CopyToRemoteDevice, waited for on_done; an UNIMPLEMENTED there (call or on_done) is NOT_SUPPORTED."""
    with unsupported_if_unimplemented(COPY):
        sent = copy_to_remote_device(source, descriptor)
        assert sent.done.wait(WAIT_SECONDS), f"{COPY}: on_done was not called within {WAIT_SECONDS:.0f} s"
        if sent.error is not None and sent.error.code == "UNIMPLEMENTED":
            raise sent.error
    return sent


def test_receive_buffers_filled_by_copy_to_remote_device(client: Any, devices: Any) -> None:
    """Client_MakeCrossHostReceiveBuffers for one f32[8] on the first device: one buffer of that shape, its notifier
    hands out one descriptor; Buffer_CopyToRemoteDevice of the source to it fills it (on_done without error)."""
    with unsupported_if_unimplemented("CROSS_HOST_TRANSFERS.Client_MakeCrossHostReceiveBuffers"):
        buffers, notes = make_receive_buffers(client, devices[0], [SHAPE])
    assert len(buffers) == 1, f"Client_MakeCrossHostReceiveBuffers returned {len(buffers)} buffers for 1 shape"
    assert buffers[0].dims == SOURCE.shape and buffers[0].dtype == SOURCE.dtype, (
        f"the receive buffer is {buffers[0].dtype}{list(buffers[0].dims)}, asked f32{list(SOURCE.shape)}")
    assert notes.arrived.wait(WAIT_SECONDS), f"the receive notifier was not called within {WAIT_SECONDS:.0f} s"
    assert notes.error is None, f"the receive notifier reported an error: {notes.error}"
    assert len(notes.descriptors) == 1 and notes.descriptors[0], (
        f"the receive notifier handed out {len(notes.descriptors)} descriptors for 1 buffer: {notes.descriptors!r}")
    source = client.buffer_from_numpy(SOURCE, device=devices[0])
    sent = _copy(source, notes.descriptors[0])
    assert sent.error is None, f"Buffer_CopyToRemoteDevice's on_done reported an error: {sent.error}"
    assert_same(_received(buffers[0], "Buffer_CopyToRemoteDevice"), SOURCE, "a loop-back CopyToRemoteDevice")


def test_keyed_send_fills_the_keyed_receive(client: Any, devices: Any) -> None:
    """Client_CrossHostReceiveBuffers (source: a global device id, a fresh key) then Client_CrossHostSendBuffers of
    the source under that key: the send events complete without error and the receive buffer holds the source. The
    keyed API is between an addressable and a non-addressable device: with none of the latter (one process), both
    calls are still made from and to this process's own device, and a refusal of both (INVALID_ARGUMENT or
    FAILED_PRECONDITION) is NOT_SUPPORTED for too few devices."""
    device, key = devices[0], (os.getpid() << 16) | 1
    remote = [d for d in client.devices if d.id not in {a.id for a in client.addressable_devices}]
    peer = remote[0] if remote else device
    refusals: list[PjrtError] = []
    received: list[Any] = []
    with unsupported_if_unimplemented(RECEIVE, SEND):
        try:
            received = receive_buffers(client, device, [SHAPE], sources=[peer.id], keys=[key])
        except PjrtError as error:
            refusals.append(error)
        source = client.buffer_from_numpy(SOURCE, device=device)
        try:
            events = send_buffers(client, [source], destinations=[peer.id], keys=[key])
        except PjrtError as error:
            refusals.append(error)
    if not remote and len(refusals) == 2 and all(e.code in ("INVALID_ARGUMENT", "FAILED_PRECONDITION") for e in refusals):
        unsupported_for_devices("the keyed cross-host API needs a non-addressable device (a second process) and this "
                                f"client has none: {refusals[0]}; {refusals[1]}")
    if refusals:
        raise refusals[0]
    assert len(received) == 1 and received[0].handle, f"{RECEIVE} returned no buffer"
    assert len(events) == 1, f"{SEND} returned {len(events)} send events for 1 buffer"
    assert events[0].ready_within(WAIT_SECONDS), f"the send event was not ready within {WAIT_SECONDS:.0f} s"
    assert events[0].error() is None, f"the send event carries an error: {events[0].error()}"
    assert_same(_received(received[0], SEND), SOURCE, "a keyed send")


def test_copy_to_a_descriptor_no_receiver_made_is_answered(client: Any, devices: Any) -> None:
    """Buffer_CopyToRemoteDevice to bytes no receiver made: on_done reports an error within the wait (never a crash
    or a hang), and the source buffer still reads back unchanged (control: the buffer the send used is intact)."""
    source = client.buffer_from_numpy(SOURCE, device=devices[0])
    sent = _copy(source, b"pjrt-cts: no receiver made this descriptor")
    assert sent.error is not None, "Buffer_CopyToRemoteDevice to a descriptor no receiver made reported success"
    assert sent.error.message.strip(), "on_done's error for a descriptor no receiver made has no message"
    assert_same(source.to_numpy(), SOURCE, "the source buffer after a refused CopyToRemoteDevice")
