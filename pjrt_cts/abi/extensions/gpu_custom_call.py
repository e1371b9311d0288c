"""PJRT_Gpu_Custom_Call (xla/pjrt/c/pjrt_c_api_gpu_extension.h, extension version 3): registers a GPU custom
call target (legacy untyped, or typed XLA FFI handlers) with the plugin's compiler.

PJRT_Gpu_Register_Custom_Call_Args has `struct_size` but no `extension_start` (a header irregularity)."""
from __future__ import annotations

from ctypes import c_bool, c_int, c_size_t, c_uint32, c_void_p

from pjrt_cts.abi.base import PjrtStruct, finalize_struct_sizes
from pjrt_cts.abi.structs import PJRT_Extension_Base

UNTYPED, TYPED = 0, 1  # PJRT_Gpu_Register_Custom_Call_Args.api_version


class PJRT_Gpu_Custom_Call(PjrtStruct):
    # Version 3 added the bool (struct_size 33): callers know `traits` is read only when it is covered and set.
    _fields_ = [
        ("base", PJRT_Extension_Base),  # @0
        ("custom_call", c_void_p),  # @24
        ("custom_call_handles_traits", c_bool),  # @32
    ]


class PJRT_Gpu_Register_Custom_Call_Args(PjrtStruct):
    _fields_ = [
        ("struct_size", c_size_t),  # @0 (no extension_start)
        ("function_name", c_void_p),  # @8
        ("function_name_size", c_size_t),  # @16
        ("api_version", c_int),  # @24 UNTYPED or TYPED
        ("handler_instantiate", c_void_p),  # @32
        ("handler_prepare", c_void_p),  # @40
        ("handler_initialize", c_void_p),  # @48
        ("handler_execute", c_void_p),  # @56
        ("traits", c_uint32),  # @64 (version 3) XLA_FFI_Handler_TraitsBits
    ]


finalize_struct_sizes(globals())
