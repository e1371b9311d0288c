"""PJRT_MemoryDescriptions_Extension (xla/pjrt/c/pjrt_c_api_memory_descriptions_extension.h, version 1): the
memory spaces of a PJRT_DeviceDescription (usable without a client's PJRT_Device), their kinds and kind ids."""
from __future__ import annotations

from ctypes import c_int, c_size_t, c_void_p

from pjrt_cts.abi.base import HEADER, PjrtStruct, finalize_struct_sizes
from pjrt_cts.abi.structs import PJRT_Extension_Base


class PJRT_MemoryDescriptions_Extension(PjrtStruct):
    _fields_ = [
        ("base", PJRT_Extension_Base),  # @0
        ("PJRT_DeviceDescription_MemoryDescriptions", c_void_p),  # @24
        ("PJRT_MemoryDescription_Kind", c_void_p),  # @32
    ]


class PJRT_DeviceDescription_MemoryDescriptions_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("device_description", c_void_p),  # @16
        ("memory_descriptions", c_void_p),  # @24 out: const PJRT_MemoryDescription* const*
        ("num_memory_descriptions", c_size_t),  # @32 out
        ("default_memory_index", c_size_t),  # @40 out: (size_t)-1 when there is no default
    ]


class PJRT_MemoryDescription_Kind_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("memory_description", c_void_p),  # @16
        ("kind", c_void_p),  # @24 out: lives as long as the description
        ("kind_size", c_size_t),  # @32 out
        ("kind_id", c_int),  # @40 out
    ]


finalize_struct_sizes(globals())
