"""The FFI extension (PJRT_Extension_Type_FFI): XLA FFI type ids, user data on an execute context, handlers.

    ffi = FfiExtension(plugin)                             # MissingFunction on each call the plugin lacks
    type_id = ffi.register_type("my.type")                 # FFI.type_register: 0 asks the plugin for an id
    ffi.add_user_data(context, type_id, address)           # FFI.user_data_add
    ffi.register_handler("my_target", handler_address, client.platform_name)   # FFI.register_handler

Calls go through Plugin.call_extension under the names `FFI.type_register`, `FFI.user_data_add` and
`FFI.register_handler`; a returned PJRT_Error becomes PjrtError naming that function. Addresses are C function
or data pointers the caller keeps alive (a handler for as long as the process may run it).
"""
from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING

from pjrt_cts.abi.enums import ExtensionType
from pjrt_cts.abi.extensions import ffi as abi

if TYPE_CHECKING:
    from pjrt_cts.runtime.execute_context import ExecuteContext
    from pjrt_cts.runtime.plugin import Plugin


class FfiExtension:
    """The plugin's FFI extension functions (pjrt_cts.abi.extensions.ffi for the layout)."""

    def __init__(self, plugin: "Plugin") -> None:
        self.plugin = plugin

    def register_type(self, name: str, type_id: int = 0, *, deleter: int | None = None) -> int:
        """FFI.type_register: `type_id` 0 asks the plugin to assign an id; another value asks it to verify the
        name's id. Returns the id the plugin answered."""
        encoded = name.encode()
        text = ctypes.create_string_buffer(encoded)
        info = abi.PJRT_FFI_Type_Info(deleter=deleter)
        args = abi.PJRT_FFI_Type_Register_Args(type_name=ctypes.addressof(text), type_name_size=len(encoded),
                                               type_id=type_id, type_info=ctypes.addressof(info))
        self.plugin.call_extension(ExtensionType.FFI, "type_register", abi.TYPE_REGISTER_OFFSET, args)
        return int(args.type_id)

    def add_user_data(self, context: "ExecuteContext | None", type_id: int, data: int,
                      deleter: int | None = None) -> None:
        """FFI.user_data_add: `data` (an address) under `type_id` in `context` (None sends a NULL context);
        the plugin calls `deleter(data)` when the context is destroyed."""
        user_data = abi.PJRT_FFI_UserData(type_id=type_id, data=data, deleter=deleter)
        args = abi.PJRT_FFI_UserData_Add_Args(context=context.handle if context is not None else None,
                                              user_data=user_data)
        self.plugin.call_extension(ExtensionType.FFI, "user_data_add", abi.USER_DATA_ADD_OFFSET, args)

    def register_handler(self, target: str, handler: int | None, platform: str, traits: int = 0) -> None:
        """FFI.register_handler: the typed XLA FFI handler at address `handler` (None sends NULL) for custom calls
        to `target` on `platform` (the plugin's platform name, as PJRT_Client_PlatformName gives it)."""
        target_bytes, platform_bytes = target.encode(), platform.encode()
        target_text, platform_text = ctypes.create_string_buffer(target_bytes), ctypes.create_string_buffer(platform_bytes)
        args = abi.PJRT_FFI_Register_Handler_Args(
            target_name=ctypes.addressof(target_text), target_name_size=len(target_bytes), handler=handler,
            platform_name=ctypes.addressof(platform_text), platform_name_size=len(platform_bytes), traits=traits)
        self.plugin.call_extension(ExtensionType.FFI, "register_handler", abi.REGISTER_HANDLER_OFFSET, args)
