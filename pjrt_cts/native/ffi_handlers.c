/* XLA FFI handlers that the extensions layer registers through the PJRT FFI extension (register_handler) and
 * calls from a StableHLO `stablehlo.custom_call` with `api_version = 4` (typed FFI). Built at run time by
 * pjrt_cts.native.build_ffi_handlers against the XLA FFI C ABI header jaxlib ships (xla/ffi/api/c_api.h); the
 * header is never copied into this repository.
 *
 *   pjrt_cts_ffi_affine     y = 2 x + 1 over an f32 buffer (argument 0 -> result 0)
 *   pjrt_cts_ffi_user_data  result 0 (f32) filled with the value of the pjrt_cts_datum the execution's context
 *                           holds under the type id of attribute `type_id` (an i64), after sleeping `delay_ms`
 *                           (an i64, optional): a plugin that reads a context after Execute returned is seen
 *                           reading it after its caller destroyed it
 *   pjrt_cts_ffi_count_deletion  the user-data deleter: counts calls in the datum
 *
 * Buffers are host memory on a plugin without an FFI stream (XLA:CPU). Where XLA_FFI_Stream_Get gives a stream
 * (XLA:GPU on CUDA), data moves through the CUDA driver API (libcuda.so.1, loaded on first use). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "xla/ffi/api/c_api.h"

/* XLA FFI API 0.4 (jaxlib 0.11) renamed two things this file uses, with the same layout and slot positions:
 * XLA_FFI_Extension_Base became XLA_FFI_InternalExtension and XLA_FFI_ExecutionContext_Get became
 * XLA_FFI_InvokeContext_Get. The names below are the ones of the header compiled against. */
#if XLA_FFI_API_MAJOR == 0 && XLA_FFI_API_MINOR < 4
typedef XLA_FFI_Extension_Base cts_ffi_extension;
typedef XLA_FFI_ExecutionContext_Get_Args cts_ffi_context_get_args;
#define CTS_FFI_CONTEXT_GET_ARGS_STRUCT_SIZE XLA_FFI_ExecutionContext_Get_Args_STRUCT_SIZE
#define CTS_FFI_CONTEXT_GET XLA_FFI_ExecutionContext_Get
#else
typedef XLA_FFI_InternalExtension cts_ffi_extension;
typedef XLA_FFI_InvokeContext_Get_Args cts_ffi_context_get_args;
#define CTS_FFI_CONTEXT_GET_ARGS_STRUCT_SIZE XLA_FFI_InvokeContext_Get_Args_STRUCT_SIZE
#define CTS_FFI_CONTEXT_GET XLA_FFI_InvokeContext_Get
#endif

#define EXPORT __attribute__((visibility("default")))
#define DATUM_MAGIC 0x6374732d64617461ULL /* "cts-data" */

/* The user data the tests add to an execute context (mirrored by pjrt_cts.native.ffi.Datum). */
typedef struct {
    uint64_t magic;
    float value;
    int32_t deleter_calls;         /* written by pjrt_cts_ffi_count_deletion */
    int32_t handler_calls;         /* written by pjrt_cts_ffi_user_data */
    int32_t deleter_calls_at_read; /* deleter_calls when the handler read the datum: > 0 is a use after destroy */
} pjrt_cts_datum;

/* The handler's version: the oldest the XLA runtime accepts (0.1); every struct and function used here has had
 * its layout since then, so plugins built from older and newer XLA alike accept the registration. */
#define HANDLER_API_MAJOR 0
#define HANDLER_API_MINOR 1

static XLA_FFI_Error *fail(const XLA_FFI_Api *api, XLA_FFI_Error_Code code, const char *message) {
    XLA_FFI_Error_Create_Args args;
    memset(&args, 0, sizeof args);
    args.struct_size = XLA_FFI_Error_Create_Args_STRUCT_SIZE;
    args.message = message;
    args.errc = code;
    return api->XLA_FFI_Error_Create(&args);
}

/* XLA asks a handler for its metadata (API version, traits) at registration with a call frame whose extension
 * chain holds a metadata extension; the handler answers and returns. */
static int answered_metadata(XLA_FFI_CallFrame *frame) {
    for (cts_ffi_extension *ext = frame->extension_start; ext; ext = ext->next) {
        if (ext->type != XLA_FFI_Extension_Metadata) continue;
        XLA_FFI_Metadata *metadata = ((XLA_FFI_Metadata_Extension *)ext)->metadata;
        metadata->api_version.major_version = HANDLER_API_MAJOR;
        metadata->api_version.minor_version = HANDLER_API_MINOR;
        metadata->traits = 0;
        return 1;
    }
    return 0;
}

static int64_t element_count(const XLA_FFI_Buffer *buffer) {
    int64_t count = 1;
    for (int64_t i = 0; i < buffer->rank; i++) count *= buffer->dims[i];
    return count;
}

static XLA_FFI_Buffer *f32_argument(XLA_FFI_CallFrame *frame, int64_t index) {
    if (index >= frame->args.size || frame->args.types[index] != XLA_FFI_ArgType_BUFFER) return NULL;
    XLA_FFI_Buffer *buffer = (XLA_FFI_Buffer *)frame->args.args[index];
    return buffer->dtype == XLA_FFI_DataType_F32 ? buffer : NULL;
}

static XLA_FFI_Buffer *f32_result(XLA_FFI_CallFrame *frame, int64_t index) {
    if (index >= frame->rets.size || frame->rets.types[index] != XLA_FFI_RetType_BUFFER) return NULL;
    XLA_FFI_Buffer *buffer = (XLA_FFI_Buffer *)frame->rets.rets[index];
    return buffer->dtype == XLA_FFI_DataType_F32 ? buffer : NULL;
}

/* The i64 (or i32) scalar attribute `name`; `fallback` when absent. */
static int64_t integer_attribute(XLA_FFI_CallFrame *frame, const char *name, int64_t fallback) {
    size_t length = strlen(name);
    for (int64_t i = 0; i < frame->attrs.size; i++) {
        XLA_FFI_ByteSpan *key = frame->attrs.names[i];
        if (frame->attrs.types[i] != XLA_FFI_AttrType_SCALAR || key->len != length || memcmp(key->ptr, name, length))
            continue;
        XLA_FFI_Scalar *scalar = (XLA_FFI_Scalar *)frame->attrs.attrs[i];
        if (scalar->dtype == XLA_FFI_DataType_S64) return *(int64_t *)scalar->value;
        if (scalar->dtype == XLA_FFI_DataType_S32) return *(int32_t *)scalar->value;
    }
    return fallback;
}

/* ---- moving data: host memory, or device memory through the CUDA driver on a stream ------------------------ */
typedef int (*cu_copy_d2h_fn)(void *, unsigned long long, size_t, void *);
typedef int (*cu_copy_h2d_fn)(unsigned long long, const void *, size_t, void *);
typedef int (*cu_sync_fn)(void *);

static void *device_stream(XLA_FFI_CallFrame *frame) {
    XLA_FFI_Stream_Get_Args args;
    memset(&args, 0, sizeof args);
    args.struct_size = XLA_FFI_Stream_Get_Args_STRUCT_SIZE;
    args.ctx = frame->ctx;
    XLA_FFI_Error *error = frame->api->XLA_FFI_Stream_Get(&args);
    if (error) { /* no stream (XLA:CPU answers UNIMPLEMENTED): buffers are host memory */
        XLA_FFI_Error_Destroy_Args destroy;
        memset(&destroy, 0, sizeof destroy);
        destroy.struct_size = XLA_FFI_Error_Destroy_Args_STRUCT_SIZE;
        destroy.error = error;
        frame->api->XLA_FFI_Error_Destroy(&destroy);
        return NULL;
    }
    return args.stream;
}

/* Copy `bytes` between a buffer and host memory (`to_host`: buffer -> host). 0 on success. */
static int copy_buffer(void *stream, void *host, void *buffer, size_t bytes, int to_host) {
    if (!stream) {
        memcpy(to_host ? host : buffer, to_host ? buffer : host, bytes);
        return 0;
    }
    static void *cuda;
    if (!cuda) cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!cuda) return -1;
    cu_sync_fn sync = (cu_sync_fn)dlsym(cuda, "cuStreamSynchronize");
    int status;
    if (to_host) {
        cu_copy_d2h_fn copy = (cu_copy_d2h_fn)dlsym(cuda, "cuMemcpyDtoHAsync_v2");
        status = copy && sync ? copy(host, (unsigned long long)(uintptr_t)buffer, bytes, stream) : -1;
    } else {
        cu_copy_h2d_fn copy = (cu_copy_h2d_fn)dlsym(cuda, "cuMemcpyHtoDAsync_v2");
        status = copy && sync ? copy((unsigned long long)(uintptr_t)buffer, host, bytes, stream) : -1;
    }
    return status ? status : sync(stream);
}

/* ---- the handlers -------------------------------------------------------------------------------------- */
EXPORT XLA_FFI_Error *pjrt_cts_ffi_affine(XLA_FFI_CallFrame *frame) {
    if (answered_metadata(frame) || frame->stage != XLA_FFI_ExecutionStage_EXECUTE) return NULL;
    XLA_FFI_Buffer *x = f32_argument(frame, 0), *y = f32_result(frame, 0);
    if (!x || !y || element_count(x) != element_count(y))
        return fail(frame->api, XLA_FFI_Error_Code_INVALID_ARGUMENT,
                    "pjrt_cts_ffi_affine takes one f32 buffer and returns one of the same size");
    size_t bytes = (size_t)element_count(x) * sizeof(float);
    float *host = malloc(bytes ? bytes : 1);
    if (!host) return fail(frame->api, XLA_FFI_Error_Code_RESOURCE_EXHAUSTED, "pjrt_cts_ffi_affine: out of memory");
    void *stream = device_stream(frame);
    int status = copy_buffer(stream, host, x->data, bytes, 1);
    for (int64_t i = 0; !status && i < element_count(x); i++) host[i] = 2.0f * host[i] + 1.0f;
    if (!status) status = copy_buffer(stream, host, y->data, bytes, 0);
    free(host);
    return status ? fail(frame->api, XLA_FFI_Error_Code_INTERNAL, "pjrt_cts_ffi_affine: device copy failed") : NULL;
}

EXPORT XLA_FFI_Error *pjrt_cts_ffi_user_data(XLA_FFI_CallFrame *frame) {
    if (answered_metadata(frame) || frame->stage != XLA_FFI_ExecutionStage_EXECUTE) return NULL;
    XLA_FFI_Buffer *out = f32_result(frame, 0);
    if (!out) return fail(frame->api, XLA_FFI_Error_Code_INVALID_ARGUMENT, "pjrt_cts_ffi_user_data returns an f32 buffer");
    int64_t delay_ms = integer_attribute(frame, "delay_ms", 0);
    if (delay_ms > 0) {
        struct timespec pause = {delay_ms / 1000, (delay_ms % 1000) * 1000000L};
        nanosleep(&pause, NULL);
    }
    XLA_FFI_TypeId type_id = {integer_attribute(frame, "type_id", 0)};
    cts_ffi_context_get_args get;
    memset(&get, 0, sizeof get);
    get.struct_size = CTS_FFI_CONTEXT_GET_ARGS_STRUCT_SIZE;
    get.ctx = frame->ctx;
    get.type_id = &type_id;
    XLA_FFI_Error *error = frame->api->CTS_FFI_CONTEXT_GET(&get);
    if (error) return error; /* e.g. NOT_FOUND: the execution's context has no user data of this type */
    pjrt_cts_datum *datum = (pjrt_cts_datum *)get.data;
    if (!datum || datum->magic != DATUM_MAGIC)
        return fail(frame->api, XLA_FFI_Error_Code_DATA_LOSS,
                    "pjrt_cts_ffi_user_data: the context's user data is not the datum the test added");
    __atomic_store_n(&datum->deleter_calls_at_read, __atomic_load_n(&datum->deleter_calls, __ATOMIC_SEQ_CST),
                     __ATOMIC_SEQ_CST);
    __atomic_fetch_add(&datum->handler_calls, 1, __ATOMIC_SEQ_CST);
    size_t count = (size_t)element_count(out);
    float *host = malloc(count ? count * sizeof(float) : 1);
    if (!host) return fail(frame->api, XLA_FFI_Error_Code_RESOURCE_EXHAUSTED, "pjrt_cts_ffi_user_data: out of memory");
    for (size_t i = 0; i < count; i++) host[i] = datum->value;
    int status = copy_buffer(device_stream(frame), host, out->data, count * sizeof(float), 0);
    free(host);
    return status ? fail(frame->api, XLA_FFI_Error_Code_INTERNAL, "pjrt_cts_ffi_user_data: device copy failed") : NULL;
}

/* A handler built for an XLA FFI API no runtime implements (major version 99): the FFI runtime must refuse to
 * register it, and register_handler must say so. Executed anyway, it fails. */
EXPORT XLA_FFI_Error *pjrt_cts_ffi_unsupported_version(XLA_FFI_CallFrame *frame) {
    for (cts_ffi_extension *ext = frame->extension_start; ext; ext = ext->next) {
        if (ext->type != XLA_FFI_Extension_Metadata) continue;
        XLA_FFI_Metadata *metadata = ((XLA_FFI_Metadata_Extension *)ext)->metadata;
        metadata->api_version.major_version = 99;
        metadata->api_version.minor_version = 0;
        metadata->traits = 0;
        return NULL;
    }
    return fail(frame->api, XLA_FFI_Error_Code_FAILED_PRECONDITION,
                "pjrt_cts_ffi_unsupported_version ran although its API version (99.0) is unsupported");
}

EXPORT void pjrt_cts_ffi_count_deletion(void *data) {
    pjrt_cts_datum *datum = (pjrt_cts_datum *)data;
    if (datum && datum->magic == DATUM_MAGIC) __atomic_fetch_add(&datum->deleter_calls, 1, __ATOMIC_SEQ_CST);
}

EXPORT uint64_t pjrt_cts_ffi_datum_magic(void) { return DATUM_MAGIC; }
