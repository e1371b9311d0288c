"""PJRT_Custom_Partitioner_Extension (xla/pjrt/c/pjrt_c_api_custom_partitioner_extension.h, extension version 1):
registers JAX custom-call partitioners (callbacks the SPMD partitioner calls) and batch-partitionable targets.

Both args structs have `struct_size` but no `extension_start` (a header irregularity)."""
from __future__ import annotations

from ctypes import c_bool, c_int64, c_size_t, c_void_p

from pjrt_cts.abi.base import PjrtStruct, RawStruct, finalize_struct_sizes
from pjrt_cts.abi.structs import PJRT_Extension_Base

CALLBACKS_VERSION = 1  # JAX_CustomCallPartitioner_Callbacks.version the header's callers set


class PJRT_Custom_Partitioner_Extension(PjrtStruct):
    # First published (Mar 2024) with register_custom_partitioner alone (struct_size 32).
    _fields_ = [
        ("base", PJRT_Extension_Base),  # @0
        ("register_custom_partitioner", c_void_p),  # @24
        ("register_batch_partitionable", c_void_p),  # @32
    ]


class JAX_CustomCallPartitioner_Callbacks(RawStruct):
    _fields_ = [
        ("version", c_int64),  # @0
        ("private_data", c_void_p),  # @8
        ("dtor", c_void_p),  # @16 void (*)(JAX_CustomCallPartitioner_Callbacks*)
        ("partition", c_void_p),  # @24
        ("infer_sharding", c_void_p),  # @32
        ("propagate_user_sharding", c_void_p),  # @40
        ("can_side_effecting_have_replicated_sharding", c_bool),  # @48
    ]


class PJRT_Register_Custom_Partitioner_Args(PjrtStruct):
    _fields_ = [
        ("struct_size", c_size_t),  # @0 (no extension_start)
        ("name", c_void_p),  # @8
        ("name_size", c_size_t),  # @16
        ("callbacks", c_void_p),  # @24 JAX_CustomCallPartitioner_Callbacks*
    ]


class PJRT_Register_Batch_Partitionable_Args(PjrtStruct):
    _fields_ = [
        ("struct_size", c_size_t),  # @0 (no extension_start)
        ("name", c_void_p),  # @8
        ("name_size", c_size_t),  # @16
    ]


finalize_struct_sizes(globals())
