"""The function tables of extension types the suite checks for structure only (no plugin it runs advertises them
with semantics it can exercise black-box, or another module owns their calls): PJRT_Extension_Base, then one
pointer per function, as the headers lay them out (xla/pjrt/c/pjrt_c_api_*_extension.h, xla/pjrt/extensions/)."""
from __future__ import annotations

from ctypes import c_void_p
from typing import Sequence

from pjrt_cts.abi.base import PjrtStruct, finalize_struct_sizes
from pjrt_cts.abi.structs import PJRT_Extension_Base


def function_table(name: str, members: Sequence[str]) -> type[PjrtStruct]:
    """A struct `name`: PJRT_Extension_Base `base` at 0, then a pointer per member from offset 24."""
    fields = [("base", PJRT_Extension_Base)] + [(member, c_void_p) for member in members]
    return type(name, (PjrtStruct,), {"_fields_": fields})


PJRT_Triton_Extension = function_table("PJRT_Triton_Extension", ["compile"])
PJRT_RawBuffer_Extension = function_table("PJRT_RawBuffer_Extension", [
    "PJRT_RawBuffer_CreateRawAliasOfBuffer", "PJRT_RawBuffer_Destroy", "PJRT_RawBuffer_GetOnDeviceSizeInBytes",
    "PJRT_RawBuffer_GetMemorySpace", "PJRT_RawBuffer_CopyRawHostToDevice", "PJRT_RawBuffer_CopyRawDeviceToHost",
    "PJRT_RawBuffer_GetHostPointer",  # version 2
])
PJRT_Example_Extension = function_table("PJRT_Example_Extension", ["example_method", "create", "destroy"])
PJRT_CrossHostTransfers_Extension = function_table("PJRT_CrossHostTransfers_Extension", [
    "PJRT_Transfers_PJRT_Client_MakeCrossHostReceiveBuffers", "PJRT_Transfers_PJRT_Buffer_CopyToRemoteDevice",
    "PJRT_Transfers_PJRT_Client_CrossHostReceiveBuffers", "PJRT_Transfers_PJRT_Client_CrossHostSendBuffers",
])
PJRT_ExecutableMetadata_Extension = function_table(
    "PJRT_ExecutableMetadata_Extension", ["get_executable_metadata", "destroy_serialized_metadata"])
PJRT_Callback_Extension = function_table("PJRT_Callback_Extension", ["register_callback", "invoke_callback"])
# Deprecated and removed from XLA in July 2026 (HOST_MEMORY_ALLOCATOR replaces it); plugins built before may list it.
PJRT_HostAllocator_Extension = function_table(
    "PJRT_HostAllocator_Extension", ["get_preferred_alignment", "allocate", "free"])
PJRT_TpuTopology_Extension = function_table("PJRT_TpuTopology_Extension", [
    "subslice", "is_subslice_topology", "subslice_device_id_from_full_device_id", "replace_host_bounds",
    "is_enhanced_barrier_enabled", "has_limited_ici_connectivity", "is_reachable_over_limited_ici", "process_count",
    "chips_per_process", "core_count_per_chip", "chip_count", "core_count", "logical_device_count_per_process",
    "logical_device_count", "logical_device_count_per_chip", "core_count_per_process", "process_ids",
    "logical_device_ids_on_process", "proc_id_and_idx_on_proc_for_chip", "proc_id_and_idx_on_proc_for_logi_device",
    "process_coord_from_id", "chip_id_from_coord", "logical_device_id_from_chip_coord_and_idx",
    "chip_coord_and_idx_for_logi_device", "chips_per_process_bounds", "chip_bounds", "process_bounds",
    "get_routing_strategy", "get_slice_config", "get_slice_configs", "get_default_platform_config",
])
PJRT_TpuExecutable_Extension = function_table("PJRT_TpuExecutable_Extension", [
    "get_target_arguments", "get_hlo_module_with_config", "get_core_program_abi_version",  # deprecated: may be NULL
    "get_compiled_memory_stats", "run_hlo_cost_analysis", "set_tpu_compilation_env",
    "get_tpu_compilation_env_field_as_string", "is_tpu_predetermined_error", "is_tpu_cancellation_placeholder_error",
])
MEGASCALE_DEPRECATED = ("delete_multi_slice_config", "multi_slice_config_num_slices", "multi_slice_config_slice_id",
                        "multi_slice_config_get_num_devices_per_slice", "multi_slice_config_serialize")
PJRT_Megascale_Extension = function_table("PJRT_Megascale_Extension", [
    "create_client_context_from_pjrt_client", "create_default_client_context", "delete_client_context",
    "create_aot_config", "create_multi_slice_config", *MEGASCALE_DEPRECATED, "client_context_initialize",
    "client_context_unblock_pending_work", "client_context_megascale_port", "create_megascale_collectives",
    "device_id_to_megascale_id", "megascale_id_to_device_id", "register_megascale_error_handler",
    "unregister_megascale_error_handler", "error_aggregator_create", "error_aggregator_delete", "error_digest_delete",
    "error_aggregator_add_error", "error_aggregator_process_and_shutdown", "error_aggregator_log_error_digest",
    "error_aggregator_size", "error_aggregator_active", "get_interface_addresses_helper",
    "get_or_create_runtime_error",
])
PJRT_Collectives_Extension = function_table("PJRT_Collectives_Extension", [
    "collectives_destroy", "collectives_create_communicators", "communicator_destroy", "communicator_all_reduce",
    "communicator_reduce_scatter", "communicator_all_gather", "communicator_collective_permute",
    "communicator_all_to_all", "communicator_to_string",
])
PJRT_MultiSlice_Extension = function_table("PJRT_MultiSlice_Extension", [
    "config_destroy", "config_num_slices", "config_slice_id", "config_num_devices_per_slice", "config_serialize"])
PJRT_HostMemoryAllocator_Extension = function_table("PJRT_HostMemoryAllocator_Extension", ["allocate"])

finalize_struct_sizes(globals())
