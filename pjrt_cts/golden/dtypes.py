"""Element-type names used by the corpus (StableHLO spellings) and their numpy dtypes.

Types numpy cannot name (bf16, fp8, fp4) come from ml_dtypes; in `.npz` files they are stored as
their raw bits (unsigned integers of the same width) so that `allow_pickle=False` loading works.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

_NUMPY_NAMED: dict[str, np.dtype] = {
    "pred": np.dtype(np.bool_),
    "s8": np.dtype(np.int8),
    "s16": np.dtype(np.int16),
    "s32": np.dtype(np.int32),
    "s64": np.dtype(np.int64),
    "u8": np.dtype(np.uint8),
    "u16": np.dtype(np.uint16),
    "u32": np.dtype(np.uint32),
    "u64": np.dtype(np.uint64),
    "f16": np.dtype(np.float16),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    "c64": np.dtype(np.complex64),
    "c128": np.dtype(np.complex128),
}

# Types stored as raw bits in .npz (name -> ml_dtypes attribute).
_ML_DTYPES: dict[str, str] = {
    "bf16": "bfloat16",
    "f8e4m3fn": "float8_e4m3fn",
    "f8e5m2": "float8_e5m2",
    "f8e4m3b11fnuz": "float8_e4m3b11fnuz",
    "f8e4m3fnuz": "float8_e4m3fnuz",
    "f8e5m2fnuz": "float8_e5m2fnuz",
    "f8e4m3": "float8_e4m3",
    "f8e3m4": "float8_e3m4",
    "f8e8m0fnu": "float8_e8m0fnu",
    "f4e2m1fn": "float4_e2m1fn",
    "f6e2m3fn": "float6_e2m3fn",
    "f6e3m2fn": "float6_e3m2fn",
    "s2": "int2",
    "s4": "int4",
    "u2": "uint2",
    "u4": "uint4",
}

DTYPES: dict[str, np.dtype] = dict(_NUMPY_NAMED)
for _name, _attr in _ML_DTYPES.items():
    if hasattr(ml_dtypes, _attr):
        DTYPES[_name] = np.dtype(getattr(ml_dtypes, _attr))

FP8_NAMES = tuple(n for n in DTYPES if n.startswith(("f8", "f4")))
FLOAT_NAMES = ("f16", "bf16", "f32", "f64") + FP8_NAMES + ("f6e2m3fn", "f6e3m2fn")
COMPLEX_NAMES = ("c64", "c128")
SIGNED_NAMES = ("s8", "s16", "s32", "s64")
UNSIGNED_NAMES = ("u8", "u16", "u32", "u64")
INTEGER_NAMES = SIGNED_NAMES + UNSIGNED_NAMES


def dtype_of(name: str) -> np.dtype:
    try:
        return DTYPES[name]
    except KeyError:
        raise ValueError(f"unknown element type {name!r}; known: {sorted(DTYPES)}") from None


def name_of(dtype: np.dtype | type) -> str:
    dtype = np.dtype(dtype)
    for name, candidate in DTYPES.items():
        if candidate == dtype:
            return name
    raise ValueError(f"numpy dtype {dtype} has no corpus name")


def is_stored_as_bits(name: str) -> bool:
    return name in _ML_DTYPES


def _bits_dtype(dtype: np.dtype) -> np.dtype:
    return np.dtype({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[dtype.itemsize])


def to_storable(array: np.ndarray) -> np.ndarray:
    """An array npz can hold without pickling (ml_dtypes arrays become their raw bits)."""
    array = np.require(array, requirements="C")  # keeps rank 0 (ascontiguousarray would not)
    if is_stored_as_bits(name_of(array.dtype)):
        return array.view(_bits_dtype(array.dtype))
    return array


def from_storable(array: np.ndarray, name: str) -> np.ndarray:
    dtype = dtype_of(name)
    if is_stored_as_bits(name):
        return np.require(array, requirements="C").view(dtype)
    if array.dtype != dtype:
        raise ValueError(f"stored array has dtype {array.dtype}, manifest says {name}")
    return array


def is_floating(name: str) -> bool:
    return name in FLOAT_NAMES


def is_complex(name: str) -> bool:
    return name in COMPLEX_NAMES


def finfo(name: str):
    """Float-format facts (works for ml_dtypes types); complex types give their component's."""
    if name == "c64":
        return ml_dtypes.finfo(np.float32)
    if name == "c128":
        return ml_dtypes.finfo(np.float64)
    return ml_dtypes.finfo(dtype_of(name))
