"""XLA_TRANSFORM: Python transforms of the HloModuleProto registered into the compiler's pipeline, cleared by name;
the HLO pass pipeline trace of a module.

A registration is process-wide state of the plugin: `registered_transform` clears it again on exit, and keeps the
ctypes callbacks alive until then (the plugin calls them from its compile threads).
"""
from __future__ import annotations

import contextlib
import ctypes
from typing import TYPE_CHECKING, Callable, Iterator

from pjrt_cts.abi.enums import ExtensionType
from pjrt_cts.abi.extensions import xla_transform as abi
from pjrt_cts.runtime.extensions.calls import c_string, call, call_void

if TYPE_CHECKING:
    from pjrt_cts.runtime.plugin import Plugin

XLA_TRANSFORM = ExtensionType.XLA_TRANSFORM
PRE_SCHEDULER, POST_SCHEDULER = abi.PRE_SCHEDULER, abi.POST_SCHEDULER  # PJRT_XlaTransform_PipelineStage
# A transform sees the serialized HloModuleProto and returns a replacement (changed) or None (unchanged).
Transform = Callable[[bytes], "bytes | None"]


class TransformCallbacks:
    """A PJRT_XlaTransform_Callbacks struct calling `transform`, with what the plugin sees kept alive."""

    def __init__(self, transform: Transform, version: int = abi.API_VERSION) -> None:
        self.seen: list[bytes] = []  # every module the plugin handed to the transform
        self.destroyed = 0  # how often the plugin called dtor
        self.errors: list[Exception] = []  # raised by `transform` (reported to the plugin as has_error)
        self._replacements: list[object] = []

        def on_module(_callbacks: int | None, args_address: int | None) -> None:
            args = abi.PJRT_XlaTransform_Args.from_address(args_address or 0)
            module = ctypes.string_at(args.hlo_module.data, args.hlo_module.size) if args.hlo_module.data else b""
            self.seen.append(module)
            try:
                replacement = transform(module)
            except Exception as error:  # noqa: BLE001  (a C callback must not raise: the plugin gets has_error)
                self.errors.append(error)
                message, size = c_string(f"pjrt-cts transform raised {type(error).__name__}")
                self._replacements.append(message)
                args.header.has_error, args.header.code = True, 13  # INTERNAL
                args.header.error_msg.data, args.header.error_msg.size = ctypes.addressof(message), size
                return
            args.changed = replacement is not None
            if replacement is not None:
                kept = ctypes.create_string_buffer(replacement, max(1, len(replacement)))
                self._replacements.append(kept)
                args.transformed_hlo_module.data = ctypes.addressof(kept)
                args.transformed_hlo_module.size = len(replacement)

        def on_destroy(_callbacks: int | None) -> None:
            self.destroyed += 1

        self._on_module = abi.TransformCallback(on_module)
        self._on_destroy = abi.DtorCallback(on_destroy)
        self.struct = abi.PJRT_XlaTransform_Callbacks(
            version=version, dtor=ctypes.cast(self._on_destroy, ctypes.c_void_p).value,
            transform_hlo_module=ctypes.cast(self._on_module, ctypes.c_void_p).value)

    @property
    def address(self) -> int:
        return ctypes.addressof(self.struct)


def register(plugin: "Plugin", name: str, stage: int, callbacks: TransformCallbacks) -> None:
    """register_xla_transform (its args have no extension_start)."""
    text, size = c_string(name)
    call(plugin, XLA_TRANSFORM, "register_xla_transform", abi.PJRT_Register_Xla_Transform_Args(
        name=ctypes.addressof(text), name_size=size, stage=stage, callbacks=callbacks.address))


def clear(plugin: "Plugin", name: str, stage: int) -> bool:
    """clear_xla_transform by name: whether a transform was cleared."""
    text, size = c_string(name)
    args = call(plugin, XLA_TRANSFORM, "clear_xla_transform", abi.PJRT_Clear_Xla_Transform_Args(
        stage=stage, name=ctypes.addressof(text), name_size=size))
    return bool(args.cleared)


@contextlib.contextmanager
def registered_transform(plugin: "Plugin", name: str, transform: Transform,
                         stage: int = abi.PRE_SCHEDULER) -> Iterator[TransformCallbacks]:
    """A transform registered for the duration of the block, cleared afterwards whatever happened."""
    callbacks = TransformCallbacks(transform)
    register(plugin, name, stage, callbacks)
    try:
        yield callbacks
    finally:
        clear(plugin, name, stage)


def pipeline_trace(plugin: "Plugin", hlo_module: bytes) -> bytes:
    """get_hlo_pass_pipeline_trace of a serialized HloModuleProto: a serialized HloModuleMetadataProto (copied, then
    freed with destroy_hlo_pass_pipeline_trace)."""
    module = ctypes.create_string_buffer(hlo_module, max(1, len(hlo_module)))
    args = abi.PJRT_Xla_Transform_Get_Hlo_Pass_Pipeline_Trace_Args()
    args.hlo_module.data, args.hlo_module.size = ctypes.addressof(module), len(hlo_module)
    call(plugin, XLA_TRANSFORM, "get_hlo_pass_pipeline_trace", args)
    trace = ctypes.string_at(args.trace.serialized_trace, args.trace.serialized_trace_size) \
        if args.trace.serialized_trace else b""
    call_void(plugin, XLA_TRANSFORM, "destroy_hlo_pass_pipeline_trace",
              abi.PJRT_Xla_Transform_Destroy_Hlo_Pass_Pipeline_Trace_Args(trace=ctypes.addressof(args.trace)))
    return trace
