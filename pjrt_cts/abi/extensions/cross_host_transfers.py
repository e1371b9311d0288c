"""The args of PJRT_CrossHostTransfers_Extension's functions
(xla/pjrt/extensions/cross_host_transfers/pjrt_c_api_cross_host_transfers_extension.h, extension version 6): the
original API (MakeCrossHostReceiveBuffers hands descriptors to a notifier; Buffer_CopyToRemoteDevice sends a buffer to
a descriptor) and version 2's keyed API (CrossHostSendBuffers / CrossHostReceiveBuffers by global device id and
transfer key). `xla::GlobalDeviceId` and `xla::CrossHostTransferKey` are int64 in the header's arrays.

Buffer_CopyToRemoteDevice returns nothing: its outcome reaches the caller through `on_done`."""
from __future__ import annotations

from ctypes import CFUNCTYPE, c_bool, c_size_t, c_void_p

from pjrt_cts.abi.base import PjrtStruct, RawStruct, finalize_struct_sizes

# void (*)(PJRT_Error* error, const char** descriptors, size_t* sizes, size_t num, void* user_arg,
#          PJRT_Transfers_CrossHostSendCancelNotifier cancel_notifier, void* cancel_notifier_user_arg)
RecvNotifier = CFUNCTYPE(None, c_void_p, c_void_p, c_void_p, c_size_t, c_void_p, c_void_p, c_void_p)
# void (*)(PJRT_Error* error, bool sends_were_enqueued, void* user_arg)
RemoteSendCallback = CFUNCTYPE(None, c_void_p, c_bool, c_void_p)
# void (*)(char** descriptor_data, size_t* descriptor_size): the backend calls it when done with the descriptor
DescriptorDestructor = CFUNCTYPE(None, c_void_p, c_void_p)


class PJRT_Transfers_CrossHostRecvNotifierInfo(RawStruct):
    _fields_ = [("user_arg", c_void_p), ("notifier", c_void_p)]


class PJRT_Transfers_CrossHostRemoteSendCallbackInfo(RawStruct):
    _fields_ = [("user_arg", c_void_p), ("on_done", c_void_p)]


class PJRT_Transfers_PJRT_Client_MakeCrossHostReceiveBuffers_Args(PjrtStruct):
    _fields_ = [
        ("struct_size", c_size_t),  # @0
        ("extension_start", c_void_p),  # @8
        ("client", c_void_p),  # @16
        ("num_shapes", c_size_t),  # @24
        ("shape_num_dims", c_void_p),  # @32 size_t[num_shapes]
        ("num_dims", c_void_p),  # @40 const int64_t*[num_shapes]
        ("element_types", c_void_p),  # @48 PJRT_Buffer_Type[num_shapes]
        ("layouts", c_void_p),  # @56 PJRT_Buffer_MemoryLayout*[num_shapes] (NULL entries: the default)
        ("device", c_void_p),  # @64
        ("notifier", PJRT_Transfers_CrossHostRecvNotifierInfo),  # @72
        ("buffers", c_void_p),  # @88 PJRT_Buffer*[num_shapes]: the caller's array, the plugin fills it
        ("num_buffers", c_size_t),  # @96 out
    ]


class PJRT_Transfers_PJRT_Client_CrossHostReceiveBuffers_Args(PjrtStruct):
    _fields_ = [
        ("struct_size", c_size_t),  # @0
        ("extension_start", c_void_p),  # @8
        ("client", c_void_p),  # @16
        ("num_shapes", c_size_t),  # @24
        ("shape_num_dims", c_void_p),  # @32
        ("num_dims", c_void_p),  # @40
        ("element_types", c_void_p),  # @48
        ("layouts", c_void_p),  # @56
        ("device", c_void_p),  # @64
        ("src_global_device_ids", c_void_p),  # @72 int64[num_shapes]
        ("transfer_keys", c_void_p),  # @80 int64[num_shapes]
        ("buffers", c_void_p),  # @88 out: PJRT_Buffer*[num_shapes], the caller's array
    ]


class PJRT_Transfers_PJRT_Client_CrossHostSendBuffers_Args(PjrtStruct):
    _fields_ = [
        ("struct_size", c_size_t),  # @0
        ("extension_start", c_void_p),  # @8
        ("client", c_void_p),  # @16
        ("num_buffers", c_size_t),  # @24
        ("buffers", c_void_p),  # @32 PJRT_Buffer*[num_buffers]
        ("dst_global_device_ids", c_void_p),  # @40 int64[num_buffers]
        ("transfer_keys", c_void_p),  # @48 int64[num_buffers]
        ("send_events", c_void_p),  # @56 out: PJRT_Event*[num_buffers], the caller's array
    ]


class PJRT_Transfers_PJRT_Buffer_CopyToRemoteDevice_Args(PjrtStruct):
    # Version 6 added descriptor_destructor (earlier plugins read up to on_done: struct_size 64).
    _fields_ = [
        ("struct_size", c_size_t),  # @0
        ("extension_start", c_void_p),  # @8
        ("buffer", c_void_p),  # @16
        ("event", c_void_p),  # @24 the callee frees it; the descriptor is valid once it is set
        ("serialized_descriptor", c_void_p),  # @32 char**
        ("serialized_descriptor_size", c_void_p),  # @40 size_t*
        ("on_done", PJRT_Transfers_CrossHostRemoteSendCallbackInfo),  # @48
        ("descriptor_destructor", c_void_p),  # @64
    ]


finalize_struct_sizes(globals())
