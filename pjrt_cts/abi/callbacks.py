"""C function-pointer types for callbacks the caller hands to a plugin (and the void-returning slots)."""
from __future__ import annotations

import ctypes

# PJRT_Error* PJRT_X(PJRT_X_Args*): the signature of every slot except the two below.
SlotFunction = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p)
# void PJRT_Error_Destroy(args*), void PJRT_Error_Message(args*).
VoidSlotFunction = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
# const PJRT_Api* GetPjrtApi(void).
GetPjrtApiFunction = ctypes.CFUNCTYPE(ctypes.c_void_p)

# void (*callback)(PJRT_Error* error, void* user_arg) of PJRT_Event_OnReady; the callee owns `error`.
EventOnReadyCallback = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)
# void (*on_delete_callback)(void* device_buffer_ptr, void* user_arg) of CreateViewOfDeviceBuffer.
OnDeleteCallback = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)
# void (*deleter)(T*) of Serialize / GetCompileOptions / GetDeviceAssignment / TopologyDescription_Serialize, the
# attributes_deleter of Device_GetAttributes and the serialized_shape_deleter of MakeCanonicalShapeForMemorySpace.
SerializedDeleter = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
# void (*PJRT_Error_PayloadVisitor)(const char* key, size_t key_size, const char* value, size_t value_size,
#                                   void* user_arg) of PJRT_Error_ForEachPayload.
PayloadVisitor = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p)
# PJRT_Error* (*PJRT_CallbackError)(PJRT_Error_Code code, const char* message, size_t message_size).
CallbackErrorFunction = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t)
# PJRT_Error* (*)(PJRT_KeyValue{Get,TryGet,Put}Callback_Args*).
KeyValueCallback = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p)
# void (*value_deleter_callback)(char* value).
ValueDeleterCallback = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
# void (*)(PJRT_Buffer_CopyRawToHostFuture_Callback_Args*) and void (*)(PJRT_Buffer_DonateWithControlDependency_
# Callback_Args*): a function the plugin hands out, which the caller calls once to complete deferred work.
CompletionCallback = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
# void (*PJRT_RecvCallback)(PJRT_CopyToDeviceStream* stream, void* user_arg): the callee owns the stream.
RecvCallback = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)
# void (*deleter)(void* data, void* deleter_arg) of PJRT_Chunk: the plugin calls it once it is done with the data.
ChunkDeleter = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)
