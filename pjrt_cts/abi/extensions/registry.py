"""Every PJRT_Extension_Type the suite knows: its struct, the struct_size of its first published version, and
the functions inside it (which the header lets be NULL, which return nothing), as the headers of openxla/xla
define them (0.114; facts checked against the headers, see tests/abi/test_extension_declarations.py).

`first published` counts from the layout that starts with PJRT_Extension_Base (struct_size first, PJRT C API
0.45, Feb 2024): an older plugin's extension has no struct_size to check. A function is named as calls, blocks and
call accounting name it, `EXTENSION.name` (`LAYOUTS.Client_GetDefaultLayout`): the struct member without the
extension's own prefix.

PYTEST_DONT_REWRITE: its asserts stay as written (tests/house/test_asserts_as_written.py says why).
"""
from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Sequence

from pjrt_cts.abi.base import PjrtStruct
from pjrt_cts.abi.enums import ExtensionType
from pjrt_cts.abi.extensions import (abi_version, custom_partitioner, ffi, function_tables, gpu_custom_call, layouts,
                                     memory_descriptions, phase_compile, profiler, shardings, stream, xla_transform)
from pjrt_cts.abi.structs import PJRT_Extension_Base

_HEADERS = "https://github.com/openxla/xla/blob/main/xla/pjrt/"


@dataclass(frozen=True)
class ExtensionFunction:
    name: str  # `EXTENSION.name` in calls and call accounting
    member: str  # the struct member holding the pointer
    offset: int
    void: bool = False  # returns nothing (no PJRT_Error*)
    optional: bool = False  # the header lets it be NULL (deprecated members)


@dataclass(frozen=True)
class ExtensionSpec:
    extension: ExtensionType
    struct: type[PjrtStruct]
    first_size: int  # struct_size of the first published version (with struct_size first)
    functions: tuple[ExtensionFunction, ...]
    header: str  # URL of the header that defines it

    @property
    def name(self) -> str:
        return self.extension.name

    @property
    def size(self) -> int:
        """struct_size of the newest version the suite mirrors."""
        return int(self.struct.STRUCT_SIZE)

    def function(self, name: str) -> ExtensionFunction:
        for function in self.functions:
            if function.name == name:
                return function
        raise KeyError(f"{self.name} has no function {name!r}; it has {[f.name for f in self.functions]}")

    def covered(self, struct_size: int) -> tuple[ExtensionFunction, ...]:
        """The functions a struct of `struct_size` bytes holds (a plugin of an older version has fewer)."""
        return tuple(f for f in self.functions if f.offset + ctypes.sizeof(ctypes.c_void_p) <= struct_size)


def _spec(extension: ExtensionType, struct: type[PjrtStruct], first_member: str, header: str, *,
          strip: Sequence[str] = (), void: Sequence[str] = (), optional: Sequence[str] = (),
          data: Sequence[str] = ()) -> ExtensionSpec:
    """`first_member`: the last member of the first published version; `strip`: prefixes dropped from member names
    to name the functions; `data`: members that are no functions (a flag, an id, a pointer to another table)."""
    functions = []
    for member in (field[0] for field in struct._fields_[1:]):
        if member in data:
            continue
        name = member
        for prefix in strip:
            if name.startswith(prefix):
                name = name[len(prefix):]
                break
        functions.append(ExtensionFunction(name, member, int(getattr(struct, member).offset),
                                           void=member in void, optional=member in optional))
    descriptor = getattr(struct, first_member)
    return ExtensionSpec(extension, struct, int(descriptor.offset + descriptor.size), tuple(functions),
                         _HEADERS + header)


_T = function_tables
EXTENSIONS: dict[ExtensionType, ExtensionSpec] = {spec.extension: spec for spec in (
    _spec(ExtensionType.GPU_CUSTOM_CALL, gpu_custom_call.PJRT_Gpu_Custom_Call, "custom_call",
          "c/pjrt_c_api_gpu_extension.h", data=["custom_call_handles_traits"]),
    _spec(ExtensionType.PROFILER, profiler.PJRT_Profiler_Extension, "profiler_api",
          "c/pjrt_c_api_profiler_extension.h", data=["traceme_context_id"]),
    _spec(ExtensionType.CUSTOM_PARTITIONER, custom_partitioner.PJRT_Custom_Partitioner_Extension,
          "register_custom_partitioner", "c/pjrt_c_api_custom_partitioner_extension.h"),
    _spec(ExtensionType.STREAM, stream.PJRT_Stream_Extension, "wait_stream", "c/pjrt_c_api_stream_extension.h"),
    _spec(ExtensionType.LAYOUTS, layouts.PJRT_Layouts_Extension, "PJRT_Layouts_PJRT_Buffer_MemoryLayout",
          "c/pjrt_c_api_layouts_extension.h", strip=["PJRT_Layouts_PJRT_", "PJRT_Layouts_"]),
    # The FFI table has had today's order since extension version 2 (June 2024: type id registration, user data).
    _spec(ExtensionType.FFI, ffi.PJRT_FFI_Extension, "user_data_add", "c/pjrt_c_api_ffi_extension.h"),
    _spec(ExtensionType.MEMORY_DESCRIPTIONS, memory_descriptions.PJRT_MemoryDescriptions_Extension,
          "PJRT_MemoryDescription_Kind", "c/pjrt_c_api_memory_descriptions_extension.h", strip=["PJRT_"]),
    _spec(ExtensionType.TRITON, _T.PJRT_Triton_Extension, "compile", "c/pjrt_c_api_triton_extension.h"),
    _spec(ExtensionType.RAW_BUFFER, _T.PJRT_RawBuffer_Extension, "PJRT_RawBuffer_CopyRawDeviceToHost",
          "c/pjrt_c_api_raw_buffer_extension.h", strip=["PJRT_RawBuffer_"]),
    _spec(ExtensionType.PHASE_COMPILE, phase_compile.PJRT_PhaseCompile_Extension, "phase_compile_get_phase_names",
          "c/pjrt_c_api_phase_compile_extension.h", strip=["phase_compile_"],
          void=["phase_compile_destroy_compiler", "phase_compile_c_buffers_destroy"]),
    _spec(ExtensionType.EXAMPLE, _T.PJRT_Example_Extension, "destroy", "extensions/example/example_extension.h"),
    _spec(ExtensionType.CROSS_HOST_TRANSFERS, _T.PJRT_CrossHostTransfers_Extension,
          "PJRT_Transfers_PJRT_Buffer_CopyToRemoteDevice",
          "extensions/cross_host_transfers/pjrt_c_api_cross_host_transfers_extension.h",
          strip=["PJRT_Transfers_PJRT_"], void=["PJRT_Transfers_PJRT_Buffer_CopyToRemoteDevice"]),
    _spec(ExtensionType.EXECUTABLE_METADATA, _T.PJRT_ExecutableMetadata_Extension, "destroy_serialized_metadata",
          "extensions/executable_metadata/executable_metadata_extension.h", void=["destroy_serialized_metadata"]),
    _spec(ExtensionType.CALLBACK, _T.PJRT_Callback_Extension, "invoke_callback", "c/pjrt_c_api_callback_extension.h"),
    _spec(ExtensionType.HOST_ALLOCATOR, _T.PJRT_HostAllocator_Extension, "free",
          "extensions/host_allocator/host_allocator_extension.h (removed July 2026)", void=["free"]),
    _spec(ExtensionType.TPU_TOPOLOGY, _T.PJRT_TpuTopology_Extension, "process_bounds",
          "c/pjrt_c_api_tpu_topology_extension.h"),
    _spec(ExtensionType.TPU_EXECUTABLE, _T.PJRT_TpuExecutable_Extension, "get_hlo_module_with_config",
          "c/pjrt_c_api_tpu_executable_extension.h", optional=["get_core_program_abi_version"]),
    _spec(ExtensionType.MEGASCALE, _T.PJRT_Megascale_Extension, "delete_multi_slice_config",
          "c/pjrt_c_api_megascale_extension.h", optional=_T.MEGASCALE_DEPRECATED),
    _spec(ExtensionType.SHARDINGS, shardings.PJRT_Shardings_Extension,
          "PJRT_Shardings_PJRT_Executable_OutputShardings", "c/pjrt_c_api_shardings_extension.h",
          strip=["PJRT_Shardings_PJRT_"]),
    _spec(ExtensionType.ABI_VERSION, abi_version.PJRT_AbiVersion_Extension, "executable_abi_version_from_proto",
          "c/pjrt_c_api_abi_version_extension.h"),
    _spec(ExtensionType.COLLECTIVES, _T.PJRT_Collectives_Extension, "communicator_to_string",
          "c/pjrt_c_api_collectives_extension.h"),
    _spec(ExtensionType.MULTI_SLICE, _T.PJRT_MultiSlice_Extension, "config_serialize",
          "c/pjrt_c_api_multi_slice_extension.h"),
    _spec(ExtensionType.HOST_MEMORY_ALLOCATOR, _T.PJRT_HostMemoryAllocator_Extension, "allocate",
          "extensions/host_memory_allocator/host_memory_allocator_extension.h"),
    _spec(ExtensionType.XLA_TRANSFORM, xla_transform.PJRT_Xla_Transform_Extension, "register_xla_transform",
          "c/pjrt_c_api_xla_transform_extension.h",
          void=["destroy_hlo_pass_pipeline_trace"]),
)}
# PJRT_Extension_Type_Unknown names no struct: any link of at least PJRT_Extension_Base is well formed.
BASE_ONLY: frozenset[ExtensionType] = frozenset({ExtensionType.UNKNOWN})
assert set(EXTENSIONS) | BASE_ONLY == set(ExtensionType), "every PJRT_Extension_Type has a spec"
assert all(spec.first_size >= PJRT_Extension_Base.STRUCT_SIZE for spec in EXTENSIONS.values())
