"""PJRT_AbiVersion_Extension (xla/pjrt/c/pjrt_c_api_abi_version_extension.h, extension version 1): the runtime's
and an executable's ABI versions, their compatibility, platform ids and proto round trips.

Every args struct has `struct_size` but no `extension_start` (a header irregularity)."""
from __future__ import annotations

from ctypes import c_size_t, c_uint64, c_void_p

from pjrt_cts.abi.base import PjrtStruct, finalize_struct_sizes
from pjrt_cts.abi.structs import PJRT_Extension_Base


class PJRT_AbiVersion_Extension(PjrtStruct):
    _fields_ = [
        ("base", PJRT_Extension_Base),  # @0
        ("client_runtime_abi_version", c_void_p),  # @24
        ("executable_get_abi_version", c_void_p),  # @32
        ("runtime_abi_version_destroy", c_void_p),  # @40
        ("runtime_abi_version_is_compatible_with_runtime", c_void_p),  # @48
        ("runtime_abi_version_is_compatible_with_executable", c_void_p),  # @56
        ("runtime_abi_version_to_proto", c_void_p),  # @64
        ("runtime_abi_version_platform_id", c_void_p),  # @72
        ("executable_abi_version_destroy", c_void_p),  # @80
        ("executable_abi_version_to_proto", c_void_p),  # @88
        ("executable_abi_version_platform_id", c_void_p),  # @96
        ("runtime_abi_version_from_proto", c_void_p),  # @104
        ("executable_abi_version_from_proto", c_void_p),  # @112
    ]


class PJRT_Client_RuntimeAbiVersion_Args(PjrtStruct):
    _fields_ = [("struct_size", c_size_t), ("client", c_void_p), ("abi_version", c_void_p)]  # out @16


class PJRT_Executable_GetAbiVersion_Args(PjrtStruct):
    _fields_ = [("struct_size", c_size_t), ("executable", c_void_p), ("abi_version", c_void_p)]  # out @16


class PJRT_AbiVersion_Destroy_Args(PjrtStruct):
    """PJRT_RuntimeAbiVersion_Destroy_Args and PJRT_ExecutableAbiVersion_Destroy_Args (identical layouts)."""

    _fields_ = [("struct_size", c_size_t), ("abi_version", c_void_p)]


class PJRT_RuntimeAbiVersion_IsCompatibleWithRuntime_Args(PjrtStruct):
    _fields_ = [("struct_size", c_size_t), ("abi_version", c_void_p), ("other_abi_version", c_void_p)]


class PJRT_RuntimeAbiVersion_IsCompatibleWithExecutable_Args(PjrtStruct):
    _fields_ = [("struct_size", c_size_t), ("abi_version", c_void_p), ("executable_abi_version", c_void_p)]


class PJRT_AbiVersion_ToProto_Args(PjrtStruct):
    """PJRT_RuntimeAbiVersion_ToProto_Args and PJRT_ExecutableAbiVersion_ToProto_Args (identical layouts)."""

    _fields_ = [
        ("struct_size", c_size_t),  # @0
        ("abi_version", c_void_p),  # @8
        ("serialized_proto", c_void_p),  # @16 out
        ("serialized_proto_size", c_size_t),  # @24 out
        ("serialized_proto_holder", c_void_p),  # @32 out
        ("serialized_proto_deleter", c_void_p),  # @40 out: void (*)(PJRT_SerializedProto*)
    ]


class PJRT_AbiVersion_PlatformId_Args(PjrtStruct):
    """PJRT_RuntimeAbiVersion_PlatformId_Args and PJRT_ExecutableAbiVersion_PlatformId_Args."""

    _fields_ = [("struct_size", c_size_t), ("abi_version", c_void_p), ("platform_id", c_uint64)]


class PJRT_AbiVersion_FromProto_Args(PjrtStruct):
    """PJRT_RuntimeAbiVersion_FromProto_Args and PJRT_ExecutableAbiVersion_FromProto_Args."""

    _fields_ = [
        ("struct_size", c_size_t),  # @0
        ("serialized_proto", c_void_p),  # @8
        ("serialized_proto_size", c_size_t),  # @16
        ("abi_version", c_void_p),  # @24 out
    ]


finalize_struct_sizes(globals())
