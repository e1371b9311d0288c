"""ctypes mirrors of every PJRT C API struct at header minor 0.114 (x86-64).

Field order and types follow pjrt_c_api.h as recorded in the project's ABI reference (Appendix A).
`STRUCT_SIZE` is the header's PJRT_STRUCT_SIZE (offset + size of the last field), not ctypes.sizeof.
`_since_` marks structs added after the 0.57 base layout; `_field_since_` marks trailing fields added later.
Declarations only: no behaviour lives here.
"""
from __future__ import annotations

from ctypes import Union, c_bool, c_char_p, c_float, c_int, c_int32, c_int64, c_size_t, c_ssize_t, c_uint64, c_void_p

from pjrt_cts.abi.base import HEADER, PjrtStruct, RawStruct, finalize_struct_sizes

class PJRT_Extension_Base(PjrtStruct):
    _fields_ = [
        ("struct_size", c_size_t),  # @0
        ("type", c_int),  # @8
        ("next", c_void_p),  # @16
    ]


class PJRT_Api_Version(PjrtStruct):
    _fields_ = HEADER + [
        ("major_version", c_int),  # @16
        ("minor_version", c_int),  # @20
    ]


class PJRT_Error_Destroy_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("error", c_void_p),  # @16
    ]


class PJRT_Error_Message_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("error", c_void_p),  # @16
        ("message", c_void_p),  # @24
        ("message_size", c_size_t),  # @32
    ]


class PJRT_Error_FunctionTable(PjrtStruct):
    _since_ = 107
    _fields_ = [
        ("struct_size", c_size_t),  # @0
        ("instance_size", c_size_t),  # @8
        ("extension_start", c_void_p),  # @16
        ("destroy", c_void_p),  # @24
        ("message", c_void_p),  # @32
        ("get_code", c_void_p),  # @40
        ("for_each_payload", c_void_p),  # @48
    ]


class PJRT_Error(PjrtStruct):
    _since_ = 107
    _fields_ = [
        ("vtable", c_void_p),  # @0
    ]


class PJRT_Error_GetCode_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("error", c_void_p),  # @16
        ("code", c_int),  # @24
    ]


class PJRT_Error_ForEachPayload_Args(PjrtStruct):
    _since_ = 99
    _fields_ = HEADER + [
        ("error", c_void_p),  # @16
        ("visitor", c_void_p),  # @24
        ("user_arg", c_void_p),  # @32
    ]


class _NamedValueUnion(Union):
    _fields_ = [
        ("string_value", c_char_p),
        ("int64_value", c_int64),
        ("int64_array_value", c_void_p),
        ("float_value", c_float),
        ("bool_value", c_bool),
    ]


class PJRT_NamedValue(PjrtStruct):
    _anonymous_ = ("value",)
    _fields_ = HEADER + [
        ("name", c_void_p),  # @16
        ("name_size", c_size_t),  # @24
        ("type", c_int),  # @32
        ("value", _NamedValueUnion),  # @40
        ("value_size", c_size_t),  # @48
    ]


class PJRT_Plugin_Initialize_Args(PjrtStruct):
    _fields_ = HEADER + [
    ]


class PJRT_Plugin_Attributes_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("attributes", c_void_p),  # @16
        ("num_attributes", c_size_t),  # @24
    ]


class PJRT_Event_Destroy_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("event", c_void_p),  # @16
    ]


class PJRT_Event_IsReady_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("event", c_void_p),  # @16
        ("is_ready", c_bool),  # @24
    ]


class PJRT_Event_Error_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("event", c_void_p),  # @16
    ]


class PJRT_Event_Await_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("event", c_void_p),  # @16
    ]


class PJRT_Event_OnReady_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("event", c_void_p),  # @16
        ("callback", c_void_p),  # @24
        ("user_arg", c_void_p),  # @32
    ]


class PJRT_Event_Create_Args(PjrtStruct):
    _since_ = 89
    _fields_ = HEADER + [
        ("event", c_void_p),  # @16
    ]


class PJRT_Event_Set_Args(PjrtStruct):
    _since_ = 89
    _fields_ = HEADER + [
        ("event", c_void_p),  # @16
        ("error_code", c_int),  # @24
        ("error_message", c_void_p),  # @32
        ("error_message_size", c_size_t),  # @40
    ]


class PJRT_Memory_FunctionTable(PjrtStruct):
    _since_ = 105
    _fields_ = HEADER + [
        ("instance_struct_size", c_size_t),  # @16
        ("get_user_data", c_void_p),  # @24
        ("set_user_data", c_void_p),  # @32
    ]


class PJRT_Memory(PjrtStruct):
    _since_ = 105
    _fields_ = [
        ("vtable", c_void_p),  # @0
    ]


class PJRT_KeyValueGetCallback_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("key", c_void_p),  # @16
        ("key_size", c_size_t),  # @24
        ("timeout_in_ms", c_int),  # @32
        ("callback_error", c_void_p),  # @40
        ("user_arg", c_void_p),  # @48
        ("value", c_void_p),  # @56
        ("value_size", c_size_t),  # @64
        ("value_deleter_callback", c_void_p),  # @72
    ]


class PJRT_KeyValueTryGetCallback_Args(PjrtStruct):
    _since_ = 61
    _fields_ = HEADER + [
        ("key", c_void_p),  # @16
        ("key_size", c_size_t),  # @24
        ("callback_error", c_void_p),  # @32
        ("user_arg", c_void_p),  # @40
        ("value", c_void_p),  # @48
        ("value_size", c_size_t),  # @56
        ("value_deleter_callback", c_void_p),  # @64
    ]


class PJRT_KeyValuePutCallback_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("key", c_void_p),  # @16
        ("key_size", c_size_t),  # @24
        ("value", c_void_p),  # @32
        ("value_size", c_size_t),  # @40
        ("callback_error", c_void_p),  # @48
        ("user_arg", c_void_p),  # @56
    ]


class PJRT_Client_Create_Args(PjrtStruct):
    _field_since_ = {'kv_try_get_callback': 61, 'kv_try_get_user_arg': 61}
    _fields_ = HEADER + [
        ("create_options", c_void_p),  # @16
        ("num_options", c_size_t),  # @24
        ("kv_get_callback", c_void_p),  # @32
        ("kv_get_user_arg", c_void_p),  # @40
        ("kv_put_callback", c_void_p),  # @48
        ("kv_put_user_arg", c_void_p),  # @56
        ("client", c_void_p),  # @64
        ("kv_try_get_callback", c_void_p),  # @72
        ("kv_try_get_user_arg", c_void_p),  # @80
    ]


class PJRT_Client_Destroy_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("client", c_void_p),  # @16
    ]


class PJRT_Client_PlatformName_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("client", c_void_p),  # @16
        ("platform_name", c_void_p),  # @24
        ("platform_name_size", c_size_t),  # @32
    ]


class PJRT_Client_ProcessIndex_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("client", c_void_p),  # @16
        ("process_index", c_int),  # @24
    ]


class PJRT_Client_PlatformVersion_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("client", c_void_p),  # @16
        ("platform_version", c_void_p),  # @24
        ("platform_version_size", c_size_t),  # @32
    ]


class PJRT_Client_TopologyDescription_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("client", c_void_p),  # @16
        ("topology", c_void_p),  # @24
    ]


class PJRT_Client_Devices_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("client", c_void_p),  # @16
        ("devices", c_void_p),  # @24
        ("num_devices", c_size_t),  # @32
    ]


class PJRT_Client_AddressableDevices_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("client", c_void_p),  # @16
        ("addressable_devices", c_void_p),  # @24
        ("num_addressable_devices", c_size_t),  # @32
    ]


class PJRT_Client_LookupDevice_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("client", c_void_p),  # @16
        ("id", c_int),  # @24
        ("device", c_void_p),  # @32
    ]


class PJRT_Client_LookupAddressableDevice_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("client", c_void_p),  # @16
        ("local_hardware_id", c_int),  # @24
        ("addressable_device", c_void_p),  # @32
    ]


class PJRT_ProcessInfo(PjrtStruct):
    _since_ = 73
    _fields_ = [
        ("struct_size", c_size_t),  # @0
        ("task_id", c_int),  # @8
        ("incarnation_id", c_uint64),  # @16
        ("state", c_int),  # @24
        ("error_code", c_int),  # @28
        ("error_message", c_void_p),  # @32
        ("error_message_size", c_size_t),  # @40
    ]


class PJRT_Client_UpdateGlobalProcessInfo_Args(PjrtStruct):
    _since_ = 73
    _fields_ = HEADER + [
        ("client", c_void_p),  # @16
        ("process_infos", c_void_p),  # @24
        ("num_process_infos", c_size_t),  # @32
    ]


class PJRT_Client_AddressableMemories_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("client", c_void_p),  # @16
        ("addressable_memories", c_void_p),  # @24
        ("num_addressable_memories", c_size_t),  # @32
    ]


class PJRT_Program(PjrtStruct):
    _fields_ = HEADER + [
        ("code", c_void_p),  # @16
        ("code_size", c_size_t),  # @24
        ("format", c_void_p),  # @32
        ("format_size", c_size_t),  # @40
    ]


class PJRT_Client_Compile_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("client", c_void_p),  # @16
        ("program", c_void_p),  # @24
        ("compile_options", c_void_p),  # @32
        ("compile_options_size", c_size_t),  # @40
        ("executable", c_void_p),  # @48
    ]


class PJRT_Client_Load_Args(PjrtStruct):
    _since_ = 95
    _fields_ = HEADER + [
        ("client", c_void_p),  # @16
        ("executable", c_void_p),  # @24
        ("compile_options", c_void_p),  # @32
        ("compile_options_size", c_size_t),  # @40
        ("loaded_executable", c_void_p),  # @48
    ]


class PJRT_Client_DefaultDeviceAssignment_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("client", c_void_p),  # @16
        ("num_replicas", c_int),  # @24
        ("num_partitions", c_int),  # @28
        ("default_assignment_size", c_size_t),  # @32
        ("default_assignment", c_void_p),  # @40
    ]


class PJRT_Client_DmaMap_Args(PjrtStruct):
    _since_ = 67
    _fields_ = HEADER + [
        ("client", c_void_p),  # @16
        ("data", c_void_p),  # @24
        ("size", c_size_t),  # @32
    ]


class PJRT_Client_DmaUnmap_Args(PjrtStruct):
    _since_ = 67
    _fields_ = HEADER + [
        ("client", c_void_p),  # @16
        ("data", c_void_p),  # @24
    ]


class PJRT_AsyncHostToDeviceTransferManager_Destroy_Args(PjrtStruct):
    _since_ = 60
    _fields_ = HEADER + [
        ("transfer_manager", c_void_p),  # @16
    ]


class PJRT_AsyncHostToDeviceTransferManager_TransferData_Args(PjrtStruct):
    _since_ = 60
    _fields_ = HEADER + [
        ("transfer_manager", c_void_p),  # @16
        ("buffer_index", c_int),  # @24
        ("data", c_void_p),  # @32
        ("offset", c_int64),  # @40
        ("transfer_size", c_int64),  # @48
        ("is_last_transfer", c_bool),  # @56
        ("done_with_h2d_transfer", c_void_p),  # @64
    ]


class PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args(PjrtStruct):
    _since_ = 62
    _fields_ = HEADER + [
        ("transfer_manager", c_void_p),  # @16
        ("buffer_index", c_int),  # @24
        ("buffer_out", c_void_p),  # @32
    ]


class PJRT_AsyncHostToDeviceTransferManager_Device_Args(PjrtStruct):
    _since_ = 62
    _fields_ = HEADER + [
        ("transfer_manager", c_void_p),  # @16
        ("device_out", c_void_p),  # @24
    ]


class PJRT_AsyncHostToDeviceTransferManager_BufferCount_Args(PjrtStruct):
    _since_ = 62
    _fields_ = HEADER + [
        ("transfer_manager", c_void_p),  # @16
        ("buffer_count", c_size_t),  # @24
    ]


class PJRT_AsyncHostToDeviceTransferManager_BufferSize_Args(PjrtStruct):
    _since_ = 62
    _fields_ = HEADER + [
        ("transfer_manager", c_void_p),  # @16
        ("buffer_index", c_int),  # @24
        ("buffer_size", c_size_t),  # @32
    ]


class PJRT_AsyncHostToDeviceTransferManager_SetBufferError_Args(PjrtStruct):
    _since_ = 62
    _fields_ = HEADER + [
        ("transfer_manager", c_void_p),  # @16
        ("buffer_index", c_int),  # @24
        ("error_code", c_int),  # @28
        ("error_message", c_void_p),  # @32
        ("error_message_size", c_size_t),  # @40
    ]


class PJRT_AsyncHostToDeviceTransferManager_AddMetadata_Args(PjrtStruct):
    _since_ = 62
    _fields_ = HEADER + [
        ("transfer_manager", c_void_p),  # @16
        ("transfer_metadata", c_void_p),  # @24
        ("num_metadata", c_size_t),  # @32
    ]


class PJRT_Buffer_MemoryLayout_Tiled(PjrtStruct):
    _fields_ = HEADER + [
        ("minor_to_major", c_void_p),  # @16
        ("minor_to_major_size", c_size_t),  # @24
        ("tile_dims", c_void_p),  # @32
        ("tile_dim_sizes", c_void_p),  # @40
        ("num_tiles", c_size_t),  # @48
    ]


class PJRT_Buffer_MemoryLayout_Strides(PjrtStruct):
    _fields_ = HEADER + [
        ("byte_strides", c_void_p),  # @16
        ("num_byte_strides", c_size_t),  # @24
    ]


class _MemoryLayoutUnion(Union):
    _fields_ = [
        ("tiled", PJRT_Buffer_MemoryLayout_Tiled),
        ("strides", PJRT_Buffer_MemoryLayout_Strides),
    ]


class PJRT_Buffer_MemoryLayout(PjrtStruct):
    _anonymous_ = ("layout",)  # the header's union is anonymous: `tiled` and `strides` are members of the struct
    _fields_ = HEADER + [
        ("layout", _MemoryLayoutUnion),  # @16
        ("type", c_int),  # @72
    ]


class PJRT_AsyncHostToDeviceTransferManager_TransferLiteral_Args(PjrtStruct):
    _since_ = 83
    _fields_ = HEADER + [
        ("transfer_manager", c_void_p),  # @16
        ("buffer_index", c_int),  # @24
        ("data", c_void_p),  # @32
        ("shape_dims", c_void_p),  # @40
        ("shape_num_dims", c_size_t),  # @48
        ("shape_element_type", c_int),  # @56
        ("shape_layout", c_void_p),  # @64
        ("done_with_h2d_transfer", c_void_p),  # @72
    ]


class PJRT_Client_CreateUninitializedBuffer_Args(PjrtStruct):
    _since_ = 68
    _fields_ = HEADER + [
        ("client", c_void_p),  # @16
        ("shape_dims", c_void_p),  # @24
        ("shape_num_dims", c_size_t),  # @32
        ("shape_element_type", c_int),  # @40
        ("shape_layout", c_void_p),  # @48
        ("device", c_void_p),  # @56
        ("memory", c_void_p),  # @64
        ("buffer", c_void_p),  # @72
    ]


class PJRT_Client_CreateErrorBuffer_Args(PjrtStruct):
    _since_ = 82
    _field_since_ = {'payload': 103, 'num_payload': 103}
    _fields_ = HEADER + [
        ("client", c_void_p),  # @16
        ("error_code", c_int),  # @24
        ("error_message", c_void_p),  # @32
        ("error_message_size", c_size_t),  # @40
        ("shape_dims", c_void_p),  # @48
        ("shape_num_dims", c_size_t),  # @56
        ("shape_element_type", c_int),  # @64
        ("shape_layout", c_void_p),  # @72
        ("memory", c_void_p),  # @80
        ("buffer", c_void_p),  # @88
        ("payload", c_void_p),  # @96
        ("num_payload", c_size_t),  # @104
    ]


class PJRT_Client_CreateAliasBuffer_Args(PjrtStruct):
    _since_ = 77
    _fields_ = HEADER + [
        ("client", c_void_p),  # @16
        ("memory", c_void_p),  # @24
        ("shape_dims", c_void_p),  # @32
        ("shape_num_dims", c_size_t),  # @40
        ("shape_element_type", c_int),  # @48
        ("shape_layout", c_void_p),  # @56
        ("alias_buffer", c_void_p),  # @64
        ("fulfill_alias_buffer_cb", c_void_p),  # @72
    ]


class PJRT_Client_FulfillAliasBuffer_Args(PjrtStruct):
    _since_ = 77
    _fields_ = HEADER + [
        ("client", c_void_p),  # @16
        ("buffer", c_void_p),  # @24
        ("status_code", c_int),  # @32
        ("error_message", c_void_p),  # @40
        ("error_message_size", c_size_t),  # @48
        ("fulfill_alias_buffer_cb", c_void_p),  # @56
    ]


class PJRT_Client_BufferFromHostBuffer_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("client", c_void_p),  # @16
        ("data", c_void_p),  # @24
        ("type", c_int),  # @32
        ("dims", c_void_p),  # @40
        ("num_dims", c_size_t),  # @48
        ("byte_strides", c_void_p),  # @56
        ("num_byte_strides", c_size_t),  # @64
        ("host_buffer_semantics", c_int),  # @72
        ("device", c_void_p),  # @80
        ("memory", c_void_p),  # @88
        ("device_layout", c_void_p),  # @96
        ("done_with_host_buffer", c_void_p),  # @104
        ("buffer", c_void_p),  # @112
    ]


class PJRT_Client_CreateViewOfDeviceBuffer_Args(PjrtStruct):
    _field_since_ = {'memory': 66}
    _fields_ = HEADER + [
        ("client", c_void_p),  # @16
        ("device_buffer_ptr", c_void_p),  # @24
        ("dims", c_void_p),  # @32
        ("num_dims", c_size_t),  # @40
        ("element_type", c_int),  # @48
        ("layout", c_void_p),  # @56
        ("device", c_void_p),  # @64
        ("on_delete_callback", c_void_p),  # @72
        ("on_delete_callback_arg", c_void_p),  # @80
        ("stream", c_ssize_t),  # @88
        ("buffer", c_void_p),  # @96
        ("memory", c_void_p),  # @104
    ]


class PJRT_ShapeSpec(PjrtStruct):
    _since_ = 60
    _fields_ = HEADER + [
        ("dims", c_void_p),  # @16
        ("num_dims", c_size_t),  # @24
        ("element_type", c_int),  # @32
    ]


class PJRT_Client_CreateBuffersForAsyncHostToDevice_Args(PjrtStruct):
    _since_ = 60
    _fields_ = HEADER + [
        ("client", c_void_p),  # @16
        ("shape_specs", c_void_p),  # @24
        ("num_shape_specs", c_size_t),  # @32
        ("device_layouts", c_void_p),  # @40
        ("num_device_layouts", c_size_t),  # @48
        ("memory", c_void_p),  # @56
        ("transfer_manager", c_void_p),  # @64
    ]


class PJRT_DeviceDescription_Id_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("device_description", c_void_p),  # @16
        ("id", c_int),  # @24
    ]


class PJRT_DeviceDescription_ProcessIndex_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("device_description", c_void_p),  # @16
        ("process_index", c_int),  # @24
    ]


class PJRT_DeviceDescription_Attributes_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("device_description", c_void_p),  # @16
        ("num_attributes", c_size_t),  # @24
        ("attributes", c_void_p),  # @32
    ]


class PJRT_DeviceDescription_Kind_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("device_description", c_void_p),  # @16
        ("device_kind", c_void_p),  # @24
        ("device_kind_size", c_size_t),  # @32
    ]


class PJRT_DeviceDescription_DebugString_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("device_description", c_void_p),  # @16
        ("debug_string", c_void_p),  # @24
        ("debug_string_size", c_size_t),  # @32
    ]


class PJRT_DeviceDescription_ToString_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("device_description", c_void_p),  # @16
        ("to_string", c_void_p),  # @24
        ("to_string_size", c_size_t),  # @32
    ]


class PJRT_Device_GetDescription_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("device", c_void_p),  # @16
        ("device_description", c_void_p),  # @24
    ]


class PJRT_Device_IsAddressable_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("device", c_void_p),  # @16
        ("is_addressable", c_bool),  # @24
    ]


class PJRT_Device_LocalHardwareId_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("device", c_void_p),  # @16
        ("local_hardware_id", c_int),  # @24
    ]


class PJRT_Device_AddressableMemories_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("device", c_void_p),  # @16
        ("memories", c_void_p),  # @24
        ("num_memories", c_size_t),  # @32
    ]


class PJRT_Device_DefaultMemory_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("device", c_void_p),  # @16
        ("memory", c_void_p),  # @24
    ]


class PJRT_Device_MemoryStats_Args(PjrtStruct):
    _field_since_ = {'peak_allocated_bytes': 113, 'peak_allocated_bytes_is_set': 113}
    _fields_ = HEADER + [
        ("device", c_void_p),  # @16
        ("bytes_in_use", c_int64),  # @24
        ("peak_bytes_in_use", c_int64),  # @32
        ("peak_bytes_in_use_is_set", c_bool),  # @40
        ("num_allocs", c_int64),  # @48
        ("num_allocs_is_set", c_bool),  # @56
        ("largest_alloc_size", c_int64),  # @64
        ("largest_alloc_size_is_set", c_bool),  # @72
        ("bytes_limit", c_int64),  # @80
        ("bytes_limit_is_set", c_bool),  # @88
        ("bytes_reserved", c_int64),  # @96
        ("bytes_reserved_is_set", c_bool),  # @104
        ("peak_bytes_reserved", c_int64),  # @112
        ("peak_bytes_reserved_is_set", c_bool),  # @120
        ("bytes_reservable_limit", c_int64),  # @128
        ("bytes_reservable_limit_is_set", c_bool),  # @136
        ("largest_free_block_bytes", c_int64),  # @144
        ("largest_free_block_bytes_is_set", c_bool),  # @152
        ("pool_bytes", c_int64),  # @160
        ("pool_bytes_is_set", c_bool),  # @168
        ("peak_pool_bytes", c_int64),  # @176
        ("peak_pool_bytes_is_set", c_bool),  # @184
        ("peak_allocated_bytes", c_int64),  # @192
        ("peak_allocated_bytes_is_set", c_bool),  # @200
    ]


class PJRT_Device_ClearMemoryStats_Args(PjrtStruct):
    _since_ = 106
    _fields_ = HEADER + [
        ("device", c_void_p),  # @16
    ]


class PJRT_Device_PoisonExecution_Args(PjrtStruct):
    _since_ = 85
    _field_since_ = {'payload': 100, 'num_payload': 100}
    _fields_ = HEADER + [
        ("device", c_void_p),  # @16
        ("launch_id", c_int32),  # @24
        ("error_code", c_int),  # @28
        ("error_message", c_void_p),  # @32
        ("error_message_size", c_size_t),  # @40
        ("poisoned", c_bool),  # @48
        ("payload", c_void_p),  # @56
        ("num_payload", c_size_t),  # @64
    ]


class PJRT_Device_GetAttributes_Args(PjrtStruct):
    _since_ = 92
    _fields_ = HEADER + [
        ("device", c_void_p),  # @16
        ("attributes", c_void_p),  # @24
        ("num_attributes", c_size_t),  # @32
        ("device_attributes", c_void_p),  # @40
        ("attributes_deleter", c_void_p),  # @48
    ]


class PJRT_Device_CreateAsyncTrackingEvent_Args(PjrtStruct):
    _since_ = 86
    _fields_ = HEADER + [
        ("device", c_void_p),  # @16
        ("description", c_void_p),  # @24
        ("description_size", c_size_t),  # @32
        ("event", c_void_p),  # @40
    ]


class PJRT_AsyncTrackingEvent_Destroy_Args(PjrtStruct):
    _since_ = 86
    _fields_ = HEADER + [
        ("event", c_void_p),  # @16
    ]


class PJRT_Memory_Id_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("memory", c_void_p),  # @16
        ("id", c_int),  # @24
    ]


class PJRT_Memory_Kind_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("memory", c_void_p),  # @16
        ("kind", c_void_p),  # @24
        ("kind_size", c_size_t),  # @32
    ]


class PJRT_Memory_Kind_Id_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("memory", c_void_p),  # @16
        ("kind_id", c_int),  # @24
    ]


class PJRT_Memory_DebugString_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("memory", c_void_p),  # @16
        ("debug_string", c_void_p),  # @24
        ("debug_string_size", c_size_t),  # @32
    ]


class PJRT_Memory_ToString_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("memory", c_void_p),  # @16
        ("to_string", c_void_p),  # @24
        ("to_string_size", c_size_t),  # @32
    ]


class PJRT_Memory_AddressableByDevices_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("memory", c_void_p),  # @16
        ("devices", c_void_p),  # @24
        ("num_devices", c_size_t),  # @32
    ]


class PJRT_ExecuteContext_Create_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("context", c_void_p),  # @16
    ]


class PJRT_ExecuteContext_Destroy_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("context", c_void_p),  # @16
    ]


class PJRT_Executable_Destroy_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("executable", c_void_p),  # @16
    ]


class PJRT_LoadedExecutable_Destroy_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("executable", c_void_p),  # @16
    ]


class PJRT_LoadedExecutable_GetExecutable_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("loaded_executable", c_void_p),  # @16
        ("executable", c_void_p),  # @24
    ]


class PJRT_LoadedExecutable_GetDeviceAssignment_Args(PjrtStruct):
    _since_ = 79
    _fields_ = HEADER + [
        ("executable", c_void_p),  # @16
        ("serialized_bytes", c_void_p),  # @24
        ("serialized_bytes_size", c_size_t),  # @32
        ("serialized_device_assignment", c_void_p),  # @40
        ("serialized_device_assignment_deleter", c_void_p),  # @48
    ]


class PJRT_Executable_Name_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("executable", c_void_p),  # @16
        ("executable_name", c_void_p),  # @24
        ("executable_name_size", c_size_t),  # @32
    ]


class PJRT_Executable_NumReplicas_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("executable", c_void_p),  # @16
        ("num_replicas", c_size_t),  # @24
    ]


class PJRT_Executable_NumPartitions_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("executable", c_void_p),  # @16
        ("num_partitions", c_size_t),  # @24
    ]


class PJRT_LogicalDeviceIds(RawStruct):
    _since_ = 96  # with PJRT_LoadedExecutable_AddressableDeviceLogicalIds (absent from the 0.81 header)
    _fields_ = [
        ("replica", c_int),  # @0
        ("partition", c_int),  # @4
    ]


class PJRT_LoadedExecutable_AddressableDevices_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("executable", c_void_p),  # @16
        ("addressable_devices", c_void_p),  # @24
        ("num_addressable_devices", c_size_t),  # @32
    ]


class PJRT_LoadedExecutable_AddressableDeviceLogicalIds_Args(PjrtStruct):
    _since_ = 96
    _fields_ = HEADER + [
        ("executable", c_void_p),  # @16
        ("addressable_device_logical_ids", c_void_p),  # @24
        ("num_addressable_device_logical_ids", c_size_t),  # @32
    ]


class PJRT_Executable_OptimizedProgram_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("executable", c_void_p),  # @16
        ("program", c_void_p),  # @24
    ]


class PJRT_LoadedExecutable_Delete_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("executable", c_void_p),  # @16
    ]


class PJRT_LoadedExecutable_IsDeleted_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("executable", c_void_p),  # @16
        ("is_deleted", c_bool),  # @24
    ]


class PJRT_Chunk(RawStruct):
    _fields_ = [
        ("data", c_void_p),  # @0
        ("size", c_size_t),  # @8
        ("deleter", c_void_p),  # @16
        ("deleter_arg", c_void_p),  # @24
    ]


class PJRT_SendCallbackInfo(PjrtStruct):
    _fields_ = [
        ("channel_id", c_int64),  # @0
        ("user_arg", c_void_p),  # @8
        ("send_callback", c_void_p),  # @16
    ]


class PJRT_RecvCallbackInfo(PjrtStruct):
    _fields_ = [
        ("channel_id", c_int64),  # @0
        ("user_arg", c_void_p),  # @8
        ("recv_callback", c_void_p),  # @16
    ]


class PJRT_HloOutputCallbackInfo(PjrtStruct):
    _since_ = 112
    _fields_ = [
        ("user_arg", c_void_p),  # @0
        ("callback", c_void_p),  # @8
        ("callback_id", c_int64),  # @16
        ("num_operands", c_size_t),  # @24
    ]


class PJRT_ExecuteOptions(PjrtStruct):
    _field_since_ = {'context': 64, 'call_location': 76, 'num_tasks': 78, 'task_ids': 78, 'incarnation_ids': 78, 'multi_slice_config': 97, 'use_major_to_minor_data_layout_for_callbacks': 108, 'hlo_output_callbacks': 112, 'num_hlo_output_callbacks': 112}
    _fields_ = HEADER + [
        ("send_callbacks", c_void_p),  # @16
        ("recv_callbacks", c_void_p),  # @24
        ("num_send_ops", c_size_t),  # @32
        ("num_recv_ops", c_size_t),  # @40
        ("launch_id", c_int),  # @48
        ("non_donatable_input_indices", c_void_p),  # @56
        ("num_non_donatable_input_indices", c_size_t),  # @64
        ("context", c_void_p),  # @72
        ("call_location", c_void_p),  # @80
        ("num_tasks", c_size_t),  # @88
        ("task_ids", c_void_p),  # @96
        ("incarnation_ids", c_void_p),  # @104
        ("multi_slice_config", c_void_p),  # @112
        ("use_major_to_minor_data_layout_for_callbacks", c_bool),  # @120
        ("hlo_output_callbacks", c_void_p),  # @128
        ("num_hlo_output_callbacks", c_size_t),  # @136
    ]


class PJRT_LoadedExecutable_Execute_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("executable", c_void_p),  # @16
        ("options", c_void_p),  # @24
        ("argument_lists", c_void_p),  # @32
        ("num_devices", c_size_t),  # @40
        ("num_args", c_size_t),  # @48
        ("output_lists", c_void_p),  # @56
        ("device_complete_events", c_void_p),  # @64
        ("execute_device", c_void_p),  # @72
    ]


class PJRT_Executable_NumOutputs_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("executable", c_void_p),  # @16
        ("num_outputs", c_size_t),  # @24
    ]


class PJRT_Executable_SizeOfGeneratedCodeInBytes_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("executable", c_void_p),  # @16
        ("size_in_bytes", c_int64),  # @24
    ]


class PJRT_Executable_Fingerprint_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("executable", c_void_p),  # @16
        ("executable_fingerprint", c_void_p),  # @24
        ("executable_fingerprint_size", c_size_t),  # @32
    ]


class PJRT_Executable_GetCostAnalysis_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("executable", c_void_p),  # @16
        ("num_properties", c_size_t),  # @24
        ("properties", c_void_p),  # @32
    ]


class PJRT_Executable_GetCompiledMemoryStats_Args(PjrtStruct):
    _field_since_ = {'peak_memory_in_bytes': 72, 'total_size_in_bytes': 90, 'total_allocation_bytes': 104, 'indefinite_allocations': 104, 'peak_unpadded_heap_bytes': 104}
    _fields_ = HEADER + [
        ("executable", c_void_p),  # @16
        ("generated_code_size_in_bytes", c_int64),  # @24
        ("argument_size_in_bytes", c_int64),  # @32
        ("output_size_in_bytes", c_int64),  # @40
        ("alias_size_in_bytes", c_int64),  # @48
        ("temp_size_in_bytes", c_int64),  # @56
        ("host_generated_code_size_in_bytes", c_int64),  # @64
        ("host_argument_size_in_bytes", c_int64),  # @72
        ("host_output_size_in_bytes", c_int64),  # @80
        ("host_alias_size_in_bytes", c_int64),  # @88
        ("host_temp_size_in_bytes", c_int64),  # @96
        ("peak_memory_in_bytes", c_int64),  # @104
        ("total_size_in_bytes", c_int64),  # @112
        ("total_allocation_bytes", c_int64),  # @120
        ("indefinite_allocations", c_int64),  # @128
        ("peak_unpadded_heap_bytes", c_int64),  # @136
    ]


class PJRT_Executable_OutputElementTypes_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("executable", c_void_p),  # @16
        ("output_types", c_void_p),  # @24
        ("num_output_types", c_size_t),  # @32
    ]


class PJRT_Executable_OutputDimensions_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("executable", c_void_p),  # @16
        ("num_outputs", c_size_t),  # @24
        ("dims", c_void_p),  # @32
        ("dim_sizes", c_void_p),  # @40
    ]


class PJRT_Executable_ParameterMemoryKinds_Args(PjrtStruct):
    _since_ = 102
    _fields_ = HEADER + [
        ("executable", c_void_p),  # @16
        ("num_parameters", c_size_t),  # @24
        ("memory_kinds", c_void_p),  # @32
        ("memory_kind_sizes", c_void_p),  # @40
    ]


class PJRT_Executable_OutputMemoryKinds_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("executable", c_void_p),  # @16
        ("num_outputs", c_size_t),  # @24
        ("memory_kinds", c_void_p),  # @32
        ("memory_kind_sizes", c_void_p),  # @40
    ]


class PJRT_Executable_Serialize_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("executable", c_void_p),  # @16
        ("serialized_bytes", c_void_p),  # @24
        ("serialized_bytes_size", c_size_t),  # @32
        ("serialized_executable", c_void_p),  # @40
        ("serialized_executable_deleter", c_void_p),  # @48
    ]


class PJRT_Executable_GetCompileOptions_Args(PjrtStruct):
    _since_ = 87
    _fields_ = HEADER + [
        ("executable", c_void_p),  # @16
        ("serialized_bytes", c_void_p),  # @24
        ("serialized_bytes_size", c_size_t),  # @32
        ("serialized_compile_options", c_void_p),  # @40
        ("serialized_compile_options_deleter", c_void_p),  # @48
    ]


class PJRT_LoadOptions(PjrtStruct):
    _since_ = 111
    _fields_ = [
        ("struct_size", c_size_t),  # @0
        ("computation_origin", c_void_p),  # @8
        ("computation_origin_size", c_size_t),  # @16
        ("multi_slice_config", c_void_p),  # @24
    ]


class PJRT_Executable_DeserializeAndLoad_Args(PjrtStruct):
    _field_since_ = {'overridden_serialized_compile_options': 71, 'overridden_serialized_compile_options_size': 71, 'load_options': 111}
    _fields_ = HEADER + [
        ("client", c_void_p),  # @16
        ("serialized_executable", c_void_p),  # @24
        ("serialized_executable_size", c_size_t),  # @32
        ("loaded_executable", c_void_p),  # @40
        ("overridden_serialized_compile_options", c_void_p),  # @48
        ("overridden_serialized_compile_options_size", c_size_t),  # @56
        ("load_options", c_void_p),  # @64
    ]


class PJRT_LoadedExecutable_Fingerprint_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("executable", c_void_p),  # @16
        ("executable_fingerprint", c_void_p),  # @24
        ("executable_fingerprint_size", c_size_t),  # @32
    ]


class PJRT_Buffer_Destroy_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("buffer", c_void_p),  # @16
    ]


class PJRT_Buffer_ElementType_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("buffer", c_void_p),  # @16
        ("type", c_int),  # @24
    ]


class PJRT_Buffer_Dimensions_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("buffer", c_void_p),  # @16
        ("dims", c_void_p),  # @24
        ("num_dims", c_size_t),  # @32
    ]


class PJRT_Buffer_UnpaddedDimensions_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("buffer", c_void_p),  # @16
        ("unpadded_dims", c_void_p),  # @24
        ("num_dims", c_size_t),  # @32
    ]


class PJRT_Buffer_DynamicDimensionIndices_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("buffer", c_void_p),  # @16
        ("dynamic_dim_indices", c_void_p),  # @24
        ("num_dynamic_dims", c_size_t),  # @32
    ]


class PJRT_Buffer_GetMemoryLayout_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("buffer", c_void_p),  # @16
        ("layout", PJRT_Buffer_MemoryLayout),  # @24
    ]


class PJRT_Buffer_ToHostBuffer_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("src", c_void_p),  # @16
        ("host_layout", c_void_p),  # @24
        ("dst", c_void_p),  # @32
        ("dst_size", c_size_t),  # @40
        ("event", c_void_p),  # @48
    ]


class PJRT_Buffer_OnDeviceSizeInBytes_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("buffer", c_void_p),  # @16
        ("on_device_size_in_bytes", c_size_t),  # @24
    ]


class PJRT_Buffer_Delete_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("buffer", c_void_p),  # @16
    ]


class PJRT_Buffer_IsDeleted_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("buffer", c_void_p),  # @16
        ("is_deleted", c_bool),  # @24
    ]


class PJRT_Buffer_CopyRawToHost_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("buffer", c_void_p),  # @16
        ("dst", c_void_p),  # @24
        ("offset", c_int64),  # @32
        ("transfer_size", c_int64),  # @40
        ("event", c_void_p),  # @48
    ]


class PJRT_Buffer_CopyRawToHostFuture_Callback_Args(PjrtStruct):
    _since_ = 84
    _fields_ = [
        ("struct_size", c_size_t),  # @0
        ("callback_data", c_void_p),  # @8
        ("error_code", c_int),  # @16
        ("error_message", c_void_p),  # @24
        ("error_message_size", c_size_t),  # @32
        ("dst", c_void_p),  # @40
    ]


class PJRT_Buffer_CopyRawToHostFuture_Args(PjrtStruct):
    _since_ = 84
    _fields_ = HEADER + [
        ("buffer", c_void_p),  # @16
        ("offset", c_int64),  # @24
        ("transfer_size", c_int64),  # @32
        ("event", c_void_p),  # @40
        ("callback_data", c_void_p),  # @48
        ("future_ready_callback", c_void_p),  # @56
    ]


class PJRT_Buffer_CopyToDevice_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("buffer", c_void_p),  # @16
        ("dst_device", c_void_p),  # @24
        ("dst_buffer", c_void_p),  # @32
    ]


class PJRT_Buffer_CopyToMemory_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("buffer", c_void_p),  # @16
        ("dst_memory", c_void_p),  # @24
        ("dst_buffer", c_void_p),  # @32
    ]


class PJRT_Buffer_Bitcast_Args(PjrtStruct):
    _since_ = 98
    _fields_ = HEADER + [
        ("buffer", c_void_p),  # @16
        ("element_type", c_int),  # @24
        ("dims", c_void_p),  # @32
        ("num_dims", c_size_t),  # @40
        ("device_layout", c_void_p),  # @48
        ("out_buffer", c_void_p),  # @56
    ]


class PJRT_Buffer_IsOnCpu_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("buffer", c_void_p),  # @16
        ("is_on_cpu", c_bool),  # @24
    ]


class PJRT_Buffer_Device_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("buffer", c_void_p),  # @16
        ("device", c_void_p),  # @24
    ]


class PJRT_Buffer_Memory_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("buffer", c_void_p),  # @16
        ("memory", c_void_p),  # @24
    ]


class PJRT_Buffer_ReadyEvent_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("buffer", c_void_p),  # @16
        ("event", c_void_p),  # @24
    ]


class PJRT_Buffer_UnsafePointer_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("buffer", c_void_p),  # @16
        ("buffer_pointer", c_size_t),  # @24
    ]


class PJRT_Buffer_IncreaseExternalReferenceCount_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("buffer", c_void_p),  # @16
    ]


class PJRT_Buffer_DecreaseExternalReferenceCount_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("buffer", c_void_p),  # @16
    ]


class PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("buffer", c_void_p),  # @16
        ("device_memory_ptr", c_void_p),  # @24
    ]


class PJRT_Buffer_DonateWithControlDependency_Callback_Args(PjrtStruct):
    _since_ = 88
    _fields_ = [
        ("struct_size", c_size_t),  # @0
        ("callback_data", c_void_p),  # @8
        ("error_code", c_int),  # @16
        ("error_message", c_void_p),  # @24
        ("error_message_size", c_size_t),  # @32
    ]


class PJRT_Buffer_DonateWithControlDependency_Args(PjrtStruct):
    _since_ = 88
    _fields_ = HEADER + [
        ("buffer", c_void_p),  # @16
        ("callback_data", c_void_p),  # @24
        ("dependency_ready_callback", c_void_p),  # @32
        ("out_buffer", c_void_p),  # @40
    ]


class PJRT_CopyToDeviceStream_Destroy_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("stream", c_void_p),  # @16
    ]


class PJRT_CopyToDeviceStream_AddChunk_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("stream", c_void_p),  # @16
        ("chunk", c_void_p),  # @24
        ("transfer_complete", c_void_p),  # @32
    ]


class PJRT_CopyToDeviceStream_TotalBytes_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("stream", c_void_p),  # @16
        ("total_bytes", c_int64),  # @24
    ]


class PJRT_CopyToDeviceStream_GranuleSize_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("stream", c_void_p),  # @16
        ("granule_size_in_bytes", c_int64),  # @24
    ]


class PJRT_CopyToDeviceStream_CurrentBytes_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("stream", c_void_p),  # @16
        ("current_bytes", c_int64),  # @24
    ]


class PJRT_TopologyDescription_Create_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("topology_name", c_void_p),  # @16
        ("topology_name_size", c_size_t),  # @24
        ("create_options", c_void_p),  # @32
        ("num_options", c_size_t),  # @40
        ("topology", c_void_p),  # @48
    ]


class PJRT_TopologyDescription_Destroy_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("topology", c_void_p),  # @16
    ]


class PJRT_TopologyDescription_PlatformVersion_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("topology", c_void_p),  # @16
        ("platform_version", c_void_p),  # @24
        ("platform_version_size", c_size_t),  # @32
    ]


class PJRT_TopologyDescription_PlatformName_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("topology", c_void_p),  # @16
        ("platform_name", c_void_p),  # @24
        ("platform_name_size", c_size_t),  # @32
    ]


class PJRT_TopologyDescription_GetDeviceDescriptions_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("topology", c_void_p),  # @16
        ("descriptions", c_void_p),  # @24
        ("num_descriptions", c_size_t),  # @32
    ]


class PJRT_TopologyDescription_Serialize_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("topology", c_void_p),  # @16
        ("serialized_bytes", c_void_p),  # @24
        ("serialized_bytes_size", c_size_t),  # @32
        ("serialized_topology", c_void_p),  # @40
        ("serialized_topology_deleter", c_void_p),  # @48
    ]


class PJRT_TopologyDescription_Deserialize_Args(PjrtStruct):
    _since_ = 75
    _fields_ = HEADER + [
        ("serialized_topology", c_void_p),  # @16
        ("serialized_topology_size", c_size_t),  # @24
        ("topology", c_void_p),  # @32
    ]


class PJRT_TopologyDescription_Attributes_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("topology", c_void_p),  # @16
        ("attributes", c_void_p),  # @24
        ("num_attributes", c_size_t),  # @32
    ]


class PJRT_TopologyDescription_Fingerprint_Args(PjrtStruct):
    _since_ = 101
    _fields_ = HEADER + [
        ("topology", c_void_p),  # @16
        ("fingerprint", c_uint64),  # @24
    ]


class PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace_Args(PjrtStruct):
    _since_ = 109
    _fields_ = HEADER + [
        ("topology", c_void_p),  # @16
        ("memory_space_kind_id", c_int),  # @24
        ("dims", c_void_p),  # @32
        ("num_dims", c_size_t),  # @40
        ("element_type", c_int),  # @48
        ("layout", c_void_p),  # @56
        ("serialized_shape", c_void_p),  # @64
        ("serialized_shape_size", c_size_t),  # @72
        ("serialized_shape_deleter", c_void_p),  # @80
    ]


class PJRT_TopologyDescription_GetMemorySpaceKindIds_Args(PjrtStruct):
    _since_ = 110
    _fields_ = HEADER + [
        ("topology", c_void_p),  # @16
        ("memory_space_kind_ids", c_void_p),  # @24
        ("num_memory_space_kind_ids", c_size_t),  # @32
    ]


class PJRT_Compile_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("topology", c_void_p),  # @16
        ("program", c_void_p),  # @24
        ("compile_options", c_void_p),  # @32
        ("compile_options_size", c_size_t),  # @40
        ("client", c_void_p),  # @48
        ("executable", c_void_p),  # @56
    ]


finalize_struct_sizes(globals())
