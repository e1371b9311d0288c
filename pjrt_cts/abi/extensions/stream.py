"""PJRT_Stream_Extension (xla/pjrt/c/pjrt_c_api_stream_extension.h, extension version 0): the platform stream on
which externally managed buffers (DLPack) become ready, and a wait for a buffer on such a stream.

Both args structs have `struct_size` but no `extension_start` (a header irregularity)."""
from __future__ import annotations

from ctypes import c_size_t, c_ssize_t, c_void_p

from pjrt_cts.abi.base import PjrtStruct, finalize_struct_sizes
from pjrt_cts.abi.structs import PJRT_Extension_Base


class PJRT_Stream_Extension(PjrtStruct):
    _fields_ = [
        ("base", PJRT_Extension_Base),  # @0
        ("get_stream", c_void_p),  # @24
        ("wait_stream", c_void_p),  # @32
    ]


class PJRT_Get_Stream_For_External_Ready_Events_Args(PjrtStruct):
    _fields_ = [
        ("struct_size", c_size_t),  # @0 (no extension_start)
        ("device", c_void_p),  # @8
        ("stream", c_ssize_t),  # @16 out: intptr_t, platform-specific
    ]


class PJRT_Wait_Until_Buffer_Ready_On_Stream_Args(PjrtStruct):
    _fields_ = [
        ("struct_size", c_size_t),  # @0 (no extension_start)
        ("stream", c_ssize_t),  # @8 intptr_t
        ("buffer", c_void_p),  # @16
    ]


finalize_struct_sizes(globals())
