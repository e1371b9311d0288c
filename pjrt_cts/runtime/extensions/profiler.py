"""PROFILER: a profiling session of the plugin's PLUGIN_Profiler_Api (create, start, stop, collect_data, destroy).

Its functions return PLUGIN_Profiler_Error*, read and freed with the table's own error_get_code / error_message /
error_destroy and raised as PjrtError("PROFILER.<function>", ...). They go through the call hooks as
`PROFILER.<function>`.
"""
from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, TypeVar

from pjrt_cts.abi.callbacks import SlotFunction, VoidSlotFunction
from pjrt_cts.abi.enums import ErrorCode, ExtensionType
from pjrt_cts.abi.extensions import profiler as abi
from pjrt_cts.abi.extensions.registry import EXTENSIONS
from pjrt_cts.runtime.errors import MissingFunction, PjrtError
from pjrt_cts.runtime.handles import OwnedHandle
from pjrt_cts.runtime.protobuf_wire import varint_field

if TYPE_CHECKING:
    from pjrt_cts.runtime.plugin import Plugin

_ArgsT = TypeVar("_ArgsT", bound=ctypes.Structure)
# tensorflow.ProfileOptions as JAX sends it: version 1, host tracer level 2, device tracer level 1.
DEFAULT_OPTIONS = varint_field(5, 1) + varint_field(2, 2) + varint_field(3, 1)
POISON_BYTE = 0xA5  # the caller's collect_data buffer before the second call


def profiler_api(plugin: "Plugin") -> abi.PLUGIN_Profiler_Api:
    """The PLUGIN_Profiler_Api the PROFILER extension points to (MissingFunction when not advertised or NULL)."""
    info = plugin.find_extension(ExtensionType.PROFILER)
    if info is None:
        raise MissingFunction("PROFILER.profiler_api", plugin.version_string, "the plugin does not advertise PROFILER")
    offset = EXTENSIONS[ExtensionType.PROFILER].function("profiler_api").offset
    table = int(ctypes.c_void_p.from_address(info.address + offset).value or 0)
    if not table:
        raise MissingFunction("PROFILER.profiler_api", plugin.version_string, "PROFILER's profiler_api is NULL")
    return abi.PLUGIN_Profiler_Api.from_address(table)


class ProfilerSession(OwnedHandle):
    """A PLUGIN_Profiler made by create(options); destroy on close()."""

    def __init__(self, plugin: "Plugin", options: bytes = DEFAULT_OPTIONS) -> None:
        self.plugin = plugin
        api = profiler_api(plugin)
        self._api = api
        text = ctypes.create_string_buffer(options, max(1, len(options)))
        args = _call(plugin, api, "create", abi.PLUGIN_Profiler_Create_Args(options=ctypes.addressof(text),
                                                                             options_size=len(options)))

        def destroy(h: int) -> None:
            _call(plugin, api, "destroy", abi.PLUGIN_Profiler_Session_Args(profiler=h))

        self._own(int(args.profiler or 0), destroy)

    def start(self) -> None:
        _call(self.plugin, self._api, "start", abi.PLUGIN_Profiler_Session_Args(profiler=self.handle))

    def stop(self) -> None:
        _call(self.plugin, self._api, "stop", abi.PLUGIN_Profiler_Session_Args(profiler=self.handle))

    def collect_data(self) -> "CollectedData":
        """collect_data's two-call protocol (profiler_c_api.h): the first call, with a NULL buffer, gives the size; the
        second, with the caller's buffer of that size, writes the serialized XSpace into it. The caller's buffer is
        poisoned first, so a second call that writes nothing is seen; what the first call left in args.buffer (the
        plugin's own buffer, where an implementation hands one out) is read before the second call."""
        args = _call(self.plugin, self._api, "collect_data", abi.PLUGIN_Profiler_CollectData_Args(profiler=self.handle))
        size = int(args.buffer_size_in_bytes)
        handed_out = ctypes.string_at(args.buffer, size) if args.buffer and size else None
        data = ctypes.create_string_buffer(bytes([POISON_BYTE]) * max(1, size), max(1, size))
        args.buffer = ctypes.addressof(data)
        _call(self.plugin, self._api, "collect_data", args)
        written = data.raw[:size]
        return CollectedData(data=written, written=written != bytes([POISON_BYTE]) * size, handed_out=handed_out)

    def consume_and_serialize(self) -> bytes:
        """The later collection path (consume, serialize, consume_result_destroy): consume takes what the session
        collected as an opaque result, serialize turns it into XSpace bytes (the plugin's, copied here), and the
        result is destroyed once, whatever serialize answered."""
        args = _call(self.plugin, self._api, "consume", abi.PLUGIN_Profiler_Consume_Args(profiler=self.handle))
        result = int(args.result or 0)
        try:
            serialized = _call(self.plugin, self._api, "serialize", abi.PLUGIN_Profiler_Serialize_Args(
                profiler=self.handle, consume_result=result))
            size = int(serialized.serialized_size)
            return ctypes.string_at(serialized.serialized_bytes, size) if serialized.serialized_bytes and size else b""
        finally:
            destroy = abi.PLUGIN_Profiler_ConsumeResult_Destroy_Args(consume_result=result)
            _function(self.plugin, self._api, "consume_result_destroy", void=True)(ctypes.addressof(destroy))


def destroy_no_error(plugin: "Plugin") -> None:
    """error_destroy(NULL): profiler_c_api.h lets the error be NULL."""
    args = abi.PLUGIN_Profiler_Error_Destroy_Args(error=None)
    _function(plugin, profiler_api(plugin), "error_destroy", void=True)(ctypes.addressof(args))


@dataclass(frozen=True)
class CollectedData:
    """What collect_data's two calls gave: `data`, the caller's buffer after the second call (its size the first
    call's buffer_size_in_bytes); `written`, whether the second call wrote into it (it no longer holds only the
    poison); `handed_out`, the bytes of the plugin's own buffer the first call pointed args.buffer at (None when it
    left args.buffer NULL)."""

    data: bytes
    written: bool
    handed_out: bytes | None


def _function(plugin: "Plugin", api: abi.PLUGIN_Profiler_Api, name: str, void: bool = False) -> Callable[..., Any]:
    pointer = int(getattr(api, name) or 0)
    if not pointer:
        raise MissingFunction(f"PROFILER.{name}", plugin.version_string, f"PLUGIN_Profiler_Api.{name} is NULL")
    return plugin.hooked(f"PROFILER.{name}", (VoidSlotFunction if void else SlotFunction)(pointer))


def _call(plugin: "Plugin", api: abi.PLUGIN_Profiler_Api, name: str, args: _ArgsT) -> _ArgsT:
    error = _function(plugin, api, name)(ctypes.addressof(args))
    if error:
        raise _consume_error(plugin, api, name, int(error))
    return args


def _consume_error(plugin: "Plugin", api: abi.PLUGIN_Profiler_Api, name: str, error: int) -> PjrtError:
    message_args = abi.PLUGIN_Profiler_Error_Message_Args(error=error)
    _function(plugin, api, "error_message", void=True)(ctypes.addressof(message_args))
    message = ctypes.string_at(message_args.message, message_args.message_size).decode("utf-8", "replace") \
        if message_args.message else ""
    code_args = abi.PLUGIN_Profiler_Error_GetCode_Args(error=error)
    code_error = _function(plugin, api, "error_get_code")(ctypes.addressof(code_args))
    code = int(code_args.code) if not code_error else int(ErrorCode.UNKNOWN)
    destroy_args = abi.PLUGIN_Profiler_Error_Destroy_Args(error=error)
    _function(plugin, api, "error_destroy", void=True)(ctypes.addressof(destroy_args))
    try:
        code_name = ErrorCode(code).name
    except ValueError:
        code_name = f"UNKNOWN_CODE_{code}"
    return PjrtError(f"PROFILER.{name}", code_name, message, code)
