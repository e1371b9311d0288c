"""Work a plugin defers until the caller completes it, each completed exactly once:

- `RawCopyFuture` (PJRT_Buffer_CopyRawToHostFuture): the copy starts once the caller hands over a destination;
- `ControlDependency` (PJRT_Buffer_DonateWithControlDependency): the new buffer is ready once the caller says so;
- `AliasFulfilment` (PJRT_Client_CreateAliasBuffer): the alias becomes a buffer, or an error, at FulfillAliasBuffer.

Each is an owned handle: closing one that was never completed completes it with CANCELLED, so that the plugin can
free what it holds for it (and a buffer waiting on it does not wait forever).
"""
from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING, Callable

from pjrt_cts.abi import structs
from pjrt_cts.abi.callbacks import CompletionCallback
from pjrt_cts.abi.enums import ErrorCode
from pjrt_cts.runtime.event import Event
from pjrt_cts.runtime.handles import OwnedHandle

if TYPE_CHECKING:
    from pjrt_cts.runtime.buffer import Buffer
    from pjrt_cts.runtime.client import Client

CANCELLED_MESSAGE = "pjrt-cts: released without being completed"


def _encoded(message: str) -> ctypes.Array[ctypes.c_char]:
    data = message.encode()
    return ctypes.create_string_buffer(data, max(1, len(data)))


Runner = Callable[[int, ErrorCode, str, "dict[str, object]"], None]  # (callback data, code, message, fields)


class _Completion(OwnedHandle):
    """A one-shot completion: `_complete(code, message, **fields)` runs the plugin's callback once. The runner
    holds no reference to the object, so that a forgotten one is released (CANCELLED) when it is collected."""

    def _start(self, parent: OwnedHandle, callback_data: int, run: Runner) -> None:
        self.completed = False
        self._run = run
        self._own(callback_data, lambda handle: run(handle, ErrorCode.CANCELLED, CANCELLED_MESSAGE, {}), parent=parent)

    def _complete(self, code: ErrorCode, message: str, **fields: object) -> None:
        if self.completed:
            raise ValueError(f"{type(self).__name__} was already completed")
        self.completed = True
        self._run(self.detach(), code, message, fields)  # detached first: never completed twice, even if it raises


class RawCopyFuture(_Completion):
    """PJRT_Buffer_CopyRawToHostFuture: `event` completes once `fulfil(destination)` (or `cancel`) was called."""

    def __init__(self, buffer: "Buffer", offset: int, size: int) -> None:
        self.plugin = buffer.plugin
        self.offset, self.size = offset, size
        args = structs.PJRT_Buffer_CopyRawToHostFuture_Args(buffer=buffer.handle, offset=offset, transfer_size=size)
        self.plugin.call("Buffer_CopyRawToHostFuture", args)
        self.event = Event(self.plugin, args.event, "PJRT_Buffer_CopyRawToHostFuture event") if args.event else None
        callback = int(args.future_ready_callback or 0)

        def run(data: int, code: ErrorCode, message: str, fields: dict[str, object]) -> None:
            text = _encoded(message)
            completion = structs.PJRT_Buffer_CopyRawToHostFuture_Callback_Args(
                callback_data=data, error_code=int(code), error_message=ctypes.addressof(text),
                error_message_size=len(message.encode()), dst=fields.get("dst"))
            CompletionCallback(callback)(ctypes.addressof(completion))

        self._start(buffer.client, int(args.callback_data or 0), run)  # the client, not the buffer: the copy may outlive it

    def fulfil(self, destination: int) -> None:
        """Hand over the host destination (`size` bytes at `destination`): the copy may start."""
        self._complete(ErrorCode.OK, "", dst=destination)

    def cancel(self, code: ErrorCode, message: str) -> None:
        """Fulfil the destination future with an error: the copy is cancelled with it."""
        self._complete(code, message)


class ControlDependency(_Completion):
    """The dependency of PJRT_Buffer_DonateWithControlDependency: `set_ready()` or `fail(code, message)` once."""

    def __init__(self, parent: OwnedHandle, callback_data: int, callback: int) -> None:
        def run(data: int, code: ErrorCode, message: str, fields: dict[str, object]) -> None:
            text = _encoded(message)
            completion = structs.PJRT_Buffer_DonateWithControlDependency_Callback_Args(
                callback_data=data, error_code=int(code), error_message=ctypes.addressof(text),
                error_message_size=len(message.encode()))
            CompletionCallback(callback)(ctypes.addressof(completion))

        self._start(parent, callback_data, run)

    def set_ready(self) -> None:
        self._complete(ErrorCode.OK, "")

    def fail(self, code: ErrorCode, message: str) -> None:
        self._complete(code, message)


class AliasFulfilment(_Completion):
    """The fulfil_alias_buffer_cb of PJRT_Client_CreateAliasBuffer, consumed by PJRT_Client_FulfillAliasBuffer."""

    def __init__(self, client: "Client", callback: int) -> None:
        plugin, client_handle = client.plugin, client.handle

        def run(data: int, code: ErrorCode, message: str, fields: dict[str, object]) -> None:
            text = _encoded(message)
            args = structs.PJRT_Client_FulfillAliasBuffer_Args(
                client=client_handle, buffer=fields.get("buffer"), status_code=int(code),
                error_message=ctypes.addressof(text), error_message_size=len(message.encode()),
                fulfill_alias_buffer_cb=data)
            error = plugin.call_status("Client_FulfillAliasBuffer", args)
            if error is not None and message != CANCELLED_MESSAGE:  # released unused: whatever it answers
                raise error

        self._start(client, callback, run)

    def fulfil(self, buffer: "Buffer") -> None:
        """PJRT_Client_FulfillAliasBuffer with status OK: the alias becomes `buffer` (raises its PjrtError)."""
        self._complete(ErrorCode.OK, "", buffer=buffer.handle)

    def fail(self, code: ErrorCode, message: str) -> None:
        """PJRT_Client_FulfillAliasBuffer with an error status (raises what the plugin returns, if anything)."""
        self._complete(code, message)


__all__ = ["AliasFulfilment", "ControlDependency", "RawCopyFuture"]
