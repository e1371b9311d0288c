"""The FFI extension (PJRT_Extension_Type_FFI = 5, `xla/pjrt/c/pjrt_c_api_ffi_extension.h`, extension version 3).

Layout (x86-64) as the header defines it since 0.80 (openxla/xla 2c8308ee, 2025-10-22):

    PJRT_FFI_Extension {PJRT_Extension_Base base @0 (24 B); type_register @24; user_data_add @32;
                        register_handler @40}                                      struct size 48
    PJRT_FFI_Type_Register_Args   {HEADER; type_name @16; type_name_size @24; type_id (in-out) @32;
                                   type_info @40}                                  PJRT_STRUCT_SIZE 48
    PJRT_FFI_Type_Info            {deleter @0; serialize @8; deserialize @16}      (no struct_size)
    PJRT_FFI_UserData             {type_id @0; data @8; deleter @16}               (no struct_size)
    PJRT_FFI_UserData_Add_Args    {HEADER; context @16; user_data @24}             PJRT_STRUCT_SIZE 48
    PJRT_FFI_Register_Handler_Args {struct_size @0; target_name @8; target_name_size @16; handler @24;
                                   platform_name @32; platform_name_size @40; traits @48}
                                                                                   PJRT_STRUCT_SIZE 52
                                   (no extension_start: a known irregularity of the header)

History: 0.53 added the extension with the type-id registration (@24) and user_data_add (@32); 0.73 added
register_handler (@40, struct size 48); 0.80 gave the function @24 the Type_Register args (with type_info) and
named it type_register. A plugin whose struct_size ends before an offset lacks that function.
Declarations only: pjrt_cts.runtime.ffi calls them.
"""
from __future__ import annotations

from ctypes import c_int, c_int64, c_size_t, c_void_p

from pjrt_cts.abi.base import HEADER, PjrtStruct, RawStruct, finalize_struct_sizes
from pjrt_cts.abi.extensions.function_tables import function_table

EXTENSION_SINCE_MINOR = 53
REGISTER_HANDLER_SINCE_MINOR = 73

PJRT_FFI_Extension = function_table("PJRT_FFI_Extension", ["type_register", "user_data_add", "register_handler"])
# Byte offsets of the function pointers in PJRT_FFI_Extension (after the 24-byte PJRT_Extension_Base).
TYPE_REGISTER_OFFSET: int = PJRT_FFI_Extension.type_register.offset  # 24
USER_DATA_ADD_OFFSET: int = PJRT_FFI_Extension.user_data_add.offset  # 32
REGISTER_HANDLER_OFFSET: int = PJRT_FFI_Extension.register_handler.offset  # 40
EXTENSION_STRUCT_SIZE = 48

# PJRT_FFI_Handler_TraitsBits
HANDLER_TRAITS_COMMAND_BUFFER_COMPATIBLE = 1 << 0


class PJRT_FFI_Type_Info(RawStruct):
    _since_ = 80
    _fields_ = [
        ("deleter", c_void_p),  # @0  void (*)(void* object)
        ("serialize", c_void_p),  # @8  placeholder
        ("deserialize", c_void_p),  # @16 placeholder
    ]


class PJRT_FFI_Type_Register_Args(PjrtStruct):
    _since_ = 80
    _fields_ = HEADER + [
        ("type_name", c_void_p),  # @16
        ("type_name_size", c_size_t),  # @24
        ("type_id", c_int64),  # @32 in-out: 0 asks the plugin to assign one
        ("type_info", c_void_p),  # @40 PJRT_FFI_Type_Info*
    ]


class PJRT_FFI_UserData(RawStruct):
    _since_ = EXTENSION_SINCE_MINOR
    _fields_ = [
        ("type_id", c_int64),  # @0
        ("data", c_void_p),  # @8
        ("deleter", c_void_p),  # @16 void (*)(void* data), optional: called when the context is destroyed
    ]


class PJRT_FFI_UserData_Add_Args(PjrtStruct):
    _since_ = EXTENSION_SINCE_MINOR
    _fields_ = HEADER + [
        ("context", c_void_p),  # @16 PJRT_ExecuteContext*
        ("user_data", PJRT_FFI_UserData),  # @24
    ]


class PJRT_FFI_Register_Handler_Args(PjrtStruct):
    _since_ = REGISTER_HANDLER_SINCE_MINOR
    _fields_ = [
        ("struct_size", c_size_t),  # @0
        ("target_name", c_void_p),  # @8
        ("target_name_size", c_size_t),  # @16
        ("handler", c_void_p),  # @24 XLA_FFI_Handler* (typed FFI)
        ("platform_name", c_void_p),  # @32
        ("platform_name_size", c_size_t),  # @40
        ("traits", c_int),  # @48 PJRT_FFI_Handler_TraitsBits
    ]


finalize_struct_sizes(globals())
