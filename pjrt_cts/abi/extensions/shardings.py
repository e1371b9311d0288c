"""PJRT_Shardings_Extension (xla/pjrt/c/pjrt_c_api_shardings_extension.h, extension version 1): an executable's
parameter and output shardings as serialized `xla.OpSharding` protos (NULL arrays where the plugin has none)."""
from __future__ import annotations

from ctypes import c_size_t, c_void_p

from pjrt_cts.abi.base import HEADER, PjrtStruct, finalize_struct_sizes
from pjrt_cts.abi.structs import PJRT_Extension_Base


class PJRT_Shardings_Extension(PjrtStruct):
    _fields_ = [
        ("base", PJRT_Extension_Base),  # @0
        ("PJRT_Shardings_PJRT_Executable_ParameterShardings", c_void_p),  # @24
        ("PJRT_Shardings_PJRT_Executable_OutputShardings", c_void_p),  # @32
    ]


class PJRT_Shardings_PJRT_Executable_ParameterShardings_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("executable", c_void_p),  # @16
        ("num_parameters", c_size_t),  # @24 out
        ("shardings", c_void_p),  # @32 out: const char* const*, owned by the executable
        ("sharding_sizes", c_void_p),  # @40 out: const size_t*
    ]


class PJRT_Shardings_PJRT_Executable_OutputShardings_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("executable", c_void_p),  # @16
        ("num_outputs", c_size_t),  # @24 out
        ("shardings", c_void_p),  # @32 out
        ("sharding_sizes", c_void_p),  # @40 out
    ]


finalize_struct_sizes(globals())
