"""PJRT C API enums (all are 4-byte C ints)."""
from __future__ import annotations

import enum


class ErrorCode(enum.IntEnum):
    OK = 0  # named in the header since 0.77
    CANCELLED = 1
    UNKNOWN = 2
    INVALID_ARGUMENT = 3
    DEADLINE_EXCEEDED = 4
    NOT_FOUND = 5
    ALREADY_EXISTS = 6
    PERMISSION_DENIED = 7
    RESOURCE_EXHAUSTED = 8
    FAILED_PRECONDITION = 9
    ABORTED = 10
    OUT_OF_RANGE = 11
    UNIMPLEMENTED = 12
    INTERNAL = 13
    UNAVAILABLE = 14
    DATA_LOSS = 15
    UNAUTHENTICATED = 16


class BufferType(enum.IntEnum):
    """PJRT_Buffer_Type (not xla::PrimitiveType numbers). Out-of-range values abort XLA plugins."""

    INVALID = 0
    PRED = 1
    S8 = 2
    S16 = 3
    S32 = 4
    S64 = 5
    U8 = 6
    U16 = 7
    U32 = 8
    U64 = 9
    F16 = 10
    F32 = 11
    F64 = 12
    BF16 = 13
    C64 = 14
    C128 = 15
    F8E5M2 = 16
    F8E4M3FN = 17
    F8E4M3B11FNUZ = 18
    F8E5M2FNUZ = 19
    F8E4M3FNUZ = 20
    S4 = 21
    U4 = 22
    TOKEN = 23
    S2 = 24
    U2 = 25
    F8E4M3 = 26
    F8E3M4 = 27
    F8E8M0FNU = 28
    F4E2M1FN = 29
    S1 = 30
    U1 = 31
    F6E2M3FN = 32
    F6E3M2FN = 33


# Minor version that added each buffer type beyond the base set (PRED..U4, TOKEN at 0.50).
BUFFER_TYPE_SINCE: dict[BufferType, int] = {
    BufferType.TOKEN: 50,
    BufferType.F8E4M3: 55,
    BufferType.F8E3M4: 55,
    BufferType.F8E8M0FNU: 63,
    BufferType.F4E2M1FN: 63,
    BufferType.S1: 94,
    BufferType.U1: 94,
    BufferType.F6E2M3FN: 114,
    BufferType.F6E3M2FN: 114,
}


class NamedValueType(enum.IntEnum):
    STRING = 0
    INT64 = 1
    INT64_LIST = 2
    FLOAT = 3
    BOOL = 4  # since 0.30


class HostBufferSemantics(enum.IntEnum):
    IMMUTABLE_ONLY_DURING_CALL = 0
    IMMUTABLE_UNTIL_TRANSFER_COMPLETES = 1
    IMMUTABLE_ZERO_COPY = 2
    MUTABLE_ZERO_COPY = 3  # since 0.48


class MemoryLayoutType(enum.IntEnum):
    TILED = 0
    STRIDES = 1


class ProcessState(enum.IntEnum):
    UNSPECIFIED = 0
    UNINITIALIZED = 1
    DISCONNECTED = 2
    CONNECTED = 3
    ERROR = 4


class ExtensionType(enum.IntEnum):
    GPU_CUSTOM_CALL = 0
    PROFILER = 1
    CUSTOM_PARTITIONER = 2
    STREAM = 3
    LAYOUTS = 4
    FFI = 5
    MEMORY_DESCRIPTIONS = 6
    TRITON = 7
    RAW_BUFFER = 8
    PHASE_COMPILE = 9
    EXAMPLE = 10
    UNKNOWN = 11
    CROSS_HOST_TRANSFERS = 12
    EXECUTABLE_METADATA = 13
    CALLBACK = 14
    HOST_ALLOCATOR = 15
    TPU_TOPOLOGY = 16
    TPU_EXECUTABLE = 17
    MEGASCALE = 18
    SHARDINGS = 19
    ABI_VERSION = 20
    COLLECTIVES = 21
    MULTI_SLICE = 22
    HOST_MEMORY_ALLOCATOR = 23
    XLA_TRANSFORM = 24
