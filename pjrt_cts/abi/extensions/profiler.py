"""PJRT_Profiler_Extension (xla/pjrt/c/pjrt_c_api_profiler_extension.h, extension version 1) and the table it
points to, PLUGIN_Profiler_Api (xla/backends/profiler/plugin/profiler_c_api.h, PLUGIN_PROFILER_VERSION 1): a
profiler session that starts, stops and collects a serialized XSpace.

The profiler's functions return PLUGIN_Profiler_Error* (read with its own error_message / error_get_code /
error_destroy), not PJRT_Error*; their args structs have `struct_size` and, for the error functions, `priv`."""
from __future__ import annotations

from ctypes import c_int, c_int64, c_size_t, c_void_p

from pjrt_cts.abi.base import PjrtStruct, finalize_struct_sizes
from pjrt_cts.abi.structs import PJRT_Extension_Base


class PJRT_Profiler_Extension(PjrtStruct):
    # First published with struct_size first (Feb 2024) ending at profiler_api (struct_size 32).
    _fields_ = [
        ("base", PJRT_Extension_Base),  # @0
        ("profiler_api", c_void_p),  # @24 PLUGIN_Profiler_Api*; NULL only where the struct is an args extension
        ("traceme_context_id", c_int64),  # @32 valid only as an args extension
    ]


class PLUGIN_Profiler_Api(PjrtStruct):
    # consume / consume_result_destroy / serialize came later than collect_data (the first table ends there: 80).
    _fields_ = [
        ("struct_size", c_size_t),  # @0
        ("priv", c_void_p),  # @8
        ("error_destroy", c_void_p),  # @16 void
        ("error_message", c_void_p),  # @24 void
        ("error_get_code", c_void_p),  # @32
        ("create", c_void_p),  # @40
        ("destroy", c_void_p),  # @48
        ("start", c_void_p),  # @56
        ("stop", c_void_p),  # @64
        ("collect_data", c_void_p),  # @72
        ("consume", c_void_p),  # @80
        ("consume_result_destroy", c_void_p),  # @88 void
        ("serialize", c_void_p),  # @96
    ]


# PROFILER's functions: the table's members after struct_size and priv (what the call accounting names PROFILER.<name>)
TABLE_FUNCTIONS = tuple(field[0] for field in PLUGIN_Profiler_Api._fields_[2:])


class PLUGIN_Profiler_Error_Destroy_Args(PjrtStruct):
    _fields_ = [("struct_size", c_size_t), ("priv", c_void_p), ("error", c_void_p)]


class PLUGIN_Profiler_Error_Message_Args(PjrtStruct):
    _fields_ = [("struct_size", c_size_t), ("priv", c_void_p), ("error", c_void_p),
                ("message", c_void_p), ("message_size", c_size_t)]  # out: lives as long as the error


class PLUGIN_Profiler_Error_GetCode_Args(PjrtStruct):
    _fields_ = [("struct_size", c_size_t), ("priv", c_void_p), ("error", c_void_p), ("code", c_int)]


class PLUGIN_Profiler_Create_Args(PjrtStruct):
    _fields_ = [
        ("struct_size", c_size_t),  # @0
        ("options", c_void_p),  # @8 serialized tensorflow.ProfileOptions
        ("options_size", c_size_t),  # @16
        ("profiler", c_void_p),  # @24 out
    ]


class PLUGIN_Profiler_Session_Args(PjrtStruct):
    """The args of destroy, start and stop (three identical structs in the header)."""

    _fields_ = [("struct_size", c_size_t), ("profiler", c_void_p)]


class PLUGIN_Profiler_CollectData_Args(PjrtStruct):
    _fields_ = [
        ("struct_size", c_size_t),  # @0
        ("profiler", c_void_p),  # @8
        ("buffer", c_void_p),  # @16 in/out: NULL on the first call (size query), then the caller's buffer
        ("buffer_size_in_bytes", c_size_t),  # @24 out
    ]


class PLUGIN_Profiler_Consume_Args(PjrtStruct):
    _fields_ = [
        ("struct_size", c_size_t),  # @0
        ("profiler", c_void_p),  # @8
        ("result", c_void_p),  # @16 out: PLUGIN_Profiler_ConsumeResult*, freed by consume_result_destroy
    ]


class PLUGIN_Profiler_ConsumeResult_Destroy_Args(PjrtStruct):
    _fields_ = [("struct_size", c_size_t), ("consume_result", c_void_p)]


class PLUGIN_Profiler_Serialize_Args(PjrtStruct):
    _fields_ = [
        ("struct_size", c_size_t),  # @0
        ("profiler", c_void_p),  # @8
        ("consume_result", c_void_p),  # @16
        ("serialized_bytes", c_void_p),  # @24 out: the plugin's, valid until the next call on the profiler
        ("serialized_size", c_size_t),  # @32 out
    ]


finalize_struct_sizes(globals())
