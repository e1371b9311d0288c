"""PJRT_Xla_Transform_Extension (xla/pjrt/c/pjrt_c_api_xla_transform_extension.h, version 1): user transforms of
the HloModuleProto run inside the compiler's pipeline, registered and cleared by name and stage.

Its args structs have `struct_size` but no `extension_start` (a header irregularity)."""
from __future__ import annotations

import ctypes
from ctypes import c_bool, c_int, c_int64, c_size_t, c_void_p

from pjrt_cts.abi.base import PjrtStruct, RawStruct, finalize_struct_sizes
from pjrt_cts.abi.structs import PJRT_Extension_Base

API_VERSION = 1  # PJRT_API_XLA_TRANSFORM_EXTENSION_VERSION: what PJRT_XlaTransform_Callbacks.version must say
PRE_SCHEDULER, POST_SCHEDULER = 0, 1  # PJRT_XlaTransform_PipelineStage


class PJRT_Xla_Transform_Extension(PjrtStruct):
    # First published (May 2026) with register_xla_transform alone (struct_size 32); clear_xla_transform came in
    # June 2026, the pipeline-trace pair in August 2026 (struct_size 56).
    _fields_ = [
        ("base", PJRT_Extension_Base),  # @0
        ("register_xla_transform", c_void_p),  # @24
        ("clear_xla_transform", c_void_p),  # @32
        ("get_hlo_pass_pipeline_trace", c_void_p),  # @40
        ("destroy_hlo_pass_pipeline_trace", c_void_p),  # @48 void function
    ]


class PJRT_XlaTransform_string(RawStruct):
    _fields_ = [("data", c_void_p), ("size", c_size_t)]


class PJRT_XlaTransform_version_and_error(RawStruct):
    _fields_ = [
        ("api_version", c_int64),  # @0
        ("data", c_void_p),  # @8 out
        ("cleanup_fn", c_void_p),  # @16 out: void (*)(void* data)
        ("has_error", c_bool),  # @24 out
        ("code", c_int),  # @28 out: PJRT_Error_Code
        ("error_msg", PJRT_XlaTransform_string),  # @32 out
    ]


class PJRT_XlaTransform_Args(PjrtStruct):
    _fields_ = [
        ("struct_size", c_size_t),  # @0
        ("header", PJRT_XlaTransform_version_and_error),  # @8
        ("hlo_module", PJRT_XlaTransform_string),  # @56 in: serialized HloModuleProto
        ("transformed_hlo_module", PJRT_XlaTransform_string),  # @72 out
        ("changed", c_bool),  # @88 out
    ]


# void transform_hlo_module(PJRT_XlaTransform_Callbacks*, PJRT_XlaTransform_Args*); void dtor(callbacks*)
TransformCallback = ctypes.CFUNCTYPE(None, c_void_p, c_void_p)
DtorCallback = ctypes.CFUNCTYPE(None, c_void_p)


class PJRT_XlaTransform_Callbacks(RawStruct):
    _fields_ = [
        ("version", c_int64),  # @0
        ("dtor", c_void_p),  # @8 optional
        ("transform_hlo_module", c_void_p),  # @16 optional
    ]


class PJRT_Register_Xla_Transform_Args(PjrtStruct):
    _fields_ = [
        ("struct_size", c_size_t),  # @0 (no extension_start)
        ("name", c_void_p),  # @8
        ("name_size", c_size_t),  # @16
        ("stage", c_int),  # @24
        ("callbacks", c_void_p),  # @32
    ]


class PJRT_Clear_Xla_Transform_Args(PjrtStruct):
    _fields_ = [
        ("struct_size", c_size_t),  # @0 (no extension_start)
        ("stage", c_int),  # @8
        ("name", c_void_p),  # @16
        ("name_size", c_size_t),  # @24
        ("callbacks", c_void_p),  # @32
        ("cleared", c_bool),  # @40 out
    ]


class PJRT_HloPassPipelineTrace(RawStruct):
    _fields_ = [("serialized_trace", c_void_p), ("serialized_trace_size", c_size_t)]  # an HloModuleMetadataProto


class PJRT_Xla_Transform_Get_Hlo_Pass_Pipeline_Trace_Args(PjrtStruct):
    _fields_ = [
        ("struct_size", c_size_t),  # @0 (no extension_start)
        ("hlo_module", PJRT_XlaTransform_string),  # @8 in: serialized HloModuleProto
        ("trace", PJRT_HloPassPipelineTrace),  # @24 out: destroyed with destroy_hlo_pass_pipeline_trace
    ]


class PJRT_Xla_Transform_Destroy_Hlo_Pass_Pipeline_Trace_Args(PjrtStruct):
    _fields_ = [
        ("struct_size", c_size_t),  # @0 (no extension_start)
        ("trace", c_void_p),  # @8 PJRT_HloPassPipelineTrace*
    ]


finalize_struct_sizes(globals())
