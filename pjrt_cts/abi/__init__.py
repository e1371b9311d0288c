"""ctypes declarations of the PJRT C API (declarations only; behaviour lives in pjrt_cts.runtime).

- `structs`: every struct at header 0.114, with PJRT_STRUCT_SIZE and version metadata.
- `slots`: the 138 PJRT_Api function slots in order, each with the minor that added it.
- `enums`: error codes, buffer types, named-value types, host-buffer semantics, extension types.
- `callbacks`: CFUNCTYPE signatures of slots and caller-supplied callbacks.
"""
from pjrt_cts.abi import callbacks, enums, slots, structs
from pjrt_cts.abi.api import PJRT_Api_Head
from pjrt_cts.abi.base import PjrtStruct, RawStruct
from pjrt_cts.abi.enums import BufferType, ErrorCode, ExtensionType, HostBufferSemantics, NamedValueType
from pjrt_cts.abi.slots import SLOTS, SLOTS_BY_NAME, Slot

__all__ = [
    "BufferType",
    "ErrorCode",
    "ExtensionType",
    "HostBufferSemantics",
    "NamedValueType",
    "PJRT_Api_Head",
    "PjrtStruct",
    "RawStruct",
    "SLOTS",
    "SLOTS_BY_NAME",
    "Slot",
    "callbacks",
    "enums",
    "slots",
    "structs",
]
