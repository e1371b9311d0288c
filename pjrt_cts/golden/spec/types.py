"""Element types as the StableHLO spec names them: corpus names, MLIR spellings and type classes."""
from __future__ import annotations

import ml_dtypes
import numpy as np

from pjrt_cts.golden import dtypes

# corpus name -> MLIR spelling in a program (signed integers are signless in MLIR: `i32` is si32)
MLIR_NAMES: dict[str, str] = {
    "pred": "i1",
    "s2": "i2", "s4": "i4", "s8": "i8", "s16": "i16", "s32": "i32", "s64": "i64",
    "u2": "ui2", "u4": "ui4", "u8": "ui8", "u16": "ui16", "u32": "ui32", "u64": "ui64",
    "f4e2m1fn": "f4E2M1FN", "f6e2m3fn": "f6E2M3FN", "f6e3m2fn": "f6E3M2FN",
    "f8e3m4": "f8E3M4", "f8e4m3": "f8E4M3", "f8e4m3fn": "f8E4M3FN", "f8e4m3fnuz": "f8E4M3FNUZ",
    "f8e4m3b11fnuz": "f8E4M3B11FNUZ", "f8e5m2": "f8E5M2", "f8e5m2fnuz": "f8E5M2FNUZ", "f8e8m0fnu": "f8E8M0FNU",
    "bf16": "bf16", "f16": "f16", "f32": "f32", "f64": "f64",
    "c64": "complex<f32>", "c128": "complex<f64>",
}

BOOLEAN = ("pred",)
SIGNED = ("s2", "s4", "s8", "s16", "s32", "s64")
UNSIGNED = ("u2", "u4", "u8", "u16", "u32", "u64")
FLOATS = ("f4e2m1fn", "f6e2m3fn", "f6e3m2fn", "f8e3m4", "f8e4m3", "f8e4m3fn", "f8e4m3fnuz", "f8e4m3b11fnuz",
          "f8e5m2", "f8e5m2fnuz", "f8e8m0fnu", "bf16", "f16", "f32", "f64")
COMPLEX = ("c64", "c128")

# The element type classes of the spec's type constraints ("tensor of integer type", "of floating-point
# type", ...); an op's spec-reference cases cover every class it allows.
CLASSES: dict[str, tuple[str, ...]] = {
    "bool": BOOLEAN, "signed": SIGNED, "unsigned": UNSIGNED, "float": FLOATS, "complex": COMPLEX,
}

# Representatives of each class that every op allowing the class is tested with: the widths where
# implementations differ (sub-byte, the native 32/64 bits, the narrow floats that are emulated).
REPRESENTATIVES: dict[str, tuple[str, ...]] = {
    "bool": ("pred",),
    "signed": ("s4", "s8", "s32", "s64"),
    "unsigned": ("u4", "u8", "u32", "u64"),
    "float": ("f4e2m1fn", "f6e3m2fn", "f8e4m3fn", "f8e5m2", "bf16", "f16", "f32", "f64"),
    "complex": ("c64", "c128"),
}


def class_of(name: str) -> str:
    for cls, names in CLASSES.items():
        if name in names:
            return cls
    raise ValueError(f"{name!r} is not a StableHLO element type")


def mlir_type(shape: tuple[int, ...] | list[int], name: str) -> str:
    """`tensor<2x3xf32>` for shape (2, 3) and element type f32."""
    dims = "".join(f"{d}x" for d in shape)
    return f"tensor<{dims}{MLIR_NAMES[name]}>"


def np_dtype(name: str) -> np.dtype:
    return dtypes.dtype_of(name)


def bit_width(name: str) -> int:
    """The element type's width in bits (i1 is 1; ml_dtypes stores sub-byte types in a byte each)."""
    if name == "pred":
        return 1
    if name in ("c64", "c128"):
        return 64 if name == "c64" else 128
    dtype = np_dtype(name)
    if name in ("s2", "u2"):
        return 2
    if name in ("s4", "u4", "f4e2m1fn"):
        return 4
    if name in ("f6e2m3fn", "f6e3m2fn"):  # not startswith("f6"): f64
        return 6
    return dtype.itemsize * 8


def int_range(name: str) -> tuple[int, int]:
    """[min, max] of an integer type (ml_dtypes' iinfo knows the sub-byte ones)."""
    info = ml_dtypes.iinfo(np_dtype(name))
    return int(info.min), int(info.max)
