"""PJRT_CopyToDeviceStream: how host data reaches a program's host `recv` op, through a recv callback.

A plugin calls the PJRT_RecvCallback given in PJRT_ExecuteOptions.recv_callbacks when the program reaches a recv of
that channel, handing it a stream the callback owns: it adds the data as chunks and destroys the stream.

    callbacks = HostRecvCallbacks(plugin, {1: lambda stream: stream.add_chunk(data)})
    outputs, _ = executable.execute_sharded([[]], options=callbacks.options())
"""
from __future__ import annotations

import ctypes
import threading
from typing import TYPE_CHECKING, Callable, Mapping

from pjrt_cts.abi import structs
from pjrt_cts.abi.base import PjrtStruct
from pjrt_cts.abi.callbacks import ChunkDeleter, RecvCallback
from pjrt_cts.runtime.event import Event
from pjrt_cts.runtime.handles import OwnedHandle

if TYPE_CHECKING:
    from pjrt_cts.runtime.plugin import Plugin

_PREFIX = "CopyToDeviceStream_"


class CopyToDeviceStream(OwnedHandle):
    """A stream a recv callback received; close() is PJRT_CopyToDeviceStream_Destroy."""

    def __init__(self, plugin: "Plugin", handle: int) -> None:
        self.plugin = plugin

        def destroy(h: int) -> None:
            plugin.call(_PREFIX + "Destroy", structs.PJRT_CopyToDeviceStream_Destroy_Args(stream=h))

        self._own(handle, destroy)

    def _call(self, name: str, struct: type[PjrtStruct], **fields: object) -> PjrtStruct:
        return self.plugin.call(_PREFIX + name, struct(stream=self.handle, **fields))

    @property
    def total_bytes(self) -> int:
        return int(self._call("TotalBytes", structs.PJRT_CopyToDeviceStream_TotalBytes_Args).total_bytes)

    @property
    def granule_size(self) -> int:
        return int(self._call("GranuleSize", structs.PJRT_CopyToDeviceStream_GranuleSize_Args).granule_size_in_bytes)

    @property
    def current_bytes(self) -> int:
        return int(self._call("CurrentBytes", structs.PJRT_CopyToDeviceStream_CurrentBytes_Args).current_bytes)

    def add_chunk(self, data: bytes) -> Event | None:
        """PJRT_CopyToDeviceStream_AddChunk: the plugin owns the chunk and calls its deleter once done with it;
        returns the transfer_complete event (None if the plugin gave none)."""
        host = ctypes.create_string_buffer(data, max(1, len(data)))
        key = _keep_chunk(host)
        chunk = structs.PJRT_Chunk(data=ctypes.addressof(host), size=len(data),
                                   deleter=ctypes.cast(_CHUNK_DELETER, ctypes.c_void_p), deleter_arg=key)
        args = self._call("AddChunk", structs.PJRT_CopyToDeviceStream_AddChunk_Args, chunk=ctypes.addressof(chunk))
        complete = int(args.transfer_complete or 0)
        return Event(self.plugin, complete, "PJRT_CopyToDeviceStream_AddChunk transfer_complete") if complete else None


class HostRecvCallbacks:
    """PJRT_ExecuteOptions whose recv_callbacks (one device) map channel ids to Python callbacks.

    Each callback gets the stream as a CopyToDeviceStream, destroyed after it returns unless it did so itself.
    What a callback raises (ctypes would swallow it) is kept in `errors`; `streams_received` counts the calls.
    The object must outlive the execution.
    """

    def __init__(self, plugin: "Plugin", callbacks: Mapping[int, Callable[[CopyToDeviceStream], None]]) -> None:
        self.plugin = plugin
        self.errors: list[BaseException] = []
        self.streams_received = 0
        self._lock = threading.Lock()
        self._trampolines = [RecvCallback(self._trampoline(callback)) for callback in callbacks.values()]
        self._infos = (structs.PJRT_RecvCallbackInfo * max(1, len(callbacks)))()
        for info, channel, trampoline in zip(self._infos, callbacks, self._trampolines):
            info.channel_id, info.user_arg = channel, None
            info.recv_callback = ctypes.cast(trampoline, ctypes.c_void_p)
        self._per_device = (ctypes.c_void_p * 1)(ctypes.addressof(self._infos))
        self._count = len(callbacks)

    def options(self) -> structs.PJRT_ExecuteOptions:
        return structs.PJRT_ExecuteOptions(recv_callbacks=ctypes.addressof(self._per_device), num_recv_ops=self._count)

    def _trampoline(self, callback: Callable[[CopyToDeviceStream], None]) -> Callable[[int | None, int | None], None]:
        def run(stream: int | None, _user_arg: int | None) -> None:
            with self._lock:
                self.streams_received += 1
            owned = CopyToDeviceStream(self.plugin, int(stream or 0))
            try:
                callback(owned)
            except Exception as error:  # noqa: BLE001  # a callback's failure is reported by the test, not lost in ctypes
                self.errors.append(error)
            finally:
                owned.close()

        return run


_chunks: dict[int, object] = {}
_chunks_lock = threading.Lock()
_next_chunk = [0]


def _keep_chunk(host: object) -> int:
    with _chunks_lock:
        _next_chunk[0] += 1
        _chunks[_next_chunk[0]] = host
        return _next_chunk[0]


def _release_chunk(_data: int | None, key: int | None) -> None:
    with _chunks_lock:
        _chunks.pop(int(key or 0), None)


_CHUNK_DELETER = ChunkDeleter(_release_chunk)
