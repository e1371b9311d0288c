"""numpy dtype <-> PJRT_Buffer_Type, including ml_dtypes' bf16, fp8, fp6, fp4 and sub-byte ints."""
from __future__ import annotations

from typing import Any, cast

import ml_dtypes
import numpy as np

from pjrt_cts.abi.enums import BufferType

_PAIRS: list[tuple[BufferType, str]] = [
    (BufferType.PRED, "bool"),
    (BufferType.S8, "int8"),
    (BufferType.S16, "int16"),
    (BufferType.S32, "int32"),
    (BufferType.S64, "int64"),
    (BufferType.U8, "uint8"),
    (BufferType.U16, "uint16"),
    (BufferType.U32, "uint32"),
    (BufferType.U64, "uint64"),
    (BufferType.F16, "float16"),
    (BufferType.F32, "float32"),
    (BufferType.F64, "float64"),
    (BufferType.BF16, "bfloat16"),
    (BufferType.C64, "complex64"),
    (BufferType.C128, "complex128"),
    (BufferType.F8E5M2, "float8_e5m2"),
    (BufferType.F8E4M3FN, "float8_e4m3fn"),
    (BufferType.F8E4M3B11FNUZ, "float8_e4m3b11fnuz"),
    (BufferType.F8E5M2FNUZ, "float8_e5m2fnuz"),
    (BufferType.F8E4M3FNUZ, "float8_e4m3fnuz"),
    (BufferType.S4, "int4"),
    (BufferType.U4, "uint4"),
    (BufferType.S2, "int2"),
    (BufferType.U2, "uint2"),
    (BufferType.F8E4M3, "float8_e4m3"),
    (BufferType.F8E3M4, "float8_e3m4"),
    (BufferType.F8E8M0FNU, "float8_e8m0fnu"),
    (BufferType.F4E2M1FN, "float4_e2m1fn"),
    (BufferType.S1, "int1"),
    (BufferType.U1, "uint1"),
    (BufferType.F6E2M3FN, "float6_e2m3fn"),
    (BufferType.F6E3M2FN, "float6_e3m2fn"),
]


def _resolve(name: str) -> np.dtype | None:
    if hasattr(np, name) and name not in ("int4", "uint4", "int2", "uint2", "int1", "uint1"):
        return cast("np.dtype[Any]", np.dtype(getattr(np, name)))
    kind: Any = getattr(ml_dtypes, name, None)
    return np.dtype(kind) if kind is not None else None


BUFFER_TYPE_TO_DTYPE: dict[BufferType, np.dtype] = {}
DTYPE_TO_BUFFER_TYPE: dict[np.dtype, BufferType] = {}
for _buffer_type, _name in _PAIRS:
    _dtype = _resolve(_name)
    if _dtype is not None:
        BUFFER_TYPE_TO_DTYPE[_buffer_type] = _dtype
        DTYPE_TO_BUFFER_TYPE[_dtype] = _buffer_type

# Short names used in test ids and golden case ids (XLA's spelling).
SHORT_NAMES: dict[BufferType, str] = {bt: bt.name.lower() for bt in BufferType}


def buffer_type_of(dtype: np.dtype | type) -> BufferType:
    try:
        return DTYPE_TO_BUFFER_TYPE[np.dtype(dtype)]
    except KeyError:
        raise TypeError(f"no PJRT_Buffer_Type for numpy dtype {np.dtype(dtype)}") from None


def dtype_of(buffer_type: BufferType | int) -> np.dtype:
    try:
        return BUFFER_TYPE_TO_DTYPE[BufferType(buffer_type)]
    except (KeyError, ValueError):
        raise TypeError(f"no numpy dtype for PJRT_Buffer_Type {buffer_type}") from None
