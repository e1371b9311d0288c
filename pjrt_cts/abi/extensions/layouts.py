"""PJRT_Layouts_Extension (xla/pjrt/c/pjrt_c_api_layouts_extension.h, extension version 4): layouts as opaque
PJRT_Layouts_MemoryLayout handles, serialized to XLA layout text (`{1,0}`)."""
from __future__ import annotations

from ctypes import c_int, c_size_t, c_void_p

from pjrt_cts.abi.base import HEADER, PjrtStruct, finalize_struct_sizes
from pjrt_cts.abi.structs import PJRT_Extension_Base


class PJRT_Layouts_Extension(PjrtStruct):
    # The first published version (May 2024) ended at Buffer_MemoryLayout (struct_size 56).
    _fields_ = [
        ("base", PJRT_Extension_Base),  # @0
        ("PJRT_Layouts_MemoryLayout_Destroy", c_void_p),  # @24
        ("PJRT_Layouts_MemoryLayout_Serialize", c_void_p),  # @32
        ("PJRT_Layouts_PJRT_Client_GetDefaultLayout", c_void_p),  # @40
        ("PJRT_Layouts_PJRT_Buffer_MemoryLayout", c_void_p),  # @48
        ("PJRT_Layouts_PJRT_Topology_GetDefaultLayout", c_void_p),  # @56
        ("PJRT_Layouts_PJRT_Executable_GetOutputLayouts", c_void_p),  # @64
        ("PJRT_Layouts_PJRT_Executable_GetParameterLayouts", c_void_p),  # @72
    ]


class PJRT_Layouts_MemoryLayout_Destroy_Args(PjrtStruct):
    _fields_ = HEADER + [("layout", c_void_p)]  # @16


class PJRT_Layouts_MemoryLayout_Serialize_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("layout", c_void_p),  # @16
        ("serialized_bytes", c_void_p),  # @24 out: lives as long as serialized_layout
        ("serialized_bytes_size", c_size_t),  # @32 out
        ("serialized_layout", c_void_p),  # @40 out
        ("serialized_layout_deleter", c_void_p),  # @48 out: void (*)(PJRT_Layouts_SerializedLayout*), call once
    ]


class PJRT_Layouts_PJRT_Client_GetDefaultLayout_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("client", c_void_p),  # @16
        ("type", c_int),  # @24 PJRT_Buffer_Type
        ("dims", c_void_p),  # @32 const int64_t*
        ("num_dims", c_size_t),  # @40
        ("layout", c_void_p),  # @48 out: the caller destroys it
    ]


class PJRT_Layouts_PJRT_Topology_GetDefaultLayout_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("topology_description", c_void_p),  # @16
        ("type", c_int),  # @24
        ("dims", c_void_p),  # @32
        ("num_dims", c_size_t),  # @40
        ("layout", c_void_p),  # @48 out: the caller destroys it
    ]


class PJRT_Layouts_PJRT_Buffer_MemoryLayout_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("buffer", c_void_p),  # @16
        ("layout", c_void_p),  # @24 out: the caller destroys it
    ]


class PJRT_Layouts_PJRT_Executable_GetOutputLayouts_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("executable", c_void_p),  # @16
        ("num_outputs", c_size_t),  # @24 out
        ("layouts", c_void_p),  # @32 out: PJRT_Layouts_MemoryLayout**, owned by the executable
    ]


class PJRT_Layouts_PJRT_Executable_GetParameterLayouts_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("executable", c_void_p),  # @16
        ("num_parameters", c_size_t),  # @24 out
        ("layouts", c_void_p),  # @32 out: PJRT_Layouts_MemoryLayout**, owned by the executable
    ]


finalize_struct_sizes(globals())
