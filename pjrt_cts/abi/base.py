"""Base classes for the ctypes mirrors: header fields and the PJRT_STRUCT_SIZE convention."""
from __future__ import annotations

import ctypes
from typing import Any, ClassVar

# Every args struct starts with `size_t struct_size; PJRT_Extension_Base* extension_start;`.
HEADER: list[tuple[str, Any]] = [("struct_size", ctypes.c_size_t), ("extension_start", ctypes.c_void_p)]

# Minor of the 0.57 layout that all "base" structs/slots belong to (0.57 rearranged PJRT_Api).
BASE_MINOR = 57


def _size_through(cls: type[ctypes.Structure], last_field: str) -> int:
    descriptor = getattr(cls, last_field)
    return int(descriptor.offset + descriptor.size)


class RawStruct(ctypes.Structure):
    """A struct without a `struct_size` member (PJRT_Chunk, PJRT_LogicalDeviceIds...)."""

    _since_: ClassVar[int] = BASE_MINOR
    _field_since_: ClassVar[dict[str, int]] = {}


class PjrtStruct(RawStruct):
    """A struct whose `struct_size` must be PJRT_STRUCT_SIZE: offset of the last field + its size.

    That excludes tail padding, so it differs from ctypes.sizeof for 16 structs (e.g. 25 vs 32
    for PJRT_Event_IsReady_Args). Instances are created with struct_size already set.
    """

    STRUCT_SIZE: ClassVar[int]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if "struct_size" not in kwargs and self._fields_[0][0] == "struct_size":
            self.struct_size = type(self).STRUCT_SIZE

    @classmethod
    def struct_size_at(cls, minor: int) -> int:
        """PJRT_STRUCT_SIZE as a header of API version 0.<minor> defined it (drops later trailing fields)."""
        if minor < cls._since_:
            raise ValueError(f"{cls.__name__} did not exist at 0.{minor} (added in 0.{cls._since_})")
        present = [field[0] for field in cls._fields_ if cls._field_since_.get(field[0], 0) <= minor]
        return _size_through(cls, present[-1])

    @classmethod
    def fields_added_after(cls, minor: int) -> list[str]:
        return [field[0] for field in cls._fields_ if cls._field_since_.get(field[0], 0) > minor]


def finalize_struct_sizes(namespace: dict[str, Any]) -> None:
    """Compute STRUCT_SIZE for every PjrtStruct subclass defined in a module namespace."""
    for value in list(namespace.values()):
        if isinstance(value, type) and issubclass(value, PjrtStruct) and value is not PjrtStruct:
            value.STRUCT_SIZE = _size_through(value, value._fields_[-1][0])
