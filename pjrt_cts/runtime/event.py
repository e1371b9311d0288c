"""PJRT_Event: readiness, errors, waiting and callbacks."""
from __future__ import annotations

import ctypes
import threading
import time
from typing import TYPE_CHECKING, Callable

from pjrt_cts.abi import structs
from pjrt_cts.abi.callbacks import EventOnReadyCallback
from pjrt_cts.abi.enums import ErrorCode
from pjrt_cts.runtime.errors import PjrtError
from pjrt_cts.runtime.handles import OwnedHandle

if TYPE_CHECKING:
    from pjrt_cts.runtime.plugin import Plugin


_POLL_SECONDS = 0.005


class Event(OwnedHandle):
    _host_keepalive: object = None  # host data that must live until the event fires

    def __init__(self, plugin: "Plugin", handle: int, what: str = "event") -> None:
        self.plugin = plugin
        self.what = what  # e.g. "PJRT_Buffer_ToHostBuffer event", for error messages
        self._callbacks: list[object] = []  # keeps ctypes callbacks alive until they fire
        self._own(handle, _destroyer(plugin))

    @classmethod
    def create(cls, plugin: "Plugin") -> "Event":
        """PJRT_Event_Create (0.89+): an event the caller later sets with set()."""
        args = plugin.call("Event_Create", structs.PJRT_Event_Create_Args())
        return cls(plugin, args.event, "PJRT_Event_Create event")

    def is_ready(self) -> bool:
        return bool(self.plugin.call("Event_IsReady", structs.PJRT_Event_IsReady_Args(event=self.handle)).is_ready)

    def error(self) -> PjrtError | None:
        """PJRT_Event_Error: the event's error once ready (None on success)."""
        return self.plugin.call_status("Event_Error", structs.PJRT_Event_Error_Args(event=self.handle))

    def ready_within(self, seconds: float) -> bool:
        """Whether PJRT_Event_IsReady turns true within `seconds` (polled): a bounded wait that cannot hang."""
        deadline = time.monotonic() + seconds
        while not self.is_ready():
            if time.monotonic() >= deadline:
                return False
            time.sleep(_POLL_SECONDS)
        return True

    def wait(self) -> None:
        """PJRT_Event_Await; raises the event's error as PjrtError."""
        error = self.plugin.call_status("Event_Await", structs.PJRT_Event_Await_Args(event=self.handle))
        if error is not None:
            raise error.as_error_of(error.function)

    def set(self, code: ErrorCode = ErrorCode.OK, message: str = "") -> None:
        data = message.encode()
        buffer = ctypes.create_string_buffer(data)
        args = structs.PJRT_Event_Set_Args(event=self.handle, error_code=int(code), error_message=ctypes.addressof(buffer), error_message_size=len(data))
        self.plugin.call("Event_Set", args)

    def on_ready(self, callback: Callable[[PjrtError | None], None]) -> None:
        """PJRT_Event_OnReady; `callback(error_or_None)` may run on a plugin thread.

        The plugin hands the callback ownership of its PJRT_Error*: it is converted and destroyed here.
        """
        plugin = self.plugin
        done = threading.Event()

        def trampoline(error: int | None, _user_arg: int | None) -> None:
            converted = plugin.consume_error(error, "PJRT_Event_OnReady callback") if error else None
            try:
                callback(converted)
            finally:
                done.set()

        c_callback = EventOnReadyCallback(trampoline)
        self._callbacks.append(c_callback)
        _live_callbacks[id(c_callback)] = c_callback  # CFUNCTYPE objects are unhashable: key by id
        # Released only after it fired: the plugin may call it after this Event is gone.
        threading.Thread(target=_release_after, args=(done, c_callback), daemon=True).start()
        self.plugin.call("Event_OnReady", structs.PJRT_Event_OnReady_Args(event=self.handle, callback=ctypes.cast(c_callback, ctypes.c_void_p), user_arg=None))


_live_callbacks: dict[int, object] = {}


def _release_after(done: threading.Event, c_callback: object) -> None:
    done.wait()
    _live_callbacks.pop(id(c_callback), None)


def _destroyer(plugin: "Plugin") -> Callable[[int], None]:
    def destroy(handle: int) -> None:
        plugin.call("Event_Destroy", structs.PJRT_Event_Destroy_Args(event=handle))

    return destroy


def wait_and_destroy(plugin: "Plugin", handle: int, what: str) -> None:
    """Await an event we got as an out-parameter, then destroy it (raises its error)."""
    if not handle:
        return
    error = plugin.call_status("Event_Await", structs.PJRT_Event_Await_Args(event=handle))
    plugin.call("Event_Destroy", structs.PJRT_Event_Destroy_Args(event=handle))
    if error is not None:
        raise error.as_error_of(what)
