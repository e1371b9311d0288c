"""CROSS_HOST_TRANSFERS: receive buffers that a remote send fills, and the sends (pjrt_cts.abi.extensions.
cross_host_transfers). Within one process a "remote" device is this client's own: what the suite can drive without a
second host. Every callback the plugin holds is kept alive for the rest of the process (a late call must not land on
freed code)."""
from __future__ import annotations

import ctypes
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Sequence

import numpy as np

from pjrt_cts.abi.enums import ExtensionType
from pjrt_cts.abi.extensions import cross_host_transfers as abi
from pjrt_cts.runtime.buffer import Buffer
from pjrt_cts.runtime.dtypes import buffer_type_of
from pjrt_cts.runtime.errors import PjrtError
from pjrt_cts.runtime.event import Event
from pjrt_cts.runtime.extensions.calls import call, call_void, read_byte_strings

if TYPE_CHECKING:
    from pjrt_cts.runtime.client import Client
    from pjrt_cts.runtime.device import Device

CROSS_HOST = ExtensionType.CROSS_HOST_TRANSFERS
COPY = "CROSS_HOST_TRANSFERS.Buffer_CopyToRemoteDevice"  # also the name of an error its on_done reports
_KEEPALIVE: list[object] = []


@dataclass
class Notifications:
    """What MakeCrossHostReceiveBuffers' notifier was told: an error, or the descriptors a sender needs."""

    arrived: threading.Event = field(default_factory=threading.Event)
    error: PjrtError | None = None
    descriptors: list[bytes] = field(default_factory=list)


@dataclass
class SendOutcome:
    """Buffer_CopyToRemoteDevice's on_done: `error` (None on success; a copy of the error the plugin passed and
    destroys itself) and whether the sends were enqueued."""

    done: threading.Event = field(default_factory=threading.Event)
    error: PjrtError | None = None
    sends_were_enqueued: bool = False


class _Shapes:
    """The parallel arrays of a receive call for `shapes` ((dims, dtype) pairs), kept alive with this object."""

    def __init__(self, shapes: Sequence[tuple[Sequence[int], np.dtype]]) -> None:
        n = len(shapes)
        self.dims = [(ctypes.c_int64 * max(1, len(d)))(*d) for d, _ in shapes]
        self.num_dims = (ctypes.c_size_t * n)(*(len(d) for d, _ in shapes))
        self.dim_pointers = (ctypes.c_void_p * n)(*(ctypes.addressof(d) for d in self.dims))
        self.types = (ctypes.c_int * n)(*(int(buffer_type_of(np.dtype(t))) for _, t in shapes))
        self.layouts = (ctypes.c_void_p * n)()  # NULL entries: the default layout
        self.count = n

    def fields(self) -> dict[str, object]:
        return dict(num_shapes=self.count, shape_num_dims=ctypes.addressof(self.num_dims),
                    num_dims=ctypes.addressof(self.dim_pointers), element_types=ctypes.addressof(self.types),
                    layouts=ctypes.addressof(self.layouts))


def make_receive_buffers(client: "Client", device: "Device", shapes: Sequence[tuple[Sequence[int], np.dtype]]
                         ) -> tuple[list[Buffer], Notifications]:
    """Client_MakeCrossHostReceiveBuffers: buffers a remote send fills, and what its notifier reports."""
    plugin, notes, arrays = client.plugin, Notifications(), _Shapes(shapes)

    def notifier(error: int | None, descriptors: int | None, sizes: int | None, count: int, _user: int | None,
                 _cancel: int | None, _cancel_user: int | None) -> None:
        if error:
            notes.error = plugin.consume_error(error, "CROSS_HOST_TRANSFERS notifier")
        notes.descriptors = read_byte_strings(descriptors, sizes, count)
        notes.arrived.set()

    c_notifier = abi.RecvNotifier(notifier)
    out = (ctypes.c_void_p * arrays.count)()  # the caller's array: the plugin writes buffers[i] (one per shape)
    _KEEPALIVE.extend((c_notifier, arrays))
    args = call(plugin, CROSS_HOST, "Client_MakeCrossHostReceiveBuffers",
                abi.PJRT_Transfers_PJRT_Client_MakeCrossHostReceiveBuffers_Args(
                    client=client.handle, device=device.handle, **arrays.fields(),
                    notifier=abi.PJRT_Transfers_CrossHostRecvNotifierInfo(
                        notifier=ctypes.cast(c_notifier, ctypes.c_void_p).value),
                    buffers=ctypes.addressof(out)))
    count = min(int(args.num_buffers), arrays.count)
    return [Buffer(client, int(h or 0)) for h in out[:count]], notes


def copy_to_remote_device(buffer: Buffer, descriptor: bytes) -> SendOutcome:
    """Buffer_CopyToRemoteDevice of `buffer` to `descriptor`, handed over through an event the suite creates and
    sets (the callee frees it); the outcome arrives on `on_done`."""
    plugin, outcome = buffer.plugin, SendOutcome()
    data = ctypes.create_string_buffer(descriptor, max(1, len(descriptor)))
    pointer = ctypes.c_void_p(ctypes.addressof(data))
    size = ctypes.c_size_t(len(descriptor))

    def on_done(error: int | None, enqueued: bool, _user: int | None) -> None:
        if error:  # the plugin's: it destroys the error when on_done returns (XLA's C API wrapper does), so read only
            outcome.error = plugin.read_error(error, COPY)
        outcome.sends_were_enqueued = bool(enqueued)
        outcome.done.set()

    def release(_data: int | None, _size: int | None) -> None:
        """The descriptor's bytes are the suite's (kept alive): nothing to free. A NULL destructor is not an option:
        the plugin would free them with its own default one."""

    c_on_done, c_release = abi.RemoteSendCallback(on_done), abi.DescriptorDestructor(release)
    _KEEPALIVE.extend((c_on_done, c_release, data, pointer, size))
    event = Event.create(plugin)
    event.set()  # the descriptor is ready now; the callee frees the event
    args = abi.PJRT_Transfers_PJRT_Buffer_CopyToRemoteDevice_Args(
        buffer=buffer.handle, event=event.detach(), serialized_descriptor=ctypes.addressof(pointer),
        serialized_descriptor_size=ctypes.addressof(size),
        on_done=abi.PJRT_Transfers_CrossHostRemoteSendCallbackInfo(on_done=ctypes.cast(c_on_done, ctypes.c_void_p).value),
        descriptor_destructor=ctypes.cast(c_release, ctypes.c_void_p).value)
    _KEEPALIVE.append(args)
    call_void(plugin, CROSS_HOST, "Buffer_CopyToRemoteDevice", args)
    return outcome


def receive_buffers(client: "Client", device: "Device", shapes: Sequence[tuple[Sequence[int], np.dtype]],
                    sources: Sequence[int], keys: Sequence[int]) -> list[Buffer]:
    """Client_CrossHostReceiveBuffers: buffers filled by the sends of `keys` from global devices `sources`."""
    arrays = _Shapes(shapes)
    n = arrays.count
    ids, key_array, out = (ctypes.c_int64 * n)(*sources), (ctypes.c_int64 * n)(*keys), (ctypes.c_void_p * n)()
    _KEEPALIVE.extend((arrays, ids, key_array))
    call(client.plugin, CROSS_HOST, "Client_CrossHostReceiveBuffers",
         abi.PJRT_Transfers_PJRT_Client_CrossHostReceiveBuffers_Args(
             client=client.handle, device=device.handle, **arrays.fields(), src_global_device_ids=ctypes.addressof(ids),
             transfer_keys=ctypes.addressof(key_array), buffers=ctypes.addressof(out)))
    return [Buffer(client, int(h or 0)) for h in out]


def send_buffers(client: "Client", buffers: Sequence[Buffer], destinations: Sequence[int], keys: Sequence[int]
                 ) -> list[Event]:
    """Client_CrossHostSendBuffers: sends `buffers` to global devices `destinations` under `keys`; one event each."""
    n = len(buffers)
    handles = (ctypes.c_void_p * n)(*(b.handle for b in buffers))
    ids, key_array, events = (ctypes.c_int64 * n)(*destinations), (ctypes.c_int64 * n)(*keys), (ctypes.c_void_p * n)()
    _KEEPALIVE.extend((handles, ids, key_array))
    call(client.plugin, CROSS_HOST, "Client_CrossHostSendBuffers",
         abi.PJRT_Transfers_PJRT_Client_CrossHostSendBuffers_Args(
             client=client.handle, num_buffers=n, buffers=ctypes.addressof(handles),
             dst_global_device_ids=ctypes.addressof(ids), transfer_keys=ctypes.addressof(key_array),
             send_events=ctypes.addressof(events)))
    return [Event(client.plugin, int(h), "CROSS_HOST_TRANSFERS.Client_CrossHostSendBuffers event") for h in events if h]
