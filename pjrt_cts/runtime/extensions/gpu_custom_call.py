"""GPU_CUSTOM_CALL: registering a custom call target with the plugin's compiler (its args have no
extension_start)."""
from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING

from pjrt_cts.abi.enums import ExtensionType
from pjrt_cts.abi.extensions import gpu_custom_call as abi
from pjrt_cts.runtime.extensions.calls import c_string, call

UNTYPED, TYPED = abi.UNTYPED, abi.TYPED  # PJRT_Gpu_Register_Custom_Call_Args.api_version

if TYPE_CHECKING:
    from pjrt_cts.runtime.plugin import Plugin


def register_custom_call(plugin: "Plugin", name: str, api_version: int, execute: int) -> None:
    """custom_call: `name` handled by the C function at `execute` (an untyped XlaCustomCall, or a typed
    XLA_FFI_Handler*), no instantiate/prepare/initialize stages, no traits. The caller keeps `execute` alive for the
    process's life: the plugin keeps the pointer."""
    text, size = c_string(name)
    call(plugin, ExtensionType.GPU_CUSTOM_CALL, "custom_call", abi.PJRT_Gpu_Register_Custom_Call_Args(
        function_name=ctypes.addressof(text), function_name_size=size, api_version=api_version,
        handler_execute=execute))
