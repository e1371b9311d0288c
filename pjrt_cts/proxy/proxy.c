/* pjrt-cts proxy plugin: forwards to a real PJRT plugin and injects one named defect.
 *
 * GetPjrtApi() dlopens $PJRT_CTS_PROXY_TARGET, copies its PJRT_Api table and replaces the slots the
 * defect named by $PJRT_CTS_PROXY_DEFECT needs ("" or "none": pure passthrough). Slot indices,
 * field offsets and enum values come from pjrt_proxy_abi.h, generated from pjrt_cts.abi at build
 * time (pjrt_cts.proxy.build). Used by `pjrt-cts selftest` to prove the suite catches defects.
 * Handles are never wrapped: the caller sees the real plugin's objects, so a defect touches only
 * what it names. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "pjrt_proxy_abi.h"

typedef void *(*slot_fn)(void *args);

#define API_COPY_CAPACITY 16384
#define LEAK_BYTES_DEFAULT (64u * 1024u)
#define LEAK_TOTAL_CAP (4ull * 1024u * 1024u * 1024u) /* protects the host running the selftest */
#define TRANSCENDENTAL_SMALL_ULPS 2
#define TRANSCENDENTAL_LARGE_ULPS 64
#define MARKED_CAPACITY 4096
#define RING_SLOTS 64
#define TINY_RESULT_LIMIT 1e-4          /* tiny_results_imprecise edits outputs with 0 < |y| < this */
#define TINY_RESULT_RELATIVE_ERROR 1e-3 /* ... by this relative error (what a naive log(1 + x) gives) */
#define MLIR_BYTECODE_MAGIC "ML\xefR"
/* mid_size_dot_reduce_off edits programs whose largest argument has MID_SIZE_MIN_ELEMENTS <= n < MID_SIZE_END_ELEMENTS
 * elements (past a kernel's first tile; the golden corpus's large.row_sum.f32, 4096 x 4096 = 16 Mi, stays untouched),
 * multiplying their f32 results by MID_SIZE_FACTOR (1% off). */
#define MID_SIZE_MIN_ELEMENTS 1024
#define MID_SIZE_END_ELEMENTS (16LL * 1024 * 1024)
#define MID_SIZE_FACTOR 1.01f

static uint64_t g_api_storage[API_COPY_CAPACITY / 8];
static uint64_t g_api_twin_storage[API_COPY_CAPACITY / 8]; /* second copy for get_api_unstable */
static unsigned char *const g_api = (unsigned char *)g_api_storage;
static unsigned char *const g_api_twin = (unsigned char *)g_api_twin_storage;
static const unsigned char *g_real;
static size_t g_real_size;
static int g_defect;
static int g_ready;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static unsigned long g_get_api_calls;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- access to args structs by generated offsets ------------------------------------------- */
#define F(ptr, T, field, type) (*(type *)((unsigned char *)(ptr) + OFF_##T##__##field))
#define ARGS(var, T)                                                                            \
    uint64_t var##_storage[SIZEOF_##T / 8 + 2];                                                 \
    unsigned char *var = (unsigned char *)var##_storage;                                        \
    memset(var##_storage, 0, sizeof var##_storage);                                             \
    *(size_t *)var = SSIZE_##T

static void *real_slot(int index) {
    size_t offset = PJRT_API_HEADER_SIZE + (size_t)PJRT_SLOT_SIZE * (size_t)index;
    if (offset + PJRT_SLOT_SIZE > g_real_size) return NULL;
    return *(void *const *)(g_real + offset);
}
#define HAS(name) (real_slot(SLOT_##name) != NULL)
#define CALL(name, args) (((slot_fn)real_slot(SLOT_##name))(args))

static void set_slot(int index, void *fn) {
    size_t offset = PJRT_API_HEADER_SIZE + (size_t)PJRT_SLOT_SIZE * (size_t)index;
    if (offset + PJRT_SLOT_SIZE > g_real_size) return; /* the target lacks it: nothing to wrap */
    if (real_slot(index) == NULL && fn != NULL) return; /* never invent a function */
    *(void **)(g_api + offset) = fn;
}
#define WRAP(name, fn) set_slot(SLOT_##name, (void *)(fn))

/* A per-thread ring of scratch arrays: returned pointers stay valid for RING_SLOTS more copies
 * on that thread, which outlives every caller that copies out immediately (as callers must
 * assume only until the owning object changes). */
static __thread void *t_ring[RING_SLOTS];
static __thread size_t t_ring_size[RING_SLOTS];
static __thread unsigned t_ring_next;

static void *ring_alloc(size_t bytes) {
    unsigned slot = t_ring_next++ % RING_SLOTS;
    if (bytes == 0) bytes = 1;
    if (t_ring_size[slot] < bytes) {
        void *grown = realloc(t_ring[slot], bytes);
        if (!grown) return NULL;
        t_ring[slot] = grown;
        t_ring_size[slot] = bytes;
    }
    return t_ring[slot];
}

/* ---- small helpers over the real plugin ------------------------------------------------------- */
static void destroy_error(void *error) {
    if (!error) return;
    ARGS(a, PJRT_Error_Destroy_Args);
    F(a, PJRT_Error_Destroy_Args, error, void *) = error;
    CALL(Error_Destroy, a);
}

static void destroy_event(void *event) {
    if (!event) return;
    ARGS(a, PJRT_Event_Destroy_Args);
    F(a, PJRT_Event_Destroy_Args, event, void *) = event;
    destroy_error(CALL(Event_Destroy, a));
}

static void *await_event(void *event) {
    if (!event) return NULL;
    ARGS(a, PJRT_Event_Await_Args);
    F(a, PJRT_Event_Await_Args, event, void *) = event;
    return CALL(Event_Await, a);
}

static void *new_unset_event(void) {
    if (!HAS(Event_Create)) return NULL;
    ARGS(a, PJRT_Event_Create_Args);
    void *error = CALL(Event_Create, a);
    if (error) {
        destroy_error(error);
        return NULL;
    }
    return F(a, PJRT_Event_Create_Args, event, void *);
}

/* An error object of the real plugin carrying `code` and `message` (through Event_Set + Await);
 * plugins without Event_Create give their INVALID_ARGUMENT for a zero struct_size instead. */
static void *make_error(int code, const char *message) {
    void *event = HAS(Event_Set) ? new_unset_event() : NULL;
    if (event) {
        ARGS(s, PJRT_Event_Set_Args);
        F(s, PJRT_Event_Set_Args, event, void *) = event;
        F(s, PJRT_Event_Set_Args, error_code, int) = code;
        F(s, PJRT_Event_Set_Args, error_message, const char *) = message;
        F(s, PJRT_Event_Set_Args, error_message_size, size_t) = strlen(message);
        void *set_error = CALL(Event_Set, s);
        if (!set_error) {
            void *error = await_event(event);
            destroy_event(event);
            if (error) return error;
        } else {
            destroy_error(set_error);
            destroy_event(event);
        }
    }
    ARGS(p, PJRT_Plugin_Attributes_Args);
    *(size_t *)p = 0;
    return CALL(Plugin_Attributes, p);
}

static int buffer_element_type(void *buffer) {
    ARGS(a, PJRT_Buffer_ElementType_Args);
    F(a, PJRT_Buffer_ElementType_Args, buffer, void *) = buffer;
    void *error = CALL(Buffer_ElementType, a);
    if (error) {
        destroy_error(error);
        return BT_INVALID;
    }
    return F(a, PJRT_Buffer_ElementType_Args, type, int);
}

static size_t element_size(int type) {
    switch (type) {
        case BT_PRED: case BT_S8: case BT_U8: case BT_F8E5M2: case BT_F8E4M3FN: case BT_F8E4M3B11FNUZ:
        case BT_F8E5M2FNUZ: case BT_F8E4M3FNUZ: case BT_F8E4M3: case BT_F8E3M4: case BT_F8E8M0FNU:
        case BT_S4: case BT_U4: case BT_S2: case BT_U2: case BT_S1: case BT_U1: case BT_F4E2M1FN:
        case BT_F6E2M3FN: case BT_F6E3M2FN:
            return 1;
        case BT_S16: case BT_U16: case BT_F16: case BT_BF16: return 2;
        case BT_S32: case BT_U32: case BT_F32: return 4;
        case BT_S64: case BT_U64: case BT_F64: case BT_C64: return 8;
        case BT_C128: return 16;
        default: return 0;
    }
}

static size_t executable_num_outputs(void *loaded) {
    ARGS(g, PJRT_LoadedExecutable_GetExecutable_Args);
    F(g, PJRT_LoadedExecutable_GetExecutable_Args, loaded_executable, void *) = loaded;
    void *error = CALL(LoadedExecutable_GetExecutable, g);
    if (error) {
        destroy_error(error);
        return 0;
    }
    void *executable = F(g, PJRT_LoadedExecutable_GetExecutable_Args, executable, void *);
    ARGS(n, PJRT_Executable_NumOutputs_Args);
    F(n, PJRT_Executable_NumOutputs_Args, executable, void *) = executable;
    error = CALL(Executable_NumOutputs, n);
    size_t count = error ? 0 : F(n, PJRT_Executable_NumOutputs_Args, num_outputs, size_t);
    destroy_error(error);
    ARGS(d, PJRT_Executable_Destroy_Args);
    F(d, PJRT_Executable_Destroy_Args, executable, void *) = executable;
    destroy_error(CALL(Executable_Destroy, d));
    return count;
}

/* Handles the active defect treats specially (one defect per process): executables whose program has
 * the ops a data-editing mutant targets, or the buffers buffer_delete_ignored "deleted". Returns
 * whether the handle is now in the wanted state (0: no room left to mark it). */
static void *g_marked[MARKED_CAPACITY];

static int mark_handle(void *handle, int marked) {
    int done = 0, free_slot = -1;
    if (!handle) return 0;
    pthread_mutex_lock(&g_lock);
    for (int i = 0; i < MARKED_CAPACITY && !done; i++) {
        if (g_marked[i] == handle) {
            if (!marked) g_marked[i] = NULL;
            done = 1;
        } else if (g_marked[i] == NULL && free_slot < 0) {
            free_slot = i;
        }
    }
    if (!done && marked && free_slot >= 0) {
        g_marked[free_slot] = handle;
        done = 1;
    }
    pthread_mutex_unlock(&g_lock);
    return done || !marked;
}

static int is_marked(void *handle) {
    int found = 0;
    pthread_mutex_lock(&g_lock);
    for (int i = 0; i < MARKED_CAPACITY && !found; i++) found = handle && g_marked[i] == handle;
    pthread_mutex_unlock(&g_lock);
    return found;
}

/* ---- the defects -------------------------------------------------------------------------------- */
enum {
    D_NONE = 0,
    D_GET_API_UNSTABLE,
    D_NULL_SLOT,
    D_NEWER_MINOR_THAN_SLOTS,
    D_EXTENSION_CHAIN_LOOP,
    D_ATTRIBUTES_DUPLICATED,
    D_INITIALIZE_NOT_IDEMPOTENT,
    D_API_VERSION_STRUCT_SIZE_WRONG,
    D_DEVICE_IDS_DUPLICATED,
    D_LOOKUP_DEVICE_RETURNS_FIRST,
    D_PROCESS_INDEX_ONE,
    D_UNKNOWN_INSTEAD_OF_INVALID_ARGUMENT,
    D_ERROR_MESSAGE_EMPTY,
    D_TO_HOST_BITFLIP,
    D_DIMS_OFF_BY_ONE,
    D_WRONG_ELEMENT_TYPE,
    D_TO_HOST_IGNORES_HOST_LAYOUT,
    D_FROM_HOST_IGNORES_BYTE_STRIDES,
    D_LEAK_PER_BUFFER,
    D_COPY_TO_DEVICE_RETURNS_SOURCE,
    D_IS_DELETED_LIES,
    D_READY_EVENT_NEVER_FIRES,
    D_ON_READY_FIRES_TWICE,
    D_EVENT_ERROR_SWALLOWED,
    D_EVENT_READY_TOO_EARLY,
    D_COMPILE_ACCEPTS_GARBAGE_OPTIONS,
    D_EXECUTE_ABORTS_THIRD_CALL,
    D_NON_DONATABLE_IGNORED,
    D_DONATION_KEEPS_INPUT,
    D_EXECUTE_DEVICE_IGNORED,
    D_RESULTS_REORDERED_BETWEEN_DEVICES,
    D_NUM_OUTPUTS_PLUS_ONE,
    D_OUTPUT_DIMS_OFF_BY_ONE,
    D_TRANSCENDENTAL_2ULP,
    D_TRANSCENDENTAL_64ULP,
    D_SERIALIZE_TRUNCATED,
    D_FINGERPRINT_CHANGES,
    D_DECREF_BELOW_ZERO_SUCCEEDS,
    D_ON_DELETE_CALLBACK_NEVER_CALLED,
    D_ON_DELETE_CALLBACK_CALLED_TWICE,
    D_OPAQUE_POINTER_OFFSET,
    D_STRUCT_SIZE_NOT_CHECKED,
    D_CLIENT_CREATE_INTERNAL,
    D_CLIENT_CREATE_UNIMPLEMENTED,
    D_CLIENT_CREATE_INVALID_ARGUMENT,
    D_COMPILE_REJECTS_DOT_GENERAL,
    D_COMPILE_REJECTS_CONVOLUTION,
    D_COMPILE_REJECTS_WHILE,
    D_TO_HOST_NOOP,
    D_TO_HOST_HALF,
    D_TO_HOST_UNIMPLEMENTED,
    D_FROM_HOST_REJECTS_NON_DEFAULT_ARGUMENTS,
    D_DTYPES_REJECTED_AS_UNSUPPORTED,
    D_BUFFERS_ON_DEVICE0_ONLY,
    D_BUFFER_DELETE_IGNORED,
    D_COPY_TO_DEVICE_UNIMPLEMENTED,
    D_EXECUTE_REJECTS_ALL,
    D_EXECUTE_UNIMPLEMENTED,
    D_MULTI_DEVICE_EXECUTE_UNIMPLEMENTED,
    D_TINY_RESULTS_IMPRECISE,
    D_SUBNORMAL_RESULTS_FLUSHED,
    D_NAN_NOT_PROPAGATED_BY_MAX,
    D_F64_RESULTS_ROUNDED_TO_F32,
    D_CONVERTS_ROUND_TOWARD_ZERO,
    D_FINGERPRINT_EMPTY,
    D_FINGERPRINT_UNIMPLEMENTED,
    D_SERIALIZE_UNIMPLEMENTED,
    D_EXTERNAL_REFERENCES_UNIMPLEMENTED,
    D_STABLEHLO_VERSION_OVERCLAIMED,
    D_UNIMPLEMENTED_FOR_ONE_CASE,
    D_FAILS_EVERY_OTHER_TIME,
    D_MID_SIZE_DOT_REDUCE_OFF,
    D_COMPILE_ABORTS_ON_UNREADABLE_PROGRAM,
    /* issue 50A: errors, devices, topologies */
    D_FOR_EACH_PAYLOAD_ERROR,
    D_DEVICE_ATTRIBUTES_NULL_DELETER,
    D_TOPOLOGY_FINGERPRINT_CHANGES,
    D_TOPOLOGY_DESERIALIZE_READS_PAST_SIZE,
    D_EXECUTE_IGNORES_CONTEXT,
    D_EXECUTE_CONTEXT_DESTROY_LEAKS,
    D_FFI_USER_DATA_DROPPED,
    D_FFI_HANDLER_IGNORED,
    D_TRANSFER_CHUNKS_AT_OFFSET_ZERO,
    D_UNINITIALIZED_DIMS_REVERSED,
    D_ALIAS_FULFILLED_WITH_OTHER_DATA,
    D_RAW_COPY_FUTURE_OFFSET_IGNORED,
    D_BITCAST_IGNORES_NEW_TYPE,
    D_DEPENDENCY_IGNORED_BY_DONATION,
    D_MEMORY_LAYOUT_REVERSED,
    D_DMA_MAP_IS_A_NO_OP,
    D_LAYOUTS_SERIALIZED_GARBAGE,
    D_MEMORY_DESCRIPTIONS_DISAGREE,
    D_SHARDINGS_OFF_BY_ONE_DEVICE,
    D_NULL_EXTENSION_FUNCTION,
    D_LAYOUTS_EXTENSION_DROPPED,
    D_STABLEHLO_WINDOW_FALSE,
    D_PLATFORM_RENAMED,
    D_CLIENT_WITHOUT_DEVICES,
    D_RNG_RESULTS_CONSTANT,
    D_AOT_EXECUTABLE_EXTRA_OUTPUT,
    D_COUNT
};

static const char *const g_defect_names[D_COUNT] = {
    "none",
    "get_api_unstable",
    "null_slot",
    "newer_minor_than_slots",
    "extension_chain_loop",
    "attributes_duplicated",
    "initialize_not_idempotent",
    "api_version_struct_size_wrong",
    "device_ids_duplicated",
    "lookup_device_returns_first",
    "process_index_one",
    "unknown_instead_of_invalid_argument",
    "error_message_empty",
    "to_host_bitflip",
    "dims_off_by_one",
    "wrong_element_type",
    "to_host_ignores_host_layout",
    "from_host_ignores_byte_strides",
    "leak_per_buffer",
    "copy_to_device_returns_source",
    "is_deleted_lies",
    "ready_event_never_fires",
    "on_ready_fires_twice",
    "event_error_swallowed",
    "event_ready_too_early",
    "compile_accepts_garbage_options",
    "execute_aborts_third_call",
    "non_donatable_ignored",
    "donation_keeps_input",
    "execute_device_ignored",
    "results_reordered_between_devices",
    "num_outputs_plus_one",
    "output_dims_off_by_one",
    "transcendental_2ulp",
    "transcendental_64ulp",
    "serialize_truncated",
    "fingerprint_changes",
    "decref_below_zero_succeeds",
    "on_delete_callback_never_called",
    "on_delete_callback_called_twice",
    "opaque_pointer_offset",
    "struct_size_not_checked",
    "client_create_internal",
    "client_create_unimplemented",
    "client_create_invalid_argument",
    "compile_rejects_dot_general",
    "compile_rejects_convolution",
    "compile_rejects_while",
    "to_host_noop",
    "to_host_half",
    "to_host_unimplemented",
    "from_host_rejects_non_default_arguments",
    "dtypes_rejected_as_unsupported",
    "buffers_on_device0_only",
    "buffer_delete_ignored",
    "copy_to_device_unimplemented",
    "execute_rejects_all",
    "execute_unimplemented",
    "multi_device_execute_unimplemented",
    "tiny_results_imprecise",
    "subnormal_results_flushed",
    "nan_not_propagated_by_max",
    "f64_results_rounded_to_f32",
    "converts_round_toward_zero",
    "fingerprint_empty",
    "fingerprint_unimplemented",
    "serialize_unimplemented",
    "external_references_unimplemented",
    "stablehlo_version_overclaimed",
    "unimplemented_for_one_case",
    "fails_every_other_time",
    "mid_size_dot_reduce_off",
    "compile_aborts_on_unreadable_program",
    "for_each_payload_error",
    "device_attributes_null_deleter",
    "topology_fingerprint_changes",
    "topology_deserialize_reads_past_size",
    "execute_ignores_context",
    "execute_context_destroy_leaks",
    "ffi_user_data_dropped",
    "ffi_handler_ignored",
    "transfer_chunks_at_offset_zero",
    "uninitialized_dims_reversed",
    "alias_fulfilled_with_other_data",
    "raw_copy_future_offset_ignored",
    "bitcast_ignores_new_type",
    "dependency_ignored_by_donation",
    "memory_layout_reversed",
    "dma_map_is_a_no_op",
    "layouts_serialized_garbage",
    "memory_descriptions_disagree",
    "shardings_off_by_one_device",
    "null_extension_function",
    "layouts_extension_dropped",
    "stablehlo_window_false",
    "platform_renamed",
    "client_without_devices",
    "rng_results_constant",
    "aot_executable_extra_output",
};

/* abi ------------------------------------------------------------------------------------------- */
static void *w_plugin_initialize(void *args) {
    static unsigned long calls;
    pthread_mutex_lock(&g_lock);
    unsigned long call = ++calls;
    pthread_mutex_unlock(&g_lock);
    if (call > 1) return make_error(ERR_FAILED_PRECONDITION, "proxy defect: PJRT_Plugin_Initialize called twice");
    return CALL(Plugin_Initialize, args);
}

static void *w_plugin_attributes(void *args) {
    static unsigned char *duplicated;
    static size_t duplicated_count;
    void *error = CALL(Plugin_Attributes, args);
    if (error) return error;
    size_t count = F(args, PJRT_Plugin_Attributes_Args, num_attributes, size_t);
    const unsigned char *items = F(args, PJRT_Plugin_Attributes_Args, attributes, const unsigned char *);
    if (count == 0 || !items) return NULL;
    pthread_mutex_lock(&g_lock);
    if (!duplicated) { /* process lifetime, like the plugin's own list */
        duplicated = malloc((count + 1) * SIZEOF_PJRT_NamedValue);
        if (duplicated) {
            memcpy(duplicated, items, count * SIZEOF_PJRT_NamedValue);
            memcpy(duplicated + count * SIZEOF_PJRT_NamedValue, items, SIZEOF_PJRT_NamedValue);
            duplicated_count = count + 1;
        }
    }
    pthread_mutex_unlock(&g_lock);
    if (duplicated) {
        F(args, PJRT_Plugin_Attributes_Args, attributes, const void *) = duplicated;
        F(args, PJRT_Plugin_Attributes_Args, num_attributes, size_t) = duplicated_count;
    }
    return NULL;
}

/* ---- extensions: the proxy's own copy of the target's extension chain ---------------------------------
 * Extension mutants cannot touch the target's structs (they are the plugin's static data): the proxy copies
 * every link of the chain (struct_size bytes each, in order), hands out the copy as extension_start, and edits
 * the copy: one function replaced (set_extension_function), a link dropped (drop_extension). Wrappers call the
 * target's own function (real_extension_function). */
#define EXT_CHAIN_CAPACITY 64
static unsigned char *g_ext_copy[EXT_CHAIN_CAPACITY];
static const unsigned char *g_ext_real[EXT_CHAIN_CAPACITY];
static int g_ext_count;

static size_t extension_size(const unsigned char *node) {
    size_t size = *(const size_t *)node;
    return size < SSIZE_PJRT_Extension_Base ? SSIZE_PJRT_Extension_Base : size;
}

static void relink_extension_copies(void) {
    for (int i = 0; i < g_ext_count; i++)
        F(g_ext_copy[i], PJRT_Extension_Base, next, void *) = i + 1 < g_ext_count ? g_ext_copy[i + 1] : NULL;
    *(void **)(g_api + 8) = g_ext_count ? g_ext_copy[0] : NULL;
}

/* Copies the chain once; afterwards the proxy's PJRT_Api lists the copies. */
static void copy_extension_chain(void) {
    if (g_ext_count) return;
    const unsigned char *node = *(const unsigned char *const *)(g_real + 8);
    for (; node && g_ext_count < EXT_CHAIN_CAPACITY; node = F(node, PJRT_Extension_Base, next, const unsigned char *)) {
        size_t size = extension_size(node);
        unsigned char *copy = calloc(1, size < 64 ? 64 : size);
        if (!copy) break;
        memcpy(copy, node, size);
        g_ext_copy[g_ext_count] = copy;
        g_ext_real[g_ext_count++] = node;
    }
    relink_extension_copies();
}

static int extension_index(int type) {
    for (int i = 0; i < g_ext_count; i++)
        if (F(g_ext_real[i], PJRT_Extension_Base, type, int) == type) return i;
    return -1;
}

/* The target's own function at `offset` of its `type` extension (NULL: not advertised, beyond its size, NULL). */
static void *real_extension_function(int type, size_t offset) {
    int i = extension_index(type);
    if (i < 0 || offset + sizeof(void *) > *(const size_t *)g_ext_real[i]) return NULL;
    return *(void *const *)(g_ext_real[i] + offset);
}

/* Replace (or, with fn NULL, clear) the function at `offset` in the copy of `type`; never invents one the
 * target lacks. */
static void set_extension_function(int type, size_t offset, void *fn) {
    copy_extension_chain();
    int i = extension_index(type);
    if (i < 0 || (fn && !real_extension_function(type, offset))) return;
    if (offset + sizeof(void *) > *(const size_t *)g_ext_copy[i]) return;
    *(void **)(g_ext_copy[i] + offset) = fn;
}

static void drop_extension(int type) {
    copy_extension_chain();
    int i = extension_index(type);
    if (i < 0) return;
    free(g_ext_copy[i]);
    for (int k = i; k + 1 < g_ext_count; k++) {
        g_ext_copy[k] = g_ext_copy[k + 1];
        g_ext_real[k] = g_ext_real[k + 1];
    }
    g_ext_count--;
    relink_extension_copies();
}

static void make_extension_loop(void) {
    copy_extension_chain();
    if (!g_ext_count) { /* no chain: one node of the Unknown type pointing at itself */
        unsigned char *node = calloc(1, 64);
        if (!node) return;
        *(size_t *)node = SSIZE_PJRT_Extension_Base;
        F(node, PJRT_Extension_Base, type, int) = EXT_UNKNOWN;
        g_ext_copy[0] = node;
        g_ext_real[0] = node;
        g_ext_count = 1;
        relink_extension_copies();
    }
    F(g_ext_copy[g_ext_count - 1], PJRT_Extension_Base, next, void *) = g_ext_copy[0];
}

#define EXT_FN(ext, type_struct, member) real_extension_function(EXT_##ext, OFF_##type_struct##__##member)
#define WRAP_EXT(ext, type_struct, member, fn) \
    set_extension_function(EXT_##ext, OFF_##type_struct##__##member, (void *)(fn))

/* layouts_serialized_garbage: MemoryLayout_Serialize answers bytes that are no layout text (the caller still
 * frees the plugin's own serialized layout with the plugin's deleter). */
static void *w_layouts_serialize(void *args) {
    static const char garbage[] = "\x01garbage{layout";
    slot_fn real = (slot_fn)EXT_FN(LAYOUTS, PJRT_Layouts_Extension, PJRT_Layouts_MemoryLayout_Serialize);
    void *error = real(args);
    if (error) return error;
    F(args, PJRT_Layouts_MemoryLayout_Serialize_Args, serialized_bytes, const char *) = garbage;
    F(args, PJRT_Layouts_MemoryLayout_Serialize_Args, serialized_bytes_size, size_t) = sizeof garbage - 1;
    return NULL;
}

/* memory_descriptions_disagree: every device description lists one memory, the proxy's own, of kind "device"
 * with kind id 99 and as default, whatever the device's memories are. */
static const unsigned char g_fake_memory_description[16];
static const void *const g_fake_memory_descriptions[1] = {g_fake_memory_description};
#define FAKE_MEMORY_KIND "device"
#define FAKE_MEMORY_KIND_ID 99

static void *w_device_description_memory_descriptions(void *args) {
    slot_fn real = (slot_fn)EXT_FN(MEMORY_DESCRIPTIONS, PJRT_MemoryDescriptions_Extension,
                                   PJRT_DeviceDescription_MemoryDescriptions);
    void *error = real(args);
    if (error) return error;
    F(args, PJRT_DeviceDescription_MemoryDescriptions_Args, memory_descriptions, const void *) = g_fake_memory_descriptions;
    F(args, PJRT_DeviceDescription_MemoryDescriptions_Args, num_memory_descriptions, size_t) = 1;
    F(args, PJRT_DeviceDescription_MemoryDescriptions_Args, default_memory_index, size_t) = 0;
    return NULL;
}

static void *w_memory_description_kind(void *args) {
    if (F(args, PJRT_MemoryDescription_Kind_Args, memory_description, const void *) != g_fake_memory_description)
        return ((slot_fn)EXT_FN(MEMORY_DESCRIPTIONS, PJRT_MemoryDescriptions_Extension, PJRT_MemoryDescription_Kind))(args);
    F(args, PJRT_MemoryDescription_Kind_Args, kind, const char *) = FAKE_MEMORY_KIND;
    F(args, PJRT_MemoryDescription_Kind_Args, kind_size, size_t) = strlen(FAKE_MEMORY_KIND);
    F(args, PJRT_MemoryDescription_Kind_Args, kind_id, int) = FAKE_MEMORY_KIND_ID;
    return NULL;
}

/* shardings_off_by_one_device: every tiled OpSharding names the next device for each tile (its device list, explicit
 * or the iota form's, rotated by one; a single device d becomes d + 1), written back as an explicit list. */
#define OPSHARDING_DEVICES 4
#define OPSHARDING_IOTA_DIMS 9
#define OPSHARDING_IOTA_PERM 10
#define MAX_SHARDING_DEVICES 4096

static int read_varint(const unsigned char *p, size_t n, size_t *pos, uint64_t *value) {
    *value = 0;
    for (int shift = 0; *pos < n && shift < 64; shift += 7) {
        unsigned char byte = p[(*pos)++];
        *value |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80)) return 1;
    }
    return 0;
}

static size_t write_varint(unsigned char *out, uint64_t value) {
    size_t n = 0;
    do {
        out[n++] = (unsigned char)((value & 0x7f) | (value > 0x7f ? 0x80 : 0));
        value >>= 7;
    } while (value);
    return n;
}

/* The repeated integers of one field occurrence (packed or not) appended to values[*count]. */
static int read_ints(const unsigned char *p, size_t n, size_t *pos, int wire, int64_t *values, size_t *count) {
    uint64_t value, length;
    if (wire == 0) {
        if (!read_varint(p, n, pos, &value) || *count >= MAX_SHARDING_DEVICES) return 0;
        values[(*count)++] = (int64_t)value;
        return 1;
    }
    if (wire != 2 || !read_varint(p, n, pos, &length) || *pos + length > n) return 0;
    size_t end = *pos + length;
    while (*pos < end)
        if (!read_varint(p, end, pos, &value) || *count >= MAX_SHARDING_DEVICES) return 0;
        else values[(*count)++] = (int64_t)value;
    return 1;
}

/* A copy of the serialized OpSharding `p` with its tile devices moved by one, in `out` (capacity n + room); the
 * original length when there is nothing to move or it cannot be read. */
static size_t shift_sharding_devices(const unsigned char *p, size_t n, unsigned char *out) {
    static __thread int64_t devices[MAX_SHARDING_DEVICES], dims[64], perm[64];
    size_t num_devices = 0, num_dims = 0, num_perm = 0, pos = 0, used = 0;
    while (pos < n) {
        size_t start = pos;
        uint64_t key, skip;
        if (!read_varint(p, n, &pos, &key)) goto unchanged;
        int field = (int)(key >> 3), wire = (int)(key & 7);
        if (field == OPSHARDING_DEVICES || field == OPSHARDING_IOTA_DIMS || field == OPSHARDING_IOTA_PERM) {
            int64_t *into = field == OPSHARDING_DEVICES ? devices : field == OPSHARDING_IOTA_DIMS ? dims : perm;
            size_t *count = field == OPSHARDING_DEVICES ? &num_devices : field == OPSHARDING_IOTA_DIMS ? &num_dims : &num_perm;
            if ((field != OPSHARDING_DEVICES && *count >= 64) || !read_ints(p, n, &pos, wire, into, count)) goto unchanged;
            continue;
        }
        if (wire == 0) { if (!read_varint(p, n, &pos, &skip)) goto unchanged; }
        else if (wire == 1) pos += 8;
        else if (wire == 5) pos += 4;
        else if (wire == 2) { if (!read_varint(p, n, &pos, &skip) || pos + skip > n) goto unchanged; pos += skip; }
        else goto unchanged;
        if (pos > n) goto unchanged;
        memcpy(out + used, p + start, pos - start);
        used += pos - start;
    }
    if (!num_devices && num_dims) { /* iota form: iota(prod(dims)) reshaped to dims, transposed by perm */
        size_t total = 1, strides[64];
        for (size_t k = 0; k < num_dims; k++) total *= (size_t)dims[k];
        if (total > MAX_SHARDING_DEVICES) goto unchanged;
        for (size_t k = num_dims; k-- > 0;) strides[k] = k + 1 < num_dims ? strides[k + 1] * (size_t)dims[k + 1] : 1;
        for (size_t flat = 0; flat < total; flat++) {
            size_t rest = flat, source = 0;
            for (size_t k = num_dims; k-- > 0;) {
                size_t axis = num_perm == num_dims ? (size_t)perm[k] : k, extent = (size_t)dims[axis];
                source += (rest % extent) * strides[axis];
                rest /= extent;
            }
            devices[num_devices++] = (int64_t)source;
        }
    }
    if (!num_devices) goto unchanged;
    int64_t first = devices[0];
    if (num_devices == 1) devices[0] = first + 1;
    else {
        for (size_t k = 0; k + 1 < num_devices; k++) devices[k] = devices[k + 1];
        devices[num_devices - 1] = first;
    }
    unsigned char packed[MAX_SHARDING_DEVICES * 10];
    size_t packed_size = 0;
    for (size_t k = 0; k < num_devices; k++) packed_size += write_varint(packed + packed_size, (uint64_t)devices[k]);
    used += write_varint(out + used, (OPSHARDING_DEVICES << 3) | 2);
    used += write_varint(out + used, packed_size);
    memcpy(out + used, packed, packed_size);
    return used + packed_size;
unchanged:
    memcpy(out, p, n);
    return n;
}

/* Calls the target's Shardings function at `member` and rewrites the (shardings, sizes) arrays it returned into
 * proxy-owned copies with the devices moved (they live as long as the process: the header ties them to the
 * executable's lifetime). */
static void *shift_shardings(void *args, size_t member, size_t count_offset, size_t shardings_offset,
                             size_t sizes_offset) {
    void *error = ((slot_fn)real_extension_function(EXT_SHARDINGS, member))(args);
    size_t count = *(size_t *)((unsigned char *)args + count_offset);
    const char *const *shardings = *(const char *const **)((unsigned char *)args + shardings_offset);
    const size_t *sizes = *(const size_t **)((unsigned char *)args + sizes_offset);
    if (error || !count || !shardings || !sizes) return error;
    const char **moved = calloc(count, sizeof *moved);
    size_t *moved_sizes = calloc(count, sizeof *moved_sizes);
    if (!moved || !moved_sizes) return NULL;
    for (size_t i = 0; i < count; i++) {
        unsigned char *copy = malloc(sizes[i] + 16 + MAX_SHARDING_DEVICES * 10);
        if (!copy) return NULL;
        moved_sizes[i] = shift_sharding_devices((const unsigned char *)shardings[i], sizes[i], copy);
        moved[i] = (const char *)copy;
    }
    *(const char ***)((unsigned char *)args + shardings_offset) = moved;
    *(size_t **)((unsigned char *)args + sizes_offset) = moved_sizes;
    return NULL;
}

#define SHARDINGS_ARGS(kind, count) \
    OFF_PJRT_Shardings_PJRT_Executable_##kind##Shardings_Args__##count, \
    OFF_PJRT_Shardings_PJRT_Executable_##kind##Shardings_Args__shardings, \
    OFF_PJRT_Shardings_PJRT_Executable_##kind##Shardings_Args__sharding_sizes

static void *w_parameter_shardings(void *args) {
    return shift_shardings(args, OFF_PJRT_Shardings_Extension__PJRT_Shardings_PJRT_Executable_ParameterShardings,
                           SHARDINGS_ARGS(Parameter, num_parameters));
}

static void *w_output_shardings(void *args) {
    return shift_shardings(args, OFF_PJRT_Shardings_Extension__PJRT_Shardings_PJRT_Executable_OutputShardings,
                           SHARDINGS_ARGS(Output, num_outputs));
}

/* FFI extension mutants (set_extension_function replaces the one function in the proxy's copy of the chain). */
static void *w_ffi_user_data_add(void *args) {
    (void)args; /* success, and the user data never reaches the context */
    return NULL;
}

static void *w_ffi_register_handler(void *args) {
    (void)args; /* success, and the handler is never registered */
    return NULL;
}

static void *w_execute_context_destroy(void *args) {
    (void)args; /* success, and the context is never destroyed */
    return NULL;
}

/* Attribute mutants: the plugin's list copied once (process lifetime, like the plugin's own), `edit` applied to each
 * copied item. stablehlo_version_overclaimed claims one StableHLO minor more than the plugin's own
 * stablehlo_current_version (and Client_Compile, w_client_compile, refuses portable artifacts newer than the plugin's
 * own version, as a parser that only reads up to it would); stablehlo_window_false declares the window [0.1.0, 0.1.0],
 * older than any portable artifact, and still compiles every program. */
#define STABLEHLO_CURRENT_VERSION "stablehlo_current_version"
#define STABLEHLO_MINIMUM_VERSION "stablehlo_minimum_version"

static int named_value_is(const unsigned char *item, const char *name) {
    const char *text = F(item, PJRT_NamedValue, name, const char *);
    size_t size = F(item, PJRT_NamedValue, name_size, size_t);
    return text && size == strlen(name) && memcmp(text, name, size) == 0;
}

/* Whether `item` is the version attribute `name`: an int64 list of (major, minor, patch). */
static int is_version_attribute(const unsigned char *item, const char *name) {
    return named_value_is(item, name) && F(item, PJRT_NamedValue, type, int) == NV_INT64_LIST &&
           F(item, PJRT_NamedValue, value_size, size_t) >= 3;
}

/* The real plugin's stablehlo_current_version as (major, minor, patch); 0 when it declares none. */
static int real_stablehlo_current(int64_t version[3]) {
    ARGS(a, PJRT_Plugin_Attributes_Args);
    void *error = CALL(Plugin_Attributes, a);
    if (error) {
        destroy_error(error);
        return 0;
    }
    size_t count = F(a, PJRT_Plugin_Attributes_Args, num_attributes, size_t);
    const unsigned char *items = F(a, PJRT_Plugin_Attributes_Args, attributes, const unsigned char *);
    for (size_t i = 0; items && i < count; i++) {
        const unsigned char *item = items + i * SIZEOF_PJRT_NamedValue;
        if (!is_version_attribute(item, STABLEHLO_CURRENT_VERSION)) continue;
        memcpy(version, F(item, PJRT_NamedValue, value, const int64_t *), 3 * sizeof(int64_t));
        return 1;
    }
    return 0;
}

static void *rewritten_attributes(void *args, void (*edit)(unsigned char *item)) {
    static unsigned char *copy;
    static size_t copy_count;
    void *error = CALL(Plugin_Attributes, args);
    if (error) return error;
    size_t count = F(args, PJRT_Plugin_Attributes_Args, num_attributes, size_t);
    const unsigned char *items = F(args, PJRT_Plugin_Attributes_Args, attributes, const unsigned char *);
    if (count == 0 || !items) return NULL;
    pthread_mutex_lock(&g_lock);
    if (!copy && (copy = malloc(count * SIZEOF_PJRT_NamedValue))) {
        memcpy(copy, items, count * SIZEOF_PJRT_NamedValue);
        copy_count = count;
        for (size_t i = 0; i < count; i++) edit(copy + i * SIZEOF_PJRT_NamedValue);
    }
    pthread_mutex_unlock(&g_lock);
    if (copy) {
        F(args, PJRT_Plugin_Attributes_Args, attributes, const void *) = copy;
        F(args, PJRT_Plugin_Attributes_Args, num_attributes, size_t) = copy_count;
    }
    return NULL;
}

static void claim_one_minor_newer(unsigned char *item) {
    static int64_t newer[3];
    if (!is_version_attribute(item, STABLEHLO_CURRENT_VERSION)) return;
    const int64_t *own = F(item, PJRT_NamedValue, value, const int64_t *);
    newer[0] = own[0];
    newer[1] = own[1] + 1;
    newer[2] = 0;
    F(item, PJRT_NamedValue, value, const int64_t *) = newer;
    F(item, PJRT_NamedValue, value_size, size_t) = 3;
}

static void claim_window_0_1_0(unsigned char *item) {
    static const int64_t ancient[3] = {0, 1, 0};
    if (!is_version_attribute(item, STABLEHLO_CURRENT_VERSION) && !is_version_attribute(item, STABLEHLO_MINIMUM_VERSION))
        return;
    F(item, PJRT_NamedValue, value, const int64_t *) = ancient;
    F(item, PJRT_NamedValue, value_size, size_t) = 3;
}

static void *w_plugin_attributes_overclaimed(void *args) { return rewritten_attributes(args, claim_one_minor_newer); }
static void *w_plugin_attributes_window_false(void *args) { return rewritten_attributes(args, claim_window_0_1_0); }

/* client ------------------------------------------------------------------------------------------ */
static void *w_client_create(void *args) {
    (void)args; /* no client is ever created */
    if (g_defect == D_CLIENT_CREATE_INTERNAL)
        return make_error(ERR_INTERNAL, "proxy defect client_create_internal: PJRT_Client_Create failed");
    if (g_defect == D_CLIENT_CREATE_UNIMPLEMENTED)
        return make_error(ERR_UNIMPLEMENTED, "proxy defect client_create_unimplemented: PJRT_Client_Create is not implemented");
    return make_error(ERR_INVALID_ARGUMENT, "proxy defect client_create_invalid_argument: PJRT_Client_Create rejects its options");
}

static void *w_client_devices(void *args) {
    void *error = CALL(Client_Devices, args);
    if (error) return error;
    size_t count = F(args, PJRT_Client_Devices_Args, num_devices, size_t);
    void *const *devices = F(args, PJRT_Client_Devices_Args, devices, void *const *);
    if (count == 0 || !devices) return NULL;
    void **copy = ring_alloc((count + 1) * sizeof(void *));
    if (!copy) return NULL;
    memcpy(copy, devices, count * sizeof(void *));
    copy[count] = devices[0];
    F(args, PJRT_Client_Devices_Args, devices, void **) = copy;
    F(args, PJRT_Client_Devices_Args, num_devices, size_t) = count + 1;
    return NULL;
}

static void *w_client_lookup_device(void *args) {
    void *error = CALL(Client_LookupDevice, args);
    if (error) return error;
    ARGS(d, PJRT_Client_Devices_Args);
    F(d, PJRT_Client_Devices_Args, client, void *) = F(args, PJRT_Client_LookupDevice_Args, client, void *);
    void *list_error = CALL(Client_Devices, d);
    if (list_error) {
        destroy_error(list_error);
        return NULL;
    }
    if (F(d, PJRT_Client_Devices_Args, num_devices, size_t) > 0)
        F(args, PJRT_Client_LookupDevice_Args, device, void *) = F(d, PJRT_Client_Devices_Args, devices, void *const *)[0];
    return NULL;
}

/* platform_renamed: PJRT_Client_PlatformName answers another platform's name than the plugin's own. */
#define RENAMED_PLATFORM "host"

static void *w_client_platform_name(void *args) {
    void *error = CALL(Client_PlatformName, args);
    if (error) return error;
    F(args, PJRT_Client_PlatformName_Args, platform_name, const char *) = RENAMED_PLATFORM;
    F(args, PJRT_Client_PlatformName_Args, platform_name_size, size_t) = strlen(RENAMED_PLATFORM);
    return NULL;
}

/* A wrapper that calls the real function and, when it succeeds, overwrites one output field with `value`. */
#define WRAPPER_SETTING(name, slot, T, field, type, value) \
    static void *name(void *args) {                        \
        void *error = CALL(slot, args);                    \
        if (!error) F(args, T, field, type) = (value);     \
        return error;                                      \
    }

/* client_without_devices: the client lists no device (Client_Devices and Client_AddressableDevices answer 0). */
WRAPPER_SETTING(w_client_devices_none, Client_Devices, PJRT_Client_Devices_Args, num_devices, size_t, 0)
WRAPPER_SETTING(w_client_addressable_devices_none, Client_AddressableDevices, PJRT_Client_AddressableDevices_Args,
                num_addressable_devices, size_t, 0)
/* process_index_one */
WRAPPER_SETTING(w_client_process_index, Client_ProcessIndex, PJRT_Client_ProcessIndex_Args, process_index, int, 1)

static void *w_error_get_code(void *args) {
    void *error = CALL(Error_GetCode, args);
    if (!error && F(args, PJRT_Error_GetCode_Args, code, int) == ERR_INVALID_ARGUMENT)
        F(args, PJRT_Error_GetCode_Args, code, int) = ERR_UNKNOWN;
    return error;
}

static void *w_error_message(void *args) {
    CALL(Error_Message, args);
    F(args, PJRT_Error_Message_Args, message, const char *) = "";
    F(args, PJRT_Error_Message_Args, message_size, size_t) = 0;
    return NULL;
}

/* buffers and transfers ------------------------------------------------------------------------- */
/* to_host_noop / to_host_half: the real copy goes to a scratch array, awaited here, of which the caller's
 * destination gets nothing / its first half; the call and its event still report success. */
static void *to_host_partial(void *args) {
    unsigned char *dst = F(args, PJRT_Buffer_ToHostBuffer_Args, dst, unsigned char *);
    size_t size = F(args, PJRT_Buffer_ToHostBuffer_Args, dst_size, size_t);
    unsigned char *scratch = dst && size ? malloc(size) : NULL;
    if (!scratch) return CALL(Buffer_ToHostBuffer, args); /* size query (or no memory): untouched */
    F(args, PJRT_Buffer_ToHostBuffer_Args, dst, unsigned char *) = scratch;
    void *error = CALL(Buffer_ToHostBuffer, args);
    F(args, PJRT_Buffer_ToHostBuffer_Args, dst, unsigned char *) = dst;
    if (!error) {
        void *copy_error = await_event(F(args, PJRT_Buffer_ToHostBuffer_Args, event, void *));
        if (copy_error) destroy_error(copy_error); /* the caller sees the same error through its event */
        else if (g_defect == D_TO_HOST_HALF) memcpy(dst, scratch, size / 2);
    }
    free(scratch);
    return error;
}

static void *w_to_host_buffer(void *args) {
    if (g_defect == D_TO_HOST_NOOP || g_defect == D_TO_HOST_HALF) return to_host_partial(args);
    if (g_defect == D_TO_HOST_UNIMPLEMENTED && F(args, PJRT_Buffer_ToHostBuffer_Args, dst, void *))
        return make_error(ERR_UNIMPLEMENTED, "proxy defect to_host_unimplemented: PJRT_Buffer_ToHostBuffer is not implemented");
    void *layout = F(args, PJRT_Buffer_ToHostBuffer_Args, host_layout, void *);
    if (g_defect == D_TO_HOST_IGNORES_HOST_LAYOUT) F(args, PJRT_Buffer_ToHostBuffer_Args, host_layout, void *) = NULL;
    void *error = CALL(Buffer_ToHostBuffer, args);
    F(args, PJRT_Buffer_ToHostBuffer_Args, host_layout, void *) = layout;
    if (error || g_defect != D_TO_HOST_BITFLIP) return error;
    unsigned char *dst = F(args, PJRT_Buffer_ToHostBuffer_Args, dst, unsigned char *);
    size_t size = F(args, PJRT_Buffer_ToHostBuffer_Args, dst_size, size_t);
    if (!dst || size == 0) return NULL; /* size query: no data */
    void *copy_error = await_event(F(args, PJRT_Buffer_ToHostBuffer_Args, event, void *));
    if (copy_error) { /* the caller sees the same error through its event */
        destroy_error(copy_error);
        return NULL;
    }
    size_t width = element_size(buffer_element_type(F(args, PJRT_Buffer_ToHostBuffer_Args, src, void *)));
    if (width == 0 || width > size) return NULL;
    /* One bit of the last element: bit 0 of a byte-wide element, else the second-highest bit
     * (a float's top exponent bit), so the damage is never within a numeric tolerance. */
    if (width == 1) dst[size - 1] ^= 0x01;
    else dst[size - 1] ^= 0x40;
    return NULL;
}

static void *w_buffer_dimensions(void *args) {
    void *error = CALL(Buffer_Dimensions, args);
    if (error) return error;
    size_t rank = F(args, PJRT_Buffer_Dimensions_Args, num_dims, size_t);
    const int64_t *dims = F(args, PJRT_Buffer_Dimensions_Args, dims, const int64_t *);
    if (rank == 0 || !dims) return NULL;
    int64_t *copy = ring_alloc(rank * sizeof(int64_t));
    if (!copy) return NULL;
    memcpy(copy, dims, rank * sizeof(int64_t));
    copy[rank - 1] += 1;
    F(args, PJRT_Buffer_Dimensions_Args, dims, const int64_t *) = copy;
    return NULL;
}

static void *w_buffer_element_type(void *args) {
    void *error = CALL(Buffer_ElementType, args);
    if (error) return error;
    int *type = &F(args, PJRT_Buffer_ElementType_Args, type, int);
    switch (*type) { /* same width, other meaning */
        case BT_F32: *type = BT_S32; break;
        case BT_S32: *type = BT_F32; break;
        case BT_F64: *type = BT_S64; break;
        case BT_S64: *type = BT_F64; break;
        case BT_F16: *type = BT_BF16; break;
        case BT_BF16: *type = BT_F16; break;
        case BT_U8: *type = BT_S8; break;
        case BT_S8: *type = BT_U8; break;
        default: break;
    }
    return NULL;
}

static unsigned long long g_leaked_bytes;
static void *volatile g_leaked_list; /* chained so the compiler cannot drop the "unused" blocks */

static void *first_addressable_device(void *client) {
    ARGS(a, PJRT_Client_AddressableDevices_Args);
    F(a, PJRT_Client_AddressableDevices_Args, client, void *) = client;
    void *error = CALL(Client_AddressableDevices, a);
    if (error) {
        destroy_error(error);
        return NULL;
    }
    if (F(a, PJRT_Client_AddressableDevices_Args, num_addressable_devices, size_t) == 0) return NULL;
    return F(a, PJRT_Client_AddressableDevices_Args, addressable_devices, void *const *)[0];
}

static void *w_buffer_from_host(void *args) {
    void *strides = F(args, PJRT_Client_BufferFromHostBuffer_Args, byte_strides, void *);
    size_t num_strides = F(args, PJRT_Client_BufferFromHostBuffer_Args, num_byte_strides, size_t);
    void *device = F(args, PJRT_Client_BufferFromHostBuffer_Args, device, void *);
    if (g_defect == D_FROM_HOST_REJECTS_NON_DEFAULT_ARGUMENTS &&
        (strides || F(args, PJRT_Client_BufferFromHostBuffer_Args, memory, void *) ||
         F(args, PJRT_Client_BufferFromHostBuffer_Args, device_layout, void *)))
        return make_error(ERR_INVALID_ARGUMENT,
                          "proxy defect from_host_rejects_non_default_arguments: byte_strides, memory and device_layout "
                          "must be unset");
    if (g_defect == D_DTYPES_REJECTED_AS_UNSUPPORTED && F(args, PJRT_Client_BufferFromHostBuffer_Args, type, int) != BT_F32)
        return make_error(ERR_INVALID_ARGUMENT,
                          "proxy defect dtypes_rejected_as_unsupported: element type not supported (only F32 is)");
    if (g_defect == D_FROM_HOST_IGNORES_BYTE_STRIDES) {
        F(args, PJRT_Client_BufferFromHostBuffer_Args, byte_strides, void *) = NULL;
        F(args, PJRT_Client_BufferFromHostBuffer_Args, num_byte_strides, size_t) = 0;
    }
    if (g_defect == D_BUFFERS_ON_DEVICE0_ONLY && device) { /* a memory, when given, is left as it is */
        void *first = first_addressable_device(F(args, PJRT_Client_BufferFromHostBuffer_Args, client, void *));
        if (first) F(args, PJRT_Client_BufferFromHostBuffer_Args, device, void *) = first;
    }
    void *error = CALL(Client_BufferFromHostBuffer, args);
    F(args, PJRT_Client_BufferFromHostBuffer_Args, byte_strides, void *) = strides;
    F(args, PJRT_Client_BufferFromHostBuffer_Args, num_byte_strides, size_t) = num_strides;
    F(args, PJRT_Client_BufferFromHostBuffer_Args, device, void *) = device;
    if (!error && g_defect == D_LEAK_PER_BUFFER) {
        static size_t leak_bytes;
        if (!leak_bytes) {
            const char *text = getenv("PJRT_CTS_PROXY_LEAK_BYTES");
            leak_bytes = text && atol(text) > 0 ? (size_t)atol(text) : LEAK_BYTES_DEFAULT;
        }
        pthread_mutex_lock(&g_lock);
        int allowed = g_leaked_bytes + leak_bytes <= LEAK_TOTAL_CAP;
        if (allowed) g_leaked_bytes += leak_bytes;
        pthread_mutex_unlock(&g_lock);
        void **leaked = allowed && leak_bytes >= sizeof(void *) ? malloc(leak_bytes) : NULL;
        if (leaked) {
            memset(leaked, 0xA5, leak_bytes); /* touched: resident, not just reserved */
            pthread_mutex_lock(&g_lock);
            *leaked = g_leaked_list;
            g_leaked_list = leaked;
            pthread_mutex_unlock(&g_lock);
        }
    }
    return error;
}

static void *w_copy_to_device(void *args) {
    if (g_defect == D_COPY_TO_DEVICE_UNIMPLEMENTED)
        return make_error(ERR_UNIMPLEMENTED, "proxy defect copy_to_device_unimplemented: PJRT_Buffer_CopyToDevice is not implemented");
    void *error = CALL(Buffer_CopyToDevice, args);
    if (error) return error;
    ARGS(d, PJRT_Buffer_Destroy_Args);
    F(d, PJRT_Buffer_Destroy_Args, buffer, void *) = F(args, PJRT_Buffer_CopyToDevice_Args, dst_buffer, void *);
    destroy_error(CALL(Buffer_Destroy, d));
    F(args, PJRT_Buffer_CopyToDevice_Args, dst_buffer, void *) = F(args, PJRT_Buffer_CopyToDevice_Args, buffer, void *);
    return NULL;
}

static void *w_buffer_is_deleted(void *args) {
    void *error = CALL(Buffer_IsDeleted, args);
    if (error) return error;
    if (g_defect == D_IS_DELETED_LIES) F(args, PJRT_Buffer_IsDeleted_Args, is_deleted, _Bool) = 0;
    else if (is_marked(F(args, PJRT_Buffer_IsDeleted_Args, buffer, void *))) /* buffer_delete_ignored */
        F(args, PJRT_Buffer_IsDeleted_Args, is_deleted, _Bool) = 1;
    return NULL;
}

/* buffer_delete_ignored: Delete only marks the buffer (IsDeleted then says true); its memory stays and every
 * later call on it works as before. Destroy drops the mark (the address may be reused). */
static void *w_buffer_delete(void *args) {
    if (mark_handle(F(args, PJRT_Buffer_Delete_Args, buffer, void *), 1)) return NULL;
    return CALL(Buffer_Delete, args); /* no room to remember it: a real delete */
}

static void *w_buffer_destroy(void *args) {
    mark_handle(F(args, PJRT_Buffer_Destroy_Args, buffer, void *), 0);
    return CALL(Buffer_Destroy, args);
}

/* events ------------------------------------------------------------------------------------------ */
static void *w_buffer_ready_event(void *args) {
    void *error = CALL(Buffer_ReadyEvent, args);
    if (error) return error;
    void *never = new_unset_event();
    if (!never) return NULL;
    destroy_event(F(args, PJRT_Buffer_ReadyEvent_Args, event, void *));
    F(args, PJRT_Buffer_ReadyEvent_Args, event, void *) = never;
    return NULL;
}

typedef void (*on_ready_fn)(void *error, void *user_arg);
struct on_ready_twice { on_ready_fn callback; void *user_arg; };

static void on_ready_trampoline(void *error, void *user_arg) {
    struct on_ready_twice *pair = user_arg;
    pair->callback(error, pair->user_arg);
    pair->callback(NULL, pair->user_arg);
    free(pair);
}

static void *w_event_on_ready(void *args) {
    on_ready_fn callback = F(args, PJRT_Event_OnReady_Args, callback, on_ready_fn);
    void *user_arg = F(args, PJRT_Event_OnReady_Args, user_arg, void *);
    struct on_ready_twice *pair = callback ? malloc(sizeof *pair) : NULL;
    if (!pair) return CALL(Event_OnReady, args);
    pair->callback = callback;
    pair->user_arg = user_arg;
    F(args, PJRT_Event_OnReady_Args, callback, on_ready_fn) = on_ready_trampoline;
    F(args, PJRT_Event_OnReady_Args, user_arg, void *) = pair;
    void *error = CALL(Event_OnReady, args); /* may already have run (and freed) the trampoline's pair */
    F(args, PJRT_Event_OnReady_Args, callback, on_ready_fn) = callback;
    F(args, PJRT_Event_OnReady_Args, user_arg, void *) = user_arg;
    if (error) free(pair);
    return error;
}

static void *w_event_await(void *args) {
    destroy_error(CALL(Event_Await, args));
    return NULL;
}

static void *w_event_error(void *args) {
    destroy_error(CALL(Event_Error, args));
    return NULL;
}

static void *w_event_is_ready(void *args) {
    void *error = CALL(Event_IsReady, args);
    if (!error) F(args, PJRT_Event_IsReady_Args, is_ready, _Bool) = 1;
    return error;
}

/* compile ----------------------------------------------------------------------------------------- */
/* xla.CompileOptionsProto{executable_build_options{device_ordinal=-1, num_replicas=1, num_partitions=1}} */
static const unsigned char k_minimal_compile_options[] = {
    0x1a, 0x0f, 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x20, 0x01, 0x28, 0x01};

static int mentions(const unsigned char *code, size_t size, const char *word) {
    return memmem(code, size, word, strlen(word)) != NULL;
}

static int program_is_mlir(const void *program) {
    const char *format = F(program, PJRT_Program, format, const char *);
    size_t size = F(program, PJRT_Program, format_size, size_t);
    return format && size == 4 && memcmp(format, "mlir", 4) == 0;
}

static int is_mlir_bytecode(const unsigned char *code, size_t size) {
    return size >= 4 && memcmp(code, MLIR_BYTECODE_MAGIC, 4) == 0;
}

/* Whether an MLIR program (text or bytecode) uses the StableHLO op `op` ("dot_general"). Text names it
 * "stablehlo.<op>" followed by a character that cannot continue a name. Bytecode stores each op name once,
 * NUL-terminated, in its dialect section: "<op>_v<N>" in portable VHLO artifacts, "<op>" in plain StableHLO
 * bytecode; both are preceded by the NUL ending the previous name. Other formats (HLO) never match. */
static int program_uses_op(const void *program, const char *op) {
    if (!program || !program_is_mlir(program)) return 0;
    const unsigned char *code = F(program, PJRT_Program, code, const unsigned char *);
    size_t size = F(program, PJRT_Program, code_size, size_t);
    size_t length = strlen(op);
    char name[96];
    if (!code || !size || length + 12 > sizeof name) return 0;
    if (is_mlir_bytecode(code, size)) {
        name[0] = '\0';
        memcpy(name + 1, op, length);
        memcpy(name + 1 + length, "_v", 2); /* "\0<op>_v" */
        if (memmem(code, size, name, length + 3)) return 1;
        name[1 + length] = '\0'; /* "\0<op>\0" */
        return memmem(code, size, name, length + 2) != NULL;
    }
    int prefixed = snprintf(name, sizeof name, "stablehlo.%s", op);
    const unsigned char *end = code + size;
    for (const unsigned char *at = code; (at = memmem(at, (size_t)(end - at), name, (size_t)prefixed)) != NULL;) {
        const unsigned char *next = at + prefixed;
        if (next == end || !(*next == '_' || *next == '.' || (*next >= '0' && *next <= '9') ||
                             ((*next | 0x20) >= 'a' && (*next | 0x20) <= 'z')))
            return 1;
        at = next;
    }
    return 0;
}

static const char *rejected_op(void) {
    switch (g_defect) {
        case D_COMPILE_REJECTS_DOT_GENERAL: return "dot_general";
        case D_COMPILE_REJECTS_CONVOLUTION: return "convolution";
        case D_COMPILE_REJECTS_WHILE: return "while";
        default: return NULL;
    }
}

/* The "StableHLO_v<major>.<minor>.<patch>" producer stamp of a portable artifact, if the program has one. */
static int artifact_version(const void *program, int64_t version[3]) {
    static const char stamp[] = "StableHLO_v";
    if (!program || !program_is_mlir(program)) return 0;
    const unsigned char *code = F(program, PJRT_Program, code, const unsigned char *);
    size_t size = F(program, PJRT_Program, code_size, size_t);
    if (!code || !is_mlir_bytecode(code, size)) return 0;
    const unsigned char *at = memmem(code, size, stamp, sizeof stamp - 1);
    if (!at) return 0;
    char text[32] = {0};
    size_t left = (size_t)(code + size - at) - (sizeof stamp - 1);
    memcpy(text, at + sizeof stamp - 1, left < sizeof text - 1 ? left : sizeof text - 1);
    long long major, minor, patch;
    if (sscanf(text, "%lld.%lld.%lld", &major, &minor, &patch) != 3) return 0;
    version[0] = major;
    version[1] = minor;
    version[2] = patch;
    return 1;
}

static int version_newer(const int64_t a[3], const int64_t b[3]) {
    for (int i = 0; i < 3; i++)
        if (a[i] != b[i]) return a[i] > b[i];
    return 0;
}

/* log_plus_one / exponential_minus_one: the ops whose tiny results tiny_results_imprecise blurs. */
static int program_has_tiny_result_ops(const void *program) {
    return program_uses_op(program, "log_plus_one") || program_uses_op(program, "exponential_minus_one");
}

static int program_is_transcendental(const void *program) {
    if (!program) return 0;
    const unsigned char *code = F(program, PJRT_Program, code, const unsigned char *);
    size_t size = F(program, PJRT_Program, code_size, size_t);
    if (!code || !size) return 0;
    /* Text op names, and the VHLO names portable bytecode stores ("log_v1"...). */
    static const char *const words[] = {"exponential", "logistic", "log_plus_one", "stablehlo.log ", "log_v1", "sine",
                                        "tanh", "atan2", "cbrt", "stablehlo.power", "power_v1", "stablehlo.tan ",
                                        "tan_v1", "chlo.erf"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (mentions(code, size, words[i])) return 1;
    return 0;
}

/* unimplemented_for_one_case: a sort whose comparator takes absolute values (the golden sort.*_cmp_absval.* cases)
 * is "not implemented", while every other sort of the same element type compiles. */
static int program_sorts_by_absolute_value(const void *program) {
    return program_uses_op(program, "sort") && program_uses_op(program, "abs");
}

/* fails_every_other_time: the how-many-th execution of a marked program this run is, counted across processes in
 * a file beside the run's context file (PJRT_CTS_CONTEXT names it for every process of a `pjrt-cts run`: out/.run/),
 * so that a test and its rerun in a fresh process see different answers; per process when the variable is unset. */
static unsigned long next_marked_execution(void) {
    static unsigned long in_process;
    const char *context = getenv("PJRT_CTS_CONTEXT");
    const char *slash = context ? strrchr(context, '/') : NULL;
    char path[4096];
    if (!slash || snprintf(path, sizeof path, "%.*s/.proxy-marked-executions", (int)(slash - context), context)
                      >= (int)sizeof path) {
        pthread_mutex_lock(&g_lock);
        unsigned long call = ++in_process;
        pthread_mutex_unlock(&g_lock);
        return call;
    }
    int fd = open(path, O_RDWR | O_CREAT, 0644);
    if (fd < 0) return 1;
    flock(fd, LOCK_EX);
    char text[32] = {0};
    ssize_t got = pread(fd, text, sizeof text - 1, 0);
    unsigned long call = (got > 0 ? strtoul(text, NULL, 10) : 0) + 1;
    int length = snprintf(text, sizeof text, "%lu\n", call);
    if (ftruncate(fd, 0) != 0 || pwrite(fd, text, (size_t)length, 0) != length) call = 1;
    flock(fd, LOCK_UN);
    close(fd);
    return call;
}

/* The code of a PJRT error (ERR_UNKNOWN when it cannot be read). */
static int error_code(void *error) {
    int code = ERR_UNKNOWN;
    ARGS(c, PJRT_Error_GetCode_Args);
    F(c, PJRT_Error_GetCode_Args, error, void *) = error;
    void *nested = CALL(Error_GetCode, c);
    if (!nested) code = F(c, PJRT_Error_GetCode_Args, code, int);
    destroy_error(nested);
    return code;
}

static void *w_client_compile(void *args) {
    const void *program = F(args, PJRT_Client_Compile_Args, program, const void *);
    if (g_defect == D_UNIMPLEMENTED_FOR_ONE_CASE && program_sorts_by_absolute_value(program))
        return make_error(ERR_UNIMPLEMENTED, "proxy defect unimplemented_for_one_case: sorting with this comparator "
                                             "is not implemented");
    const char *op = rejected_op();
    if (op && program_uses_op(program, op)) {
        char message[160];
        snprintf(message, sizeof message, "proxy defect compile_rejects_%s: stablehlo.%s is not implemented", op, op);
        return make_error(ERR_UNIMPLEMENTED, message);
    }
    int64_t artifact[3], own[3];
    if (g_defect == D_STABLEHLO_VERSION_OVERCLAIMED && artifact_version(program, artifact) &&
        real_stablehlo_current(own) && version_newer(artifact, own)) {
        char message[200];
        snprintf(message, sizeof message,
                 "proxy defect stablehlo_version_overclaimed: cannot read a StableHLO %lld.%lld.%lld portable artifact "
                 "(this parser reads up to %lld.%lld.%lld)", (long long)artifact[0], (long long)artifact[1],
                 (long long)artifact[2], (long long)own[0], (long long)own[1], (long long)own[2]);
        return make_error(ERR_INVALID_ARGUMENT, message);
    }
    void *error = CALL(Client_Compile, args);
    if (g_defect == D_COMPILE_ABORTS_ON_UNREADABLE_PROGRAM && error) {
        /* what a parser that trusts its input does with a malformed program (XLA's parse errors are UNKNOWN or
           INVALID_ARGUMENT): the fuzz layer's defect class */
        int code = error_code(error);
        if (code == ERR_INVALID_ARGUMENT || code == ERR_UNKNOWN) {
            fprintf(stderr, "pjrt-cts proxy defect compile_aborts_on_unreadable_program: abort()\n");
            abort();
        }
    }
    if (g_defect == D_COMPILE_ACCEPTS_GARBAGE_OPTIONS) {
        if (error && error_code(error) == ERR_INVALID_ARGUMENT) {
            const char *options = F(args, PJRT_Client_Compile_Args, compile_options, const char *);
            size_t options_size = F(args, PJRT_Client_Compile_Args, compile_options_size, size_t);
            F(args, PJRT_Client_Compile_Args, compile_options, const void *) = k_minimal_compile_options;
            F(args, PJRT_Client_Compile_Args, compile_options_size, size_t) = sizeof k_minimal_compile_options;
            void *retry = CALL(Client_Compile, args);
            F(args, PJRT_Client_Compile_Args, compile_options, const char *) = options;
            F(args, PJRT_Client_Compile_Args, compile_options_size, size_t) = options_size;
            if (!retry) {
                destroy_error(error);
                return NULL;
            }
            destroy_error(retry);
        }
        return error;
    }
    if (error) return error;
    int marked = g_defect == D_TINY_RESULTS_IMPRECISE ? program_has_tiny_result_ops(program)
               : g_defect == D_NAN_NOT_PROPAGATED_BY_MAX ? program_uses_op(program, "maximum") || program_uses_op(program, "minimum")
               : g_defect == D_CONVERTS_ROUND_TOWARD_ZERO ? program_uses_op(program, "convert")
               : g_defect == D_FAILS_EVERY_OTHER_TIME ? program_uses_op(program, "cosine")
               : g_defect == D_RNG_RESULTS_CONSTANT ? program_uses_op(program, "rng")
               : g_defect == D_MID_SIZE_DOT_REDUCE_OFF ? program_uses_op(program, "dot_general") || program_uses_op(program, "reduce")
               : (g_defect == D_TRANSCENDENTAL_2ULP || g_defect == D_TRANSCENDENTAL_64ULP) && program_is_transcendental(program);
    if (marked) mark_handle(F(args, PJRT_Client_Compile_Args, executable, void *), 1);
    return NULL;
}

static void *w_loaded_executable_destroy(void *args) {
    mark_handle(F(args, PJRT_LoadedExecutable_Destroy_Args, executable, void *), 0);
    return CALL(LoadedExecutable_Destroy, args);
}

/* execute ----------------------------------------------------------------------------------------- */
/* The data of a computed buffer, for editing in place: only host-addressable memory (IsOnCpu) qualifies. */
static unsigned char *host_data(void *buffer, size_t *bytes) {
    if (!buffer) return NULL;
    ARGS(r, PJRT_Buffer_ReadyEvent_Args);
    F(r, PJRT_Buffer_ReadyEvent_Args, buffer, void *) = buffer;
    void *error = CALL(Buffer_ReadyEvent, r);
    if (error) { destroy_error(error); return NULL; }
    void *event = F(r, PJRT_Buffer_ReadyEvent_Args, event, void *);
    error = await_event(event);
    destroy_event(event);
    if (error) { destroy_error(error); return NULL; }
    ARGS(c, PJRT_Buffer_IsOnCpu_Args);
    F(c, PJRT_Buffer_IsOnCpu_Args, buffer, void *) = buffer;
    error = CALL(Buffer_IsOnCpu, c);
    if (error || !F(c, PJRT_Buffer_IsOnCpu_Args, is_on_cpu, _Bool)) { destroy_error(error); return NULL; }
    ARGS(p, PJRT_Buffer_UnsafePointer_Args);
    F(p, PJRT_Buffer_UnsafePointer_Args, buffer, void *) = buffer;
    error = CALL(Buffer_UnsafePointer, p);
    if (error) { destroy_error(error); return NULL; }
    ARGS(s, PJRT_Buffer_OnDeviceSizeInBytes_Args);
    F(s, PJRT_Buffer_OnDeviceSizeInBytes_Args, buffer, void *) = buffer;
    error = CALL(Buffer_OnDeviceSizeInBytes, s);
    if (error) { destroy_error(error); return NULL; }
    *bytes = F(s, PJRT_Buffer_OnDeviceSizeInBytes_Args, on_device_size_in_bytes, size_t);
    return (unsigned char *)F(p, PJRT_Buffer_UnsafePointer_Args, buffer_pointer, uintptr_t);
}

/* tiny_results_imprecise: f32/f64 outputs with 0 < |y| < TINY_RESULT_LIMIT get a relative error of
 * TINY_RESULT_RELATIVE_ERROR, far beyond a relative tolerance but below an absolute one of a few eps. */
static void blur_tiny_results(void *buffer) {
    int type = buffer_element_type(buffer);
    size_t bytes = 0;
    unsigned char *data = type == BT_F32 || type == BT_F64 ? host_data(buffer, &bytes) : NULL;
    if (!data) return;
    for (size_t offset = 0; type == BT_F32 && offset + sizeof(float) <= bytes; offset += sizeof(float)) {
        float value;
        memcpy(&value, data + offset, sizeof value);
        if (value != 0 && value > -TINY_RESULT_LIMIT && value < TINY_RESULT_LIMIT) {
            value *= (float)(1 + TINY_RESULT_RELATIVE_ERROR);
            memcpy(data + offset, &value, sizeof value);
        }
    }
    for (size_t offset = 0; type == BT_F64 && offset + sizeof(double) <= bytes; offset += sizeof(double)) {
        double value;
        memcpy(&value, data + offset, sizeof value);
        if (value != 0 && value > -TINY_RESULT_LIMIT && value < TINY_RESULT_LIMIT) {
            value *= 1 + TINY_RESULT_RELATIVE_ERROR;
            memcpy(data + offset, &value, sizeof value);
        }
    }
}

/* mid_size_dot_reduce_off: the most elements any one argument of an Execute has (what a kernel tiles over; a
 * grouped golden program's many small arguments do not add up). Read through the real Buffer_Dimensions. */
static long long largest_argument_elements(void *const *arguments, size_t count) {
    long long largest = 0;
    for (size_t i = 0; arguments && i < count; i++) {
        if (!arguments[i]) continue;
        ARGS(a, PJRT_Buffer_Dimensions_Args);
        F(a, PJRT_Buffer_Dimensions_Args, buffer, void *) = arguments[i];
        void *error = CALL(Buffer_Dimensions, a);
        if (error) { destroy_error(error); continue; }
        size_t rank = F(a, PJRT_Buffer_Dimensions_Args, num_dims, size_t);
        const int64_t *dims = F(a, PJRT_Buffer_Dimensions_Args, dims, const int64_t *);
        long long elements = 1;
        for (size_t k = 0; k < rank && dims; k++) elements *= (long long)dims[k];
        if (elements > largest) largest = elements;
    }
    return largest;
}

/* Every element of an f32 output buffer replaced by edit(element). */
static void edit_f32_results(void *buffer, float (*edit)(float)) {
    size_t bytes = 0;
    unsigned char *data = buffer_element_type(buffer) == BT_F32 ? host_data(buffer, &bytes) : NULL;
    for (size_t offset = 0; data && offset + sizeof(float) <= bytes; offset += sizeof(float)) {
        float value;
        memcpy(&value, data + offset, sizeof value);
        value = edit(value);
        memcpy(data + offset, &value, sizeof value);
    }
}

/* mid_size_dot_reduce_off: every f32 output scaled by MID_SIZE_FACTOR (a tiled kernel wrong past its first tile). */
static float times_mid_size_factor(float value) { return value * MID_SIZE_FACTOR; }
static void scale_f32_results(void *buffer) { edit_f32_results(buffer, times_mid_size_factor); }

/* Every f32 output gains 1.0: wrong by any tolerance. */
static float plus_one(float value) { return value + 1.0f; }
static void add_one_to_f32_results(void *buffer) { edit_f32_results(buffer, plus_one); }

/* subnormal_results_flushed: f32/f64 results lose their subnormal values to zeros of the same sign (flush-to-zero),
 * as a backend computing with FTZ/DAZ does where the StableHLO spec (IEEE-754) keeps them. */
static void flush_subnormal_results(void *buffer) {
    int type = buffer_element_type(buffer);
    size_t bytes = 0;
    unsigned char *data = type == BT_F32 || type == BT_F64 ? host_data(buffer, &bytes) : NULL;
    if (!data) return;
    for (size_t offset = 0; type == BT_F32 && offset + 4 <= bytes; offset += 4) {
        uint32_t bits;
        memcpy(&bits, data + offset, sizeof bits);
        if ((bits & 0x7f800000u) == 0 && (bits & 0x007fffffu) != 0) bits &= 0x80000000u;
        memcpy(data + offset, &bits, sizeof bits);
    }
    for (size_t offset = 0; type == BT_F64 && offset + 8 <= bytes; offset += 8) {
        uint64_t bits;
        memcpy(&bits, data + offset, sizeof bits);
        if ((bits & 0x7ff0000000000000ull) == 0 && (bits & 0x000fffffffffffffull) != 0) bits &= 0x8000000000000000ull;
        memcpy(data + offset, &bits, sizeof bits);
    }
}

static void perturb_ulps(void *buffer, unsigned ulps) {
    size_t bytes = 0;
    unsigned char *data = host_data(buffer, &bytes);
    if (!data) return;
    int type = buffer_element_type(buffer);
    uint64_t exponent_mask, magnitude_mask;
    size_t width;
    switch (type) {
        case BT_F64: width = 8; exponent_mask = 0x7ff0000000000000ull; magnitude_mask = 0x7fffffffffffffffull; break;
        case BT_F32: width = 4; exponent_mask = 0x7f800000u; magnitude_mask = 0x7fffffffu; break;
        /* 16-bit floats: their transcendental tolerance is 2 of their ulps, part of which the plugin's
         * own rounding uses, so the in-tolerance control leaves them alone. */
        case BT_F16: if (ulps <= TRANSCENDENTAL_SMALL_ULPS) return;
            width = 2; exponent_mask = 0x7c00u; magnitude_mask = 0x7fffu; break;
        case BT_BF16: if (ulps <= TRANSCENDENTAL_SMALL_ULPS) return;
            width = 2; exponent_mask = 0x7f80u; magnitude_mask = 0x7fffu; break;
        default: return;
    }
    for (size_t offset = 0; offset + width <= bytes; offset += width) {
        uint64_t bits = 0;
        memcpy(&bits, data + offset, width);
        if ((bits & exponent_mask) == exponent_mask || (bits & magnitude_mask) == 0) continue; /* inf, nan, zero */
        uint64_t moved = bits + ulps; /* away from zero by `ulps` units in the last place */
        if ((moved & exponent_mask) == exponent_mask) moved = bits - ulps;
        memcpy(data + offset, &moved, width);
    }
}

/* ---- value deviations the diagnosis names (issue 27) ---------------------------------------------
 * f64_results_rounded_to_f32 edits every f64 output; nan_not_propagated_by_max and converts_round_toward_zero
 * edit outputs of marked executables that the inputs show to be an elementwise max/min or a narrowing convert.
 * The golden corpus runs cases inside grouped programs (many inputs and outputs, one result per case), so the
 * proxy cannot tell an op's operands from the program; it matches values instead: an output is recomputed from
 * the inputs it provably came from, and any other output is left alone. */

/* f64_results_rounded_to_f32: f64 results carry only f32 precision and range (round to nearest, widen back). */
static void round_f64_results_to_f32(void *buffer) {
    size_t bytes = 0;
    unsigned char *data = buffer_element_type(buffer) == BT_F64 ? host_data(buffer, &bytes) : NULL;
    for (size_t offset = 0; data && offset + sizeof(double) <= bytes; offset += sizeof(double)) {
        double value;
        memcpy(&value, data + offset, sizeof value);
        value = (double)(float)value;
        memcpy(data + offset, &value, sizeof value);
    }
}

/* The f32/f64 arguments of one Execute, copied before it runs (a donated argument's memory may hold a result after). */
struct input_copy {
    int type;
    size_t bytes;
    unsigned char *data;
};

static struct input_copy *copy_float_inputs(void *const *arguments, size_t count) {
    struct input_copy *copies = calloc(count ? count : 1, sizeof *copies);
    for (size_t i = 0; copies && arguments && i < count; i++) {
        int type = arguments[i] ? buffer_element_type(arguments[i]) : BT_INVALID;
        size_t bytes = 0;
        unsigned char *data = type == BT_F32 || type == BT_F64 ? host_data(arguments[i], &bytes) : NULL;
        if (!data || bytes == 0 || !(copies[i].data = malloc(bytes))) continue;
        memcpy(copies[i].data, data, bytes);
        copies[i].type = type;
        copies[i].bytes = bytes;
    }
    return copies;
}

static void free_device_inputs(struct input_copy **inputs, size_t num_devices, size_t count) {
    for (size_t d = 0; inputs && d < num_devices; d++) {
        for (size_t i = 0; inputs[d] && i < count; i++) free(inputs[d][i].data);
        free(inputs[d]);
    }
    free(inputs);
}

static double load_float(const unsigned char *at, size_t width) {
    if (width == sizeof(float)) {
        float value;
        memcpy(&value, at, sizeof value);
        return value;
    }
    double value;
    memcpy(&value, at, sizeof value);
    return value;
}

/* Whether `out` is the elementwise maximum (+1) or minimum (-1) of `a` and `b` as the real plugin computed it
 * (0: neither): every element is bitwise one of its operands (any NaN where an operand is NaN), and where the
 * operands differ the larger (or smaller) one, consistently. */
static int extremum_kind(const unsigned char *out, const unsigned char *a, const unsigned char *b, size_t n,
                         size_t width) {
    int kind = 0;
    for (size_t k = 0; k < n; k++) {
        const unsigned char *o = out + k * width, *x = a + k * width, *y = b + k * width;
        double vo = load_float(o, width), vx = load_float(x, width), vy = load_float(y, width);
        if (isnan(vx) || isnan(vy)) {
            if (!isnan(vo) && (isnan(vx) == isnan(vy) || memcmp(o, isnan(vx) ? y : x, width) != 0)) return 0;
            continue;
        }
        if (memcmp(o, x, width) != 0 && memcmp(o, y, width) != 0) return 0;
        if (vx == vy) continue; /* equal (or +0 and -0): says nothing about the kind */
        int here = vo == (vx > vy ? vx : vy) ? 1 : -1;
        if (kind && here != kind) return 0;
        kind = here;
    }
    return kind;
}

/* nan_not_propagated_by_max: IEEE-754 maximumNumber / minimumNumber, i.e. the spec's result except that a NaN
 * operand yields the other operand (-0 < +0 as in the spec, so the value differs from the spec's only there). */
static void write_extremum_ignoring_nan(unsigned char *out, const unsigned char *a, const unsigned char *b, size_t n,
                                        size_t width, int kind) {
    for (size_t k = 0; k < n; k++) {
        const unsigned char *x = a + k * width, *y = b + k * width, *pick;
        double vx = load_float(x, width), vy = load_float(y, width);
        if (isnan(vx) && isnan(vy)) continue;
        if (isnan(vx) || isnan(vy)) pick = isnan(vx) ? y : x;
        else if (vx == vy) pick = (signbit(vx) != 0) == (kind > 0) ? y : x; /* max takes +0, min takes -0 */
        else pick = (vx > vy) == (kind > 0) ? x : y;
        memcpy(out + k * width, pick, width);
    }
}

static void max_min_ignore_nan(void *buffer, const struct input_copy *inputs, size_t count) {
    int type = buffer_element_type(buffer);
    size_t bytes = 0, width = type == BT_F32 ? sizeof(float) : sizeof(double);
    unsigned char *data = type == BT_F32 || type == BT_F64 ? host_data(buffer, &bytes) : NULL;
    for (size_t i = 0; data && i < count; i++) {
        if (inputs[i].type != type || inputs[i].bytes != bytes) continue;
        for (size_t j = i + 1; j < count; j++) {
            if (inputs[j].type != type || inputs[j].bytes != bytes) continue;
            int kind = extremum_kind(data, inputs[i].data, inputs[j].data, bytes / width, width);
            if (kind) {
                write_extremum_ignoring_nan(data, inputs[i].data, inputs[j].data, bytes / width, width, kind);
                return;
            }
        }
    }
}

/* converts_round_toward_zero: f32 -> bf16 / f16 and f64 -> f32 converts truncate. Rounding to nearest even
 * (what the plugin must do) is recomputed here only to recognise a convert's output among a program's results. */
static uint16_t f32_to_bf16(uint32_t bits, int nearest) {
    if ((bits & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((bits >> 16) | 0x40u); /* NaN stays NaN */
    if (nearest) bits += 0x7fffu + ((bits >> 16) & 1u);
    return (uint16_t)(bits >> 16);
}

static uint16_t f32_to_f16(uint32_t bits, int nearest) {
    uint16_t sign = (uint16_t)((bits >> 16) & 0x8000u);
    uint32_t magnitude = bits & 0x7fffffffu;
    if (magnitude > 0x7f800000u) return sign | 0x7e00u;                       /* NaN */
    if (magnitude == 0x7f800000u) return sign | 0x7c00u;                      /* inf */
    if (magnitude >= (nearest ? 0x477ff000u : 0x47800000u)) return sign | (nearest ? 0x7c00u : 0x7bffu); /* >= 65520 / 65536 */
    if (magnitude >= 0x38800000u) {                                           /* normal in f16: >= 2^-14 */
        uint32_t rebiased = magnitude - 0x38000000u;                          /* exponent bias 127 -> 15 */
        if (nearest) rebiased += 0xfffu + ((rebiased >> 13) & 1u);
        return sign | (uint16_t)(rebiased >> 13);
    }
    if (magnitude < 0x33000000u) return sign;                                 /* below 2^-25: zero either way */
    uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u, shift = 126u - (magnitude >> 23); /* units of 2^-24 */
    uint32_t quotient = mantissa >> shift, rest = mantissa & ((1u << shift) - 1u), half = 1u << (shift - 1u);
    if (nearest && (rest > half || (rest == half && (quotient & 1u)))) quotient++;
    return sign | (uint16_t)quotient;
}

static uint32_t f64_to_f32(uint64_t bits, int nearest) {
    double value;
    memcpy(&value, &bits, sizeof value);
    float rounded = (float)value; /* to nearest even */
    uint32_t out;
    memcpy(&out, &rounded, sizeof out);
    if (!nearest && !isnan(value) && (rounded < 0 ? -rounded : rounded) > (value < 0 ? -value : value))
        out -= 1u; /* one step toward zero (inf -> the largest finite) */
    return out;
}

/* One narrowed element of `source` (an f32 or f64 bit pattern) as `type` would hold it. */
static uint32_t narrowed(uint64_t source, int from, int type, int nearest) {
    if (from == BT_F64) return f64_to_f32(source, nearest);
    return type == BT_BF16 ? f32_to_bf16((uint32_t)source, nearest) : f32_to_f16((uint32_t)source, nearest);
}

static int is_nan_of(uint32_t bits, int type) {
    switch (type) {
        case BT_F32: return (bits & 0x7fffffffu) > 0x7f800000u;
        case BT_BF16: return (bits & 0x7fffu) > 0x7f80u;
        default: return (bits & 0x7fffu) > 0x7c00u; /* f16 */
    }
}

/* `got` is the zero of `want`'s sign where `want` is subnormal: the plugin flushed it (XLA:CPU does). */
static int is_flushed_of(uint32_t got, uint32_t want, int type) {
    uint32_t sign = type == BT_F32 ? 0x80000000u : 0x8000u;
    uint32_t exponent = type == BT_F32 ? 0x7f800000u : type == BT_BF16 ? 0x7f80u : 0x7c00u;
    return got == (want & sign) && (want & exponent) == 0 && (want & ~sign) != 0;
}

static void converts_truncate(void *buffer, const struct input_copy *inputs, size_t count) {
    int type = buffer_element_type(buffer), from = type == BT_F32 ? BT_F64 : BT_F32;
    size_t bytes = 0, width = type == BT_F32 ? 4 : 2;
    unsigned char *data = type == BT_F32 || type == BT_F16 || type == BT_BF16 ? host_data(buffer, &bytes) : NULL;
    for (size_t i = 0; data && i < count; i++) {
        if (inputs[i].type != from || inputs[i].bytes != 2 * bytes) continue;
        int is_convert = 1;
        for (size_t k = 0; is_convert && k < bytes / width; k++) {
            uint64_t source = 0;
            uint32_t got = 0, want;
            memcpy(&source, inputs[i].data + k * 2 * width, 2 * width);
            memcpy(&got, data + k * width, width);
            want = narrowed(source, from, type, 1);
            is_convert = got == want || (is_nan_of(got, type) && is_nan_of(want, type)) || is_flushed_of(got, want, type);
        }
        if (!is_convert) continue;
        for (size_t k = 0; k < bytes / width; k++) { /* NaN and flushed subnormals stay as the plugin gave them */
            uint64_t source = 0;
            uint32_t got = 0;
            memcpy(&source, inputs[i].data + k * 2 * width, 2 * width);
            memcpy(&got, data + k * width, width);
            uint32_t truncated = narrowed(source, from, type, 0);
            if (!is_nan_of(truncated, type) && !is_flushed_of(got, narrowed(source, from, type, 1), type))
                memcpy(data + k * width, &truncated, width); /* little-endian host */
        }
        return;
    }
}

/* rng_results_constant: a float output whose elements take exactly two adjacent non-negative values, both present
 * (what rng UNIFORM draws on [a, nextafter(a)): a and the excluded bound), becomes a constant: the larger one, the
 * bound. Every element is still a value XLA draws there; the draws' distribution is gone. Other outputs stay. */
static void rng_draws_made_constant(void *buffer) {
    int type = buffer_element_type(buffer);
    size_t bytes = 0, width = element_size(type);
    int is_float = type == BT_F16 || type == BT_BF16 || type == BT_F32 || type == BT_F64;
    unsigned char *data = is_float ? host_data(buffer, &bytes) : NULL;
    if (!data || width == 0 || bytes < 2 * width) return;
    uint64_t sign = 1ull << (8 * width - 1), low = UINT64_MAX, high = 0;
    for (size_t offset = 0; offset + width <= bytes; offset += width) {
        uint64_t bits = 0;
        memcpy(&bits, data + offset, width); /* little-endian host */
        if (bits & sign) return;
        if (bits < low) low = bits;
        if (bits > high) high = bits;
    }
    if (high != low + 1) return;
    for (size_t offset = 0; offset + width <= bytes; offset += width) memcpy(data + offset, &high, width);
}

static void *w_execute(void *args) {
    static unsigned long calls;
    if (g_defect == D_EXECUTE_REJECTS_ALL)
        return make_error(ERR_INVALID_ARGUMENT, "proxy defect execute_rejects_all: PJRT_LoadedExecutable_Execute rejects its arguments");
    if (g_defect == D_EXECUTE_UNIMPLEMENTED ||
        (g_defect == D_MULTI_DEVICE_EXECUTE_UNIMPLEMENTED && F(args, PJRT_LoadedExecutable_Execute_Args, num_devices, size_t) > 1))
        return make_error(ERR_UNIMPLEMENTED, g_defect == D_EXECUTE_UNIMPLEMENTED
            ? "proxy defect execute_unimplemented: PJRT_LoadedExecutable_Execute is not implemented"
            : "proxy defect multi_device_execute_unimplemented: Execute on more than one device is not implemented");
    if (g_defect == D_EXECUTE_ABORTS_THIRD_CALL) {
        pthread_mutex_lock(&g_lock);
        unsigned long call = ++calls;
        pthread_mutex_unlock(&g_lock);
        if (call == 3) {
            fprintf(stderr, "pjrt-cts proxy defect execute_aborts_third_call: abort()\n");
            abort();
        }
        return CALL(LoadedExecutable_Execute, args);
    }
    void *options = F(args, PJRT_LoadedExecutable_Execute_Args, options, void *);
    void *device = F(args, PJRT_LoadedExecutable_Execute_Args, execute_device, void *);
    size_t num_args = F(args, PJRT_LoadedExecutable_Execute_Args, num_args, size_t);
    uint64_t options_copy[64];
    int64_t *all_inputs = NULL;
    if (options && (g_defect == D_NON_DONATABLE_IGNORED || g_defect == D_DONATION_KEEPS_INPUT ||
                    g_defect == D_EXECUTE_IGNORES_CONTEXT)) {
        size_t size = *(const size_t *)options;
        if (size > sizeof options_copy) size = sizeof options_copy;
        memset(options_copy, 0, sizeof options_copy);
        memcpy(options_copy, options, size);
        *(size_t *)options_copy = size;
        if (g_defect == D_EXECUTE_IGNORES_CONTEXT) {
            if (size >= OFF_PJRT_ExecuteOptions__context + sizeof(void *))
                F(options_copy, PJRT_ExecuteOptions, context, void *) = NULL;
            F(args, PJRT_LoadedExecutable_Execute_Args, options, void *) = options_copy;
        } else if (size >= OFF_PJRT_ExecuteOptions__num_non_donatable_input_indices + sizeof(size_t)) {
            if (g_defect == D_NON_DONATABLE_IGNORED) {
                F(options_copy, PJRT_ExecuteOptions, non_donatable_input_indices, const int64_t *) = NULL;
                F(options_copy, PJRT_ExecuteOptions, num_non_donatable_input_indices, size_t) = 0;
            } else if (num_args > 0 && (all_inputs = malloc(num_args * sizeof(int64_t)))) {
                for (size_t i = 0; i < num_args; i++) all_inputs[i] = (int64_t)i;
                F(options_copy, PJRT_ExecuteOptions, non_donatable_input_indices, const int64_t *) = all_inputs;
                F(options_copy, PJRT_ExecuteOptions, num_non_donatable_input_indices, size_t) = num_args;
            }
            F(args, PJRT_LoadedExecutable_Execute_Args, options, void *) = options_copy;
        }
    }
    if (g_defect == D_EXECUTE_DEVICE_IGNORED) F(args, PJRT_LoadedExecutable_Execute_Args, execute_device, void *) = NULL;
    size_t num_devices = F(args, PJRT_LoadedExecutable_Execute_Args, num_devices, size_t);
    void *const *const *arguments = F(args, PJRT_LoadedExecutable_Execute_Args, argument_lists, void *const *const *);
    struct input_copy **inputs = NULL; /* per device, for the mutants that recompute results from the inputs */
    if ((g_defect == D_NAN_NOT_PROPAGATED_BY_MAX || g_defect == D_CONVERTS_ROUND_TOWARD_ZERO) && arguments &&
        is_marked(F(args, PJRT_LoadedExecutable_Execute_Args, executable, void *)) &&
        (inputs = calloc(num_devices ? num_devices : 1, sizeof *inputs)))
        for (size_t d = 0; d < num_devices; d++) inputs[d] = copy_float_inputs(arguments[d], num_args);
    /* Sized before Execute: a donated argument may be gone after it. */
    long long mid_size = 0;
    if (g_defect == D_MID_SIZE_DOT_REDUCE_OFF && arguments && num_devices > 0 &&
        is_marked(F(args, PJRT_LoadedExecutable_Execute_Args, executable, void *)))
        mid_size = largest_argument_elements(arguments[0], num_args);
    void *error = CALL(LoadedExecutable_Execute, args);
    F(args, PJRT_LoadedExecutable_Execute_Args, options, void *) = options;
    F(args, PJRT_LoadedExecutable_Execute_Args, execute_device, void *) = device;
    free(all_inputs);
    if (error) {
        free_device_inputs(inputs, num_devices, num_args);
        return error;
    }
    void *loaded = F(args, PJRT_LoadedExecutable_Execute_Args, executable, void *);
    void **const *outputs = F(args, PJRT_LoadedExecutable_Execute_Args, output_lists, void **const *);
    if (g_defect == D_RESULTS_REORDERED_BETWEEN_DEVICES && num_devices >= 2 && outputs) {
        size_t count = executable_num_outputs(loaded);
        for (size_t j = 0; j < count; j++) {
            void *first = outputs[0][j];
            outputs[0][j] = outputs[1][j];
            outputs[1][j] = first;
        }
    }
    if ((g_defect == D_TRANSCENDENTAL_2ULP || g_defect == D_TRANSCENDENTAL_64ULP) && outputs && is_marked(loaded)) {
        unsigned ulps = g_defect == D_TRANSCENDENTAL_2ULP ? TRANSCENDENTAL_SMALL_ULPS : TRANSCENDENTAL_LARGE_ULPS;
        size_t count = executable_num_outputs(loaded);
        for (size_t d = 0; d < num_devices; d++)
            for (size_t j = 0; j < count; j++) perturb_ulps(outputs[d][j], ulps);
    }
    if (g_defect == D_TINY_RESULTS_IMPRECISE && outputs && is_marked(loaded)) {
        size_t count = executable_num_outputs(loaded);
        for (size_t d = 0; d < num_devices; d++)
            for (size_t j = 0; j < count; j++) blur_tiny_results(outputs[d][j]);
    }
    if (g_defect == D_FAILS_EVERY_OTHER_TIME && outputs && is_marked(loaded) && next_marked_execution() % 2 == 1) {
        size_t count = executable_num_outputs(loaded);
        for (size_t d = 0; d < num_devices; d++)
            for (size_t j = 0; j < count; j++) add_one_to_f32_results(outputs[d][j]);
    }
    if (g_defect == D_RNG_RESULTS_CONSTANT && outputs && is_marked(loaded)) {
        size_t count = executable_num_outputs(loaded);
        for (size_t d = 0; d < num_devices; d++)
            for (size_t j = 0; j < count; j++) rng_draws_made_constant(outputs[d][j]);
    }
    if (g_defect == D_MID_SIZE_DOT_REDUCE_OFF && outputs && mid_size >= MID_SIZE_MIN_ELEMENTS &&
        mid_size < MID_SIZE_END_ELEMENTS) {
        size_t count = executable_num_outputs(loaded);
        for (size_t d = 0; d < num_devices; d++)
            for (size_t j = 0; j < count; j++) scale_f32_results(outputs[d][j]);
    }
    if (g_defect == D_SUBNORMAL_RESULTS_FLUSHED && outputs) {
        size_t count = executable_num_outputs(loaded);
        for (size_t d = 0; d < num_devices; d++)
            for (size_t j = 0; j < count; j++) flush_subnormal_results(outputs[d][j]);
    }
    if (g_defect == D_F64_RESULTS_ROUNDED_TO_F32 && outputs) {
        size_t count = executable_num_outputs(loaded);
        for (size_t d = 0; d < num_devices; d++)
            for (size_t j = 0; j < count; j++) round_f64_results_to_f32(outputs[d][j]);
    }
    if (inputs && outputs) {
        size_t count = executable_num_outputs(loaded);
        for (size_t d = 0; d < num_devices; d++)
            for (size_t j = 0; inputs[d] && j < count; j++) {
                if (g_defect == D_NAN_NOT_PROPAGATED_BY_MAX) max_min_ignore_nan(outputs[d][j], inputs[d], num_args);
                else converts_truncate(outputs[d][j], inputs[d], num_args);
            }
    }
    free_device_inputs(inputs, num_devices, num_args);
    return NULL;
}

static void *w_num_outputs(void *args) {
    void *error = CALL(Executable_NumOutputs, args);
    if (!error) F(args, PJRT_Executable_NumOutputs_Args, num_outputs, size_t) += 1;
    return error;
}

static void *w_output_dimensions(void *args) {
    void *error = CALL(Executable_OutputDimensions, args);
    if (error) return error;
    size_t count = F(args, PJRT_Executable_OutputDimensions_Args, num_outputs, size_t);
    const size_t *ranks = F(args, PJRT_Executable_OutputDimensions_Args, dim_sizes, const size_t *);
    const int64_t *dims = F(args, PJRT_Executable_OutputDimensions_Args, dims, const int64_t *);
    size_t total = 0;
    for (size_t i = 0; ranks && i < count; i++) total += ranks[i];
    if (total == 0 || !dims) return NULL;
    int64_t *copy = ring_alloc(total * sizeof(int64_t));
    if (!copy) return NULL;
    memcpy(copy, dims, total * sizeof(int64_t));
    copy[0] += 1; /* first dimension of the first output that has one */
    F(args, PJRT_Executable_OutputDimensions_Args, dims, const int64_t *) = copy;
    return NULL;
}

/* executable -------------------------------------------------------------------------------------- */
static void *w_serialize(void *args) {
    if (g_defect == D_SERIALIZE_UNIMPLEMENTED)
        return make_error(ERR_UNIMPLEMENTED, "proxy defect serialize_unimplemented: PJRT_Executable_Serialize is not implemented");
    void *error = CALL(Executable_Serialize, args);
    if (!error && F(args, PJRT_Executable_Serialize_Args, serialized_bytes_size, size_t) > 0)
        F(args, PJRT_Executable_Serialize_Args, serialized_bytes_size, size_t) -= 1;
    return error;
}

static void *w_fingerprint(void *args) {
    static unsigned long calls;
    if (g_defect == D_FINGERPRINT_UNIMPLEMENTED) /* allowed: the header says it may be unimplemented */
        return make_error(ERR_UNIMPLEMENTED, "proxy defect fingerprint_unimplemented: PJRT_Executable_Fingerprint is not implemented");
    void *error = CALL(Executable_Fingerprint, args);
    if (error) return error;
    if (g_defect == D_FINGERPRINT_EMPTY) {
        F(args, PJRT_Executable_Fingerprint_Args, executable_fingerprint, const char *) = "";
        F(args, PJRT_Executable_Fingerprint_Args, executable_fingerprint_size, size_t) = 0;
        return NULL;
    }
    const char *text = F(args, PJRT_Executable_Fingerprint_Args, executable_fingerprint, const char *);
    size_t size = F(args, PJRT_Executable_Fingerprint_Args, executable_fingerprint_size, size_t);
    pthread_mutex_lock(&g_lock);
    unsigned long call = ++calls;
    pthread_mutex_unlock(&g_lock);
    char *copy = ring_alloc(size + 32);
    if (!copy) return NULL;
    if (size && text) memcpy(copy, text, size);
    int added = snprintf(copy + size, 32, "-%lu", call);
    F(args, PJRT_Executable_Fingerprint_Args, executable_fingerprint, const char *) = copy;
    F(args, PJRT_Executable_Fingerprint_Args, executable_fingerprint_size, size_t) = size + (size_t)added;
    return NULL;
}

/* dlpack ------------------------------------------------------------------------------------------ */
static void *w_increase_reference(void *args) {
    (void)args;
    return make_error(ERR_UNIMPLEMENTED,
                      "proxy defect external_references_unimplemented: PJRT_Buffer_IncreaseExternalReferenceCount is not implemented");
}

static void *w_decrease_reference(void *args) {
    destroy_error(CALL(Buffer_DecreaseExternalReferenceCount, args));
    return NULL;
}

typedef void (*on_delete_fn)(void *device_buffer_ptr, void *user_arg);
struct on_delete_twice { on_delete_fn callback; void *user_arg; };

static void on_delete_trampoline(void *device_buffer_ptr, void *user_arg) {
    struct on_delete_twice *pair = user_arg;
    pair->callback(device_buffer_ptr, pair->user_arg);
    pair->callback(device_buffer_ptr, pair->user_arg);
    free(pair);
}

static void *w_create_view(void *args) {
    on_delete_fn callback = F(args, PJRT_Client_CreateViewOfDeviceBuffer_Args, on_delete_callback, on_delete_fn);
    void *user_arg = F(args, PJRT_Client_CreateViewOfDeviceBuffer_Args, on_delete_callback_arg, void *);
    struct on_delete_twice *pair = NULL;
    if (g_defect == D_ON_DELETE_CALLBACK_NEVER_CALLED) {
        F(args, PJRT_Client_CreateViewOfDeviceBuffer_Args, on_delete_callback, on_delete_fn) = NULL;
    } else if (callback && (pair = malloc(sizeof *pair))) {
        pair->callback = callback;
        pair->user_arg = user_arg;
        F(args, PJRT_Client_CreateViewOfDeviceBuffer_Args, on_delete_callback, on_delete_fn) = on_delete_trampoline;
        F(args, PJRT_Client_CreateViewOfDeviceBuffer_Args, on_delete_callback_arg, void *) = pair;
    }
    void *error = CALL(Client_CreateViewOfDeviceBuffer, args);
    F(args, PJRT_Client_CreateViewOfDeviceBuffer_Args, on_delete_callback, on_delete_fn) = callback;
    F(args, PJRT_Client_CreateViewOfDeviceBuffer_Args, on_delete_callback_arg, void *) = user_arg;
    if (error) free(pair);
    return error;
}

static void *w_opaque_pointer(void *args) {
    void *error = CALL(Buffer_OpaqueDeviceMemoryDataPointer, args);
    if (!error) F(args, PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args, device_memory_ptr, unsigned char *) += 8;
    return error;
}

/* versioning: every args struct shorter than this header's is widened before the call ---------------- */
/* errors, devices, topologies (issue 50A) ------------------------------------------------------------ */
static void *w_error_for_each_payload(void *args) {
    (void)args;
    return make_error(ERR_INTERNAL, "proxy defect for_each_payload_error: PJRT_Error_ForEachPayload cannot read the payloads");
}

static void *w_device_get_attributes(void *args) {
    void *error = CALL(Device_GetAttributes, args);
    if (!error) /* the list is leaked: without a deleter the caller cannot free it */
        F(args, PJRT_Device_GetAttributes_Args, attributes_deleter, void *) = NULL;
    return error;
}

static void *w_topology_fingerprint(void *args) {
    static uint64_t calls;
    void *error = CALL(TopologyDescription_Fingerprint, args);
    if (error) return error;
    pthread_mutex_lock(&g_lock);
    uint64_t call = ++calls;
    pthread_mutex_unlock(&g_lock);
    F(args, PJRT_TopologyDescription_Fingerprint_Args, fingerprint, uint64_t) += call;
    return NULL;
}

/* The bytes of the last topology serialization made (process lifetime, under g_lock). */
static char *g_last_topology;
static size_t g_last_topology_size;

static void *w_topology_serialize(void *args) {
    void *error = CALL(TopologyDescription_Serialize, args);
    if (error) return error;
    const char *bytes = F(args, PJRT_TopologyDescription_Serialize_Args, serialized_bytes, const char *);
    size_t size = F(args, PJRT_TopologyDescription_Serialize_Args, serialized_bytes_size, size_t);
    char *copy = malloc(size ? size : 1);
    if (!copy) return NULL;
    memcpy(copy, bytes, size);
    pthread_mutex_lock(&g_lock);
    free(g_last_topology);
    g_last_topology = copy;
    g_last_topology_size = size;
    pthread_mutex_unlock(&g_lock);
    return NULL;
}

/* Bytes that are a proper prefix of the last serialization are read as the whole of it: a Deserialize that
 * ignores serialized_topology_size (reads past the end it was given). */
static void *w_topology_deserialize(void *args) {
    const char *bytes = F(args, PJRT_TopologyDescription_Deserialize_Args, serialized_topology, const char *);
    size_t size = F(args, PJRT_TopologyDescription_Deserialize_Args, serialized_topology_size, size_t);
    pthread_mutex_lock(&g_lock);
    int prefix = g_last_topology && size > 0 && size < g_last_topology_size && memcmp(bytes, g_last_topology, size) == 0;
    if (prefix) {
        F(args, PJRT_TopologyDescription_Deserialize_Args, serialized_topology, const char *) = g_last_topology;
        F(args, PJRT_TopologyDescription_Deserialize_Args, serialized_topology_size, size_t) = g_last_topology_size;
    }
    void *error = CALL(TopologyDescription_Deserialize, args);
    pthread_mutex_unlock(&g_lock);
    F(args, PJRT_TopologyDescription_Deserialize_Args, serialized_topology, const char *) = bytes;
    F(args, PJRT_TopologyDescription_Deserialize_Args, serialized_topology_size, size_t) = size;
    return error;
}

/* aot_executable_extra_output: an executable PJRT_Compile made (for a topology, no device: ahead of time) reports one
 * output more than it has; those of PJRT_Client_Compile are left alone. Marked until destroyed (a freed handle's
 * address may come back). */
static void *w_compile(void *args) {
    void *error = CALL(Compile, args);
    if (!error) mark_handle(F(args, PJRT_Compile_Args, executable, void *), 1);
    return error;
}

static void *w_aot_num_outputs(void *args) {
    void *error = CALL(Executable_NumOutputs, args);
    if (!error && is_marked(F(args, PJRT_Executable_NumOutputs_Args, executable, void *)))
        F(args, PJRT_Executable_NumOutputs_Args, num_outputs, size_t) += 1;
    return error;
}

static void *w_executable_destroy(void *args) {
    mark_handle(F(args, PJRT_Executable_Destroy_Args, executable, void *), 0);
    return CALL(Executable_Destroy, args);
}

static void *generic_struct_size_fixup(int slot, void *args) {
    slot_fn real = (slot_fn)real_slot(slot);
    size_t expected = pjrt_slot_args_size[slot];
    if (!args || expected == 0 || *(size_t *)args >= expected) return real(args);
    size_t given = *(size_t *)args;
    *(size_t *)args = expected;
    void *error = real(args);
    *(size_t *)args = given;
    return error;
}

#define T1(i) static void *fixup_##i(void *a) { return generic_struct_size_fixup(i, a); }
#define T10(i) T1(i##0) T1(i##1) T1(i##2) T1(i##3) T1(i##4) T1(i##5) T1(i##6) T1(i##7) T1(i##8) T1(i##9)
T1(0) T1(1) T1(2) T1(3) T1(4) T1(5) T1(6) T1(7) T1(8) T1(9)
T10(1) T10(2) T10(3) T10(4) T10(5) T10(6) T10(7) T10(8) T10(9) T10(10) T10(11) T10(12) T10(13)
T1(140) T1(141) T1(142) T1(143) T1(144) T1(145) T1(146) T1(147) T1(148) T1(149)
#define R1(i) fixup_##i,
#define R10(i) R1(i##0) R1(i##1) R1(i##2) R1(i##3) R1(i##4) R1(i##5) R1(i##6) R1(i##7) R1(i##8) R1(i##9)
static slot_fn const k_fixups[150] = {R1(0) R1(1) R1(2) R1(3) R1(4) R1(5) R1(6) R1(7) R1(8) R1(9)
    R10(1) R10(2) R10(3) R10(4) R10(5) R10(6) R10(7) R10(8) R10(9) R10(10) R10(11) R10(12) R10(13) R10(14)};
_Static_assert(PJRT_NUM_SLOTS <= 150, "more slots than fixup trampolines");

/* ---- the transfer family (issue 50, 50B) ------------------------------------------------------------ */
/* transfer_chunks_at_offset_zero: every TransferData chunk lands at byte 0 of its buffer. */
static void *w_transfer_data(void *args) {
    F(args, PJRT_AsyncHostToDeviceTransferManager_TransferData_Args, offset, int64_t) = 0;
    return CALL(AsyncHostToDeviceTransferManager_TransferData, args);
}

/* uninitialized_dims_reversed: CreateUninitializedBuffer makes the transposed shape (f32[2,3] -> f32[3,2]). */
static void *w_create_uninitialized_buffer(void *args) {
    const int64_t *dims = F(args, PJRT_Client_CreateUninitializedBuffer_Args, shape_dims, const int64_t *);
    size_t rank = F(args, PJRT_Client_CreateUninitializedBuffer_Args, shape_num_dims, size_t);
    int64_t *reversed = rank && dims ? ring_alloc(rank * sizeof(int64_t)) : NULL;
    if (!reversed) return CALL(Client_CreateUninitializedBuffer, args);
    for (size_t i = 0; i < rank; i++) reversed[i] = dims[rank - 1 - i];
    F(args, PJRT_Client_CreateUninitializedBuffer_Args, shape_dims, const int64_t *) = reversed;
    void *error = CALL(Client_CreateUninitializedBuffer, args);
    F(args, PJRT_Client_CreateUninitializedBuffer_Args, shape_dims, const int64_t *) = dims;
    return error;
}

/* A new buffer with `buffer`'s shape, device and memory holding its data with one bit of the last byte flipped
 * (NULL when any step fails: the caller then leaves the call as it was). */
static void *altered_copy(void *client, void *buffer) {
    ARGS(q, PJRT_Buffer_ToHostBuffer_Args);
    F(q, PJRT_Buffer_ToHostBuffer_Args, src, void *) = buffer;
    void *error = CALL(Buffer_ToHostBuffer, q);
    size_t size = error ? 0 : F(q, PJRT_Buffer_ToHostBuffer_Args, dst_size, size_t);
    destroy_error(error);
    unsigned char *host = size ? malloc(size) : NULL;
    if (!host) return NULL;
    F(q, PJRT_Buffer_ToHostBuffer_Args, dst, void *) = host;
    error = CALL(Buffer_ToHostBuffer, q);
    if (!error) error = await_event(F(q, PJRT_Buffer_ToHostBuffer_Args, event, void *));
    destroy_event(F(q, PJRT_Buffer_ToHostBuffer_Args, event, void *));
    ARGS(d, PJRT_Buffer_Dimensions_Args);
    F(d, PJRT_Buffer_Dimensions_Args, buffer, void *) = buffer;
    if (!error) error = CALL(Buffer_Dimensions, d);
    ARGS(dev, PJRT_Buffer_Device_Args);
    F(dev, PJRT_Buffer_Device_Args, buffer, void *) = buffer;
    if (!error) error = CALL(Buffer_Device, dev);
    ARGS(m, PJRT_Buffer_Memory_Args);
    F(m, PJRT_Buffer_Memory_Args, buffer, void *) = buffer;
    if (!error) error = CALL(Buffer_Memory, m);
    void *copy = NULL;
    if (!error) {
        host[size - 1] ^= 0x40;
        ARGS(b, PJRT_Client_BufferFromHostBuffer_Args);
        F(b, PJRT_Client_BufferFromHostBuffer_Args, client, void *) = client;
        F(b, PJRT_Client_BufferFromHostBuffer_Args, data, const void *) = host;
        F(b, PJRT_Client_BufferFromHostBuffer_Args, type, int) = buffer_element_type(buffer);
        F(b, PJRT_Client_BufferFromHostBuffer_Args, dims, const int64_t *) = F(d, PJRT_Buffer_Dimensions_Args, dims, const int64_t *);
        F(b, PJRT_Client_BufferFromHostBuffer_Args, num_dims, size_t) = F(d, PJRT_Buffer_Dimensions_Args, num_dims, size_t);
        F(b, PJRT_Client_BufferFromHostBuffer_Args, host_buffer_semantics, int) = HBS_IMMUTABLE_ONLY_DURING_CALL;
        F(b, PJRT_Client_BufferFromHostBuffer_Args, device, void *) = F(dev, PJRT_Buffer_Device_Args, device, void *);
        F(b, PJRT_Client_BufferFromHostBuffer_Args, memory, void *) = F(m, PJRT_Buffer_Memory_Args, memory, void *);
        error = CALL(Client_BufferFromHostBuffer, b);
        if (!error) {
            void *done = F(b, PJRT_Client_BufferFromHostBuffer_Args, done_with_host_buffer, void *);
            destroy_error(await_event(done));
            destroy_event(done);
            copy = F(b, PJRT_Client_BufferFromHostBuffer_Args, buffer, void *);
        }
    }
    destroy_error(error);
    free(host);
    return copy;
}

static void destroy_buffer(void *buffer) {
    ARGS(a, PJRT_Buffer_Destroy_Args);
    F(a, PJRT_Buffer_Destroy_Args, buffer, void *) = buffer;
    destroy_error(CALL(Buffer_Destroy, a));
}

/* alias_fulfilled_with_other_data: FulfillAliasBuffer with a buffer fulfils the alias with a copy of it whose
 * last byte has a bit flipped (the alias holds its own reference: the copy is released at once). */
static void *w_fulfill_alias_buffer(void *args) {
    void *buffer = F(args, PJRT_Client_FulfillAliasBuffer_Args, buffer, void *);
    if (!buffer || F(args, PJRT_Client_FulfillAliasBuffer_Args, status_code, int) != ERR_OK)
        return CALL(Client_FulfillAliasBuffer, args);
    void *copy = altered_copy(F(args, PJRT_Client_FulfillAliasBuffer_Args, client, void *), buffer);
    if (!copy) return CALL(Client_FulfillAliasBuffer, args);
    F(args, PJRT_Client_FulfillAliasBuffer_Args, buffer, void *) = copy;
    void *error = CALL(Client_FulfillAliasBuffer, args);
    F(args, PJRT_Client_FulfillAliasBuffer_Args, buffer, void *) = buffer;
    destroy_buffer(copy);
    return error;
}

/* raw_copy_future_offset_ignored: CopyRawToHostFuture copies from byte 0 whatever offset is asked. */
static void *w_copy_raw_to_host_future(void *args) {
    int64_t offset = F(args, PJRT_Buffer_CopyRawToHostFuture_Args, offset, int64_t);
    F(args, PJRT_Buffer_CopyRawToHostFuture_Args, offset, int64_t) = 0;
    void *error = CALL(Buffer_CopyRawToHostFuture, args);
    F(args, PJRT_Buffer_CopyRawToHostFuture_Args, offset, int64_t) = offset;
    return error;
}

/* bitcast_ignores_new_type: Bitcast keeps the source's element type (dims and layout as asked). */
static void *w_bitcast(void *args) {
    int asked = F(args, PJRT_Buffer_Bitcast_Args, element_type, int);
    int source = buffer_element_type(F(args, PJRT_Buffer_Bitcast_Args, buffer, void *));
    if (source != BT_INVALID) F(args, PJRT_Buffer_Bitcast_Args, element_type, int) = source;
    void *error = CALL(Buffer_Bitcast, args);
    F(args, PJRT_Buffer_Bitcast_Args, element_type, int) = asked;
    return error;
}

/* dependency_ignored_by_donation: DonateWithControlDependency completes the dependency itself at once, so the new
 * buffer is ready before the caller says so; the caller gets a callback that does nothing. */
static void ignored_dependency(void *callback_args) { (void)callback_args; }

static void *w_donate_with_control_dependency(void *args) {
    void *error = CALL(Buffer_DonateWithControlDependency, args);
    if (error) return error;
    typedef void (*dependency_fn)(void *);
    dependency_fn real = F(args, PJRT_Buffer_DonateWithControlDependency_Args, dependency_ready_callback, dependency_fn);
    ARGS(c, PJRT_Buffer_DonateWithControlDependency_Callback_Args);
    F(c, PJRT_Buffer_DonateWithControlDependency_Callback_Args, callback_data, void *) =
        F(args, PJRT_Buffer_DonateWithControlDependency_Args, callback_data, void *);
    F(c, PJRT_Buffer_DonateWithControlDependency_Callback_Args, error_code, int) = ERR_OK;
    if (real) real(c);
    F(args, PJRT_Buffer_DonateWithControlDependency_Args, callback_data, void *) = NULL;
    F(args, PJRT_Buffer_DonateWithControlDependency_Args, dependency_ready_callback, dependency_fn) = ignored_dependency;
    return NULL;
}

/* memory_layout_reversed: GetMemoryLayout reports a tiled layout's minor_to_major reversed. */
static void *w_get_memory_layout(void *args) {
    void *error = CALL(Buffer_GetMemoryLayout, args);
    if (error) return error;
    unsigned char *layout = (unsigned char *)args + OFF_PJRT_Buffer_GetMemoryLayout_Args__layout;
    if (*(int *)(layout + OFF_PJRT_Buffer_MemoryLayout__type) != LAYOUT_TILED) return NULL; /* strides: untouched */
    unsigned char *tiled = layout + OFF_PJRT_Buffer_MemoryLayout__layout;
    const int64_t *m2m = *(const int64_t **)(tiled + OFF_PJRT_Buffer_MemoryLayout_Tiled__minor_to_major);
    size_t rank = *(size_t *)(tiled + OFF_PJRT_Buffer_MemoryLayout_Tiled__minor_to_major_size);
    int64_t *reversed = rank && m2m ? ring_alloc(rank * sizeof(int64_t)) : NULL;
    if (!reversed) return NULL;
    for (size_t i = 0; i < rank; i++) reversed[i] = m2m[rank - 1 - i];
    *(const int64_t **)(tiled + OFF_PJRT_Buffer_MemoryLayout_Tiled__minor_to_major) = reversed;
    return NULL;
}

/* dma_map_is_a_no_op: DmaMap succeeds without mapping anything (DmaUnmap is the real one). */
static void *w_dma_map(void *args) {
    (void)args;
    return NULL;
}

static void install_transfer_family_defect(void) {
    switch (g_defect) {
        case D_TRANSFER_CHUNKS_AT_OFFSET_ZERO: WRAP(AsyncHostToDeviceTransferManager_TransferData, w_transfer_data); break;
        case D_UNINITIALIZED_DIMS_REVERSED: WRAP(Client_CreateUninitializedBuffer, w_create_uninitialized_buffer); break;
        case D_ALIAS_FULFILLED_WITH_OTHER_DATA: WRAP(Client_FulfillAliasBuffer, w_fulfill_alias_buffer); break;
        case D_RAW_COPY_FUTURE_OFFSET_IGNORED: WRAP(Buffer_CopyRawToHostFuture, w_copy_raw_to_host_future); break;
        case D_BITCAST_IGNORES_NEW_TYPE: WRAP(Buffer_Bitcast, w_bitcast); break;
        case D_DEPENDENCY_IGNORED_BY_DONATION: WRAP(Buffer_DonateWithControlDependency, w_donate_with_control_dependency); break;
        case D_MEMORY_LAYOUT_REVERSED: WRAP(Buffer_GetMemoryLayout, w_get_memory_layout); break;
        case D_DMA_MAP_IS_A_NO_OP: WRAP(Client_DmaMap, w_dma_map); break;
        default: break;
    }
}

/* ---- set-up ---------------------------------------------------------------------------------------- */
static void install_defect(void) {
    install_transfer_family_defect();
    switch (g_defect) {
        case D_NONE: break;
        case D_GET_API_UNSTABLE: break; /* handled in GetPjrtApi */
        case D_NULL_SLOT: *(void **)(g_api + PJRT_API_HEADER_SIZE + PJRT_SLOT_SIZE * SLOT_Buffer_IsOnCpu) = NULL; break;
        case D_NEWER_MINOR_THAN_SLOTS: {
            /* Keep the reported minor, drop the last slot that minor requires (and all after it). */
            int minor = *(const int *)(g_real + PJRT_API_VERSION_OFFSET + OFF_PJRT_Api_Version__minor_version);
            int last = -1;
            for (int i = 0; i < PJRT_NUM_SLOTS; i++)
                if (pjrt_slot_since_minor[i] <= minor && PJRT_API_HEADER_SIZE + PJRT_SLOT_SIZE * (size_t)(i + 1) <= g_real_size) last = i;
            if (last > 0) *(size_t *)g_api = PJRT_API_HEADER_SIZE + PJRT_SLOT_SIZE * (size_t)last;
            break;
        }
        case D_EXTENSION_CHAIN_LOOP: make_extension_loop(); break;
        case D_ATTRIBUTES_DUPLICATED: WRAP(Plugin_Attributes, w_plugin_attributes); break;
        case D_INITIALIZE_NOT_IDEMPOTENT: WRAP(Plugin_Initialize, w_plugin_initialize); break;
        case D_API_VERSION_STRUCT_SIZE_WRONG: *(size_t *)(g_api + PJRT_API_VERSION_OFFSET) = 0; break;
        case D_DEVICE_IDS_DUPLICATED: WRAP(Client_Devices, w_client_devices); break;
        case D_LOOKUP_DEVICE_RETURNS_FIRST: WRAP(Client_LookupDevice, w_client_lookup_device); break;
        case D_PROCESS_INDEX_ONE: WRAP(Client_ProcessIndex, w_client_process_index); break;
        case D_UNKNOWN_INSTEAD_OF_INVALID_ARGUMENT: WRAP(Error_GetCode, w_error_get_code); break;
        case D_ERROR_MESSAGE_EMPTY: WRAP(Error_Message, w_error_message); break;
        case D_TO_HOST_BITFLIP: case D_TO_HOST_IGNORES_HOST_LAYOUT: WRAP(Buffer_ToHostBuffer, w_to_host_buffer); break;
        case D_DIMS_OFF_BY_ONE: WRAP(Buffer_Dimensions, w_buffer_dimensions); break;
        case D_WRONG_ELEMENT_TYPE: WRAP(Buffer_ElementType, w_buffer_element_type); break;
        case D_FROM_HOST_IGNORES_BYTE_STRIDES: case D_LEAK_PER_BUFFER:
            WRAP(Client_BufferFromHostBuffer, w_buffer_from_host); break;
        case D_COPY_TO_DEVICE_RETURNS_SOURCE: WRAP(Buffer_CopyToDevice, w_copy_to_device); break;
        case D_IS_DELETED_LIES: WRAP(Buffer_IsDeleted, w_buffer_is_deleted); break;
        case D_READY_EVENT_NEVER_FIRES: WRAP(Buffer_ReadyEvent, w_buffer_ready_event); break;
        case D_ON_READY_FIRES_TWICE: WRAP(Event_OnReady, w_event_on_ready); break;
        case D_EVENT_ERROR_SWALLOWED: WRAP(Event_Await, w_event_await); WRAP(Event_Error, w_event_error); break;
        case D_EVENT_READY_TOO_EARLY: WRAP(Event_IsReady, w_event_is_ready); break;
        case D_COMPILE_ACCEPTS_GARBAGE_OPTIONS: case D_COMPILE_ABORTS_ON_UNREADABLE_PROGRAM:
            WRAP(Client_Compile, w_client_compile); break;
        case D_EXECUTE_ABORTS_THIRD_CALL: case D_NON_DONATABLE_IGNORED: case D_DONATION_KEEPS_INPUT:
        case D_EXECUTE_DEVICE_IGNORED: case D_RESULTS_REORDERED_BETWEEN_DEVICES:
            WRAP(LoadedExecutable_Execute, w_execute); break;
        case D_TRANSCENDENTAL_2ULP: case D_TRANSCENDENTAL_64ULP:
            WRAP(Client_Compile, w_client_compile);
            WRAP(LoadedExecutable_Destroy, w_loaded_executable_destroy);
            WRAP(LoadedExecutable_Execute, w_execute);
            break;
        case D_NUM_OUTPUTS_PLUS_ONE: WRAP(Executable_NumOutputs, w_num_outputs); break;
        case D_OUTPUT_DIMS_OFF_BY_ONE: WRAP(Executable_OutputDimensions, w_output_dimensions); break;
        case D_SERIALIZE_TRUNCATED: WRAP(Executable_Serialize, w_serialize); break;
        case D_FINGERPRINT_CHANGES: WRAP(Executable_Fingerprint, w_fingerprint); break;
        case D_DECREF_BELOW_ZERO_SUCCEEDS: WRAP(Buffer_DecreaseExternalReferenceCount, w_decrease_reference); break;
        case D_ON_DELETE_CALLBACK_NEVER_CALLED: case D_ON_DELETE_CALLBACK_CALLED_TWICE:
            WRAP(Client_CreateViewOfDeviceBuffer, w_create_view); break;
        case D_OPAQUE_POINTER_OFFSET: WRAP(Buffer_OpaqueDeviceMemoryDataPointer, w_opaque_pointer); break;
        case D_STRUCT_SIZE_NOT_CHECKED:
            for (int i = 0; i < PJRT_NUM_SLOTS; i++)
                if (pjrt_slot_args_size[i] && real_slot(i)) set_slot(i, (void *)k_fixups[i]);
            break;
        case D_CLIENT_CREATE_INTERNAL: case D_CLIENT_CREATE_UNIMPLEMENTED: case D_CLIENT_CREATE_INVALID_ARGUMENT:
            WRAP(Client_Create, w_client_create); break;
        case D_COMPILE_REJECTS_DOT_GENERAL: case D_COMPILE_REJECTS_CONVOLUTION: case D_COMPILE_REJECTS_WHILE:
            WRAP(Client_Compile, w_client_compile); break;
        case D_TO_HOST_NOOP: case D_TO_HOST_HALF: case D_TO_HOST_UNIMPLEMENTED:
            WRAP(Buffer_ToHostBuffer, w_to_host_buffer); break;
        case D_FROM_HOST_REJECTS_NON_DEFAULT_ARGUMENTS: case D_DTYPES_REJECTED_AS_UNSUPPORTED: case D_BUFFERS_ON_DEVICE0_ONLY:
            WRAP(Client_BufferFromHostBuffer, w_buffer_from_host); break;
        case D_BUFFER_DELETE_IGNORED:
            WRAP(Buffer_Delete, w_buffer_delete);
            WRAP(Buffer_IsDeleted, w_buffer_is_deleted);
            WRAP(Buffer_Destroy, w_buffer_destroy);
            break;
        case D_EXECUTE_REJECTS_ALL: case D_EXECUTE_UNIMPLEMENTED: case D_MULTI_DEVICE_EXECUTE_UNIMPLEMENTED:
        case D_SUBNORMAL_RESULTS_FLUSHED: case D_F64_RESULTS_ROUNDED_TO_F32:
            WRAP(LoadedExecutable_Execute, w_execute); break;
        case D_COPY_TO_DEVICE_UNIMPLEMENTED: WRAP(Buffer_CopyToDevice, w_copy_to_device); break;
        case D_UNIMPLEMENTED_FOR_ONE_CASE: WRAP(Client_Compile, w_client_compile); break;
        case D_TINY_RESULTS_IMPRECISE: case D_NAN_NOT_PROPAGATED_BY_MAX: case D_CONVERTS_ROUND_TOWARD_ZERO:
        case D_FAILS_EVERY_OTHER_TIME: case D_MID_SIZE_DOT_REDUCE_OFF: case D_RNG_RESULTS_CONSTANT:
            WRAP(Client_Compile, w_client_compile);
            WRAP(LoadedExecutable_Destroy, w_loaded_executable_destroy);
            WRAP(LoadedExecutable_Execute, w_execute);
            break;
        case D_FINGERPRINT_EMPTY: case D_FINGERPRINT_UNIMPLEMENTED: WRAP(Executable_Fingerprint, w_fingerprint); break;
        case D_SERIALIZE_UNIMPLEMENTED: WRAP(Executable_Serialize, w_serialize); break;
        case D_EXTERNAL_REFERENCES_UNIMPLEMENTED:
            WRAP(Buffer_IncreaseExternalReferenceCount, w_increase_reference); break;
        case D_STABLEHLO_VERSION_OVERCLAIMED:
            WRAP(Plugin_Attributes, w_plugin_attributes_overclaimed);
            WRAP(Client_Compile, w_client_compile);
            break;
        case D_FOR_EACH_PAYLOAD_ERROR: WRAP(Error_ForEachPayload, w_error_for_each_payload); break;
        case D_DEVICE_ATTRIBUTES_NULL_DELETER: WRAP(Device_GetAttributes, w_device_get_attributes); break;
        case D_TOPOLOGY_FINGERPRINT_CHANGES: WRAP(TopologyDescription_Fingerprint, w_topology_fingerprint); break;
        case D_AOT_EXECUTABLE_EXTRA_OUTPUT:
            WRAP(Compile, w_compile);
            WRAP(Executable_NumOutputs, w_aot_num_outputs);
            WRAP(Executable_Destroy, w_executable_destroy);
            break;
        case D_TOPOLOGY_DESERIALIZE_READS_PAST_SIZE:
            WRAP(TopologyDescription_Serialize, w_topology_serialize);
            WRAP(TopologyDescription_Deserialize, w_topology_deserialize);
            break;
        case D_EXECUTE_IGNORES_CONTEXT: WRAP(LoadedExecutable_Execute, w_execute); break;
        case D_EXECUTE_CONTEXT_DESTROY_LEAKS: WRAP(ExecuteContext_Destroy, w_execute_context_destroy); break;
        case D_FFI_USER_DATA_DROPPED: set_extension_function(EXT_FFI, FFI_USER_DATA_ADD_OFFSET, (void *)w_ffi_user_data_add); break;
        case D_FFI_HANDLER_IGNORED:
            set_extension_function(EXT_FFI, FFI_REGISTER_HANDLER_OFFSET, (void *)w_ffi_register_handler); break;
        case D_LAYOUTS_SERIALIZED_GARBAGE:
            WRAP_EXT(LAYOUTS, PJRT_Layouts_Extension, PJRT_Layouts_MemoryLayout_Serialize, w_layouts_serialize);
            break;
        case D_MEMORY_DESCRIPTIONS_DISAGREE:
            WRAP_EXT(MEMORY_DESCRIPTIONS, PJRT_MemoryDescriptions_Extension, PJRT_DeviceDescription_MemoryDescriptions,
                     w_device_description_memory_descriptions);
            WRAP_EXT(MEMORY_DESCRIPTIONS, PJRT_MemoryDescriptions_Extension, PJRT_MemoryDescription_Kind,
                     w_memory_description_kind);
            break;
        case D_SHARDINGS_OFF_BY_ONE_DEVICE:
            WRAP_EXT(SHARDINGS, PJRT_Shardings_Extension, PJRT_Shardings_PJRT_Executable_ParameterShardings,
                     w_parameter_shardings);
            WRAP_EXT(SHARDINGS, PJRT_Shardings_Extension, PJRT_Shardings_PJRT_Executable_OutputShardings,
                     w_output_shardings);
            break;
        case D_NULL_EXTENSION_FUNCTION:
            WRAP_EXT(LAYOUTS, PJRT_Layouts_Extension, PJRT_Layouts_PJRT_Executable_GetOutputLayouts, NULL);
            break;
        case D_LAYOUTS_EXTENSION_DROPPED: drop_extension(EXT_LAYOUTS); break;
        case D_STABLEHLO_WINDOW_FALSE: WRAP(Plugin_Attributes, w_plugin_attributes_window_false); break;
        case D_PLATFORM_RENAMED: WRAP(Client_PlatformName, w_client_platform_name); break;
        case D_CLIENT_WITHOUT_DEVICES:
            WRAP(Client_Devices, w_client_devices_none);
            WRAP(Client_AddressableDevices, w_client_addressable_devices_none);
            break;
        default: break;
    }
}

static void initialize(void) {
    const char *target = getenv("PJRT_CTS_PROXY_TARGET");
    const char *defect = getenv("PJRT_CTS_PROXY_DEFECT");
    if (!target || !*target) {
        fprintf(stderr, "pjrt-cts proxy: PJRT_CTS_PROXY_TARGET is not set (path of the real plugin)\n");
        return;
    }
    g_defect = -1;
    if (!defect || !*defect) g_defect = D_NONE;
    for (int i = 0; i < D_COUNT && g_defect < 0; i++)
        if (strcmp(defect, g_defect_names[i]) == 0) g_defect = i;
    if (g_defect < 0) {
        fprintf(stderr, "pjrt-cts proxy: unknown defect '%s' in PJRT_CTS_PROXY_DEFECT\n", defect);
        return;
    }
    void *library = dlopen(target, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        fprintf(stderr, "pjrt-cts proxy: cannot load %s: %s\n", target, dlerror());
        return;
    }
    typedef const void *(*get_api_fn)(void);
    get_api_fn get_api = (get_api_fn)dlsym(library, "GetPjrtApi");
    const unsigned char *api = get_api ? get_api() : NULL;
    if (!api) {
        fprintf(stderr, "pjrt-cts proxy: %s has no GetPjrtApi or it returned NULL\n", target);
        return;
    }
    size_t size = *(const size_t *)api;
    if (size < PJRT_API_HEADER_SIZE || size > API_COPY_CAPACITY) {
        fprintf(stderr, "pjrt-cts proxy: target PJRT_Api struct_size %zu is outside [%d, %d]\n", size,
                PJRT_API_HEADER_SIZE, API_COPY_CAPACITY);
        return;
    }
    g_real = api;
    g_real_size = size;
    memcpy(g_api, api, size);
    install_defect();
    memcpy(g_api_twin, g_api, size);
    g_ready = 1;
}

__attribute__((visibility("default"))) const void *GetPjrtApi(void) {
    pthread_once(&g_once, initialize);
    if (!g_ready) return NULL;
    if (g_defect == D_GET_API_UNSTABLE) {
        pthread_mutex_lock(&g_lock);
        unsigned long call = g_get_api_calls++;
        pthread_mutex_unlock(&g_lock);
        return (call % 2) ? g_api_twin : g_api;
    }
    return g_api;
}

/* For pjrt_cts.proxy: the defect names this build knows, comma-separated. */
__attribute__((visibility("default"))) const char *PjrtCtsProxyDefectNames(void) {
    static char names[4096];
    if (!names[0]) {
        size_t used = 0;
        for (int i = 0; i < D_COUNT; i++)
            used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", i ? "," : "", g_defect_names[i]);
    }
    return names;
}

/* The defect in force after GetPjrtApi (NULL before it, or when set-up failed). */
__attribute__((visibility("default"))) const char *PjrtCtsProxyActiveDefect(void) {
    return g_ready ? g_defect_names[g_defect] : NULL;
}
