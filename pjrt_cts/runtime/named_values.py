"""Python dicts <-> arrays of PJRT_NamedValue (client create options, attributes, cost analysis)."""
from __future__ import annotations

import ctypes
from typing import Any, Mapping, Sequence, Union

from pjrt_cts.abi.enums import NamedValueType
from pjrt_cts.abi.structs import PJRT_NamedValue

NamedValue = Union[str, int, float, bool, "list[int]"]


class NamedValueArray:
    """A PJRT_NamedValue[] built from a mapping; keeps every referenced buffer alive while it lives."""

    def __init__(self, values: Mapping[str, Any]) -> None:
        self._keepalive: list[Any] = []
        self.array = (PJRT_NamedValue * max(1, len(values)))()
        self.count = len(values)
        for slot, (name, value) in zip(self.array, values.items()):
            self._fill(slot, name, value)

    def _keep(self, obj: Any) -> Any:
        self._keepalive.append(obj)
        return obj

    def _fill(self, slot: PJRT_NamedValue, name: str, value: Any) -> None:
        slot.struct_size = PJRT_NamedValue.STRUCT_SIZE
        encoded_name = self._keep(ctypes.create_string_buffer(name.encode()))
        slot.name = ctypes.addressof(encoded_name)
        slot.name_size = len(name.encode())
        if isinstance(value, bool):  # before int: bool is an int subclass
            slot.type, slot.bool_value, slot.value_size = NamedValueType.BOOL, value, 1
        elif isinstance(value, int):
            slot.type, slot.int64_value, slot.value_size = NamedValueType.INT64, value, 1
        elif isinstance(value, float):
            slot.type, slot.float_value, slot.value_size = NamedValueType.FLOAT, value, 1
        elif isinstance(value, str):
            data = value.encode()
            buffer = self._keep(ctypes.create_string_buffer(data))
            slot.type, slot.value_size = NamedValueType.STRING, len(data)
            slot.int64_array_value = ctypes.addressof(buffer)  # same union slot as string_value
        elif isinstance(value, (list, tuple)) and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            array = self._keep((ctypes.c_int64 * max(1, len(value)))(*value))
            slot.type, slot.value_size = NamedValueType.INT64_LIST, len(value)
            slot.int64_array_value = ctypes.addressof(array)
        else:
            raise TypeError(f"option {name!r}: unsupported value {value!r} (str, int, float, bool or list[int])")

    @property
    def pointer(self) -> int | None:
        return ctypes.addressof(self.array) if self.count else None


def read_named_values(pointer: int | None, count: int) -> dict[str, NamedValue]:
    """Decode a plugin-owned PJRT_NamedValue[count] (e.g. attributes) into a dict (later duplicates win)."""
    return dict(read_named_value_items(pointer, count))


def read_named_value_items(pointer: int | None, count: int) -> list[tuple[str, NamedValue]]:
    """Like read_named_values but keeps every entry in order, duplicates included (for uniqueness checks)."""
    if not pointer or count == 0:
        return []
    array = (PJRT_NamedValue * count).from_address(pointer)
    return [(ctypes.string_at(item.name, item.name_size).decode(errors="replace"), _value_of(item)) for item in array]


def _value_of(item: PJRT_NamedValue) -> NamedValue:
    kind = item.type
    if kind == NamedValueType.STRING:
        return ctypes.string_at(item.int64_array_value, item.value_size).decode(errors="replace") if item.value_size else ""
    if kind == NamedValueType.INT64:
        return int(item.int64_value)
    if kind == NamedValueType.INT64_LIST:
        if not item.value_size:
            return []
        return list((ctypes.c_int64 * item.value_size).from_address(item.int64_array_value))
    if kind == NamedValueType.FLOAT:
        return float(item.float_value)
    if kind == NamedValueType.BOOL:
        return bool(item.bool_value)
    return f"<unknown PJRT_NamedValue_Type {kind}>"


def type_name_of(value: NamedValue) -> str:
    """The PJRT_NamedValue_Type a decoded value had (for attribute type checks)."""
    if isinstance(value, bool):
        return "BOOL"
    if isinstance(value, int):
        return "INT64"
    if isinstance(value, float):
        return "FLOAT"
    if isinstance(value, str):
        return "STRING"
    if isinstance(value, list):
        return "INT64_LIST"
    return "UNKNOWN"


def parse_option_assignments(assignments: Sequence[str]) -> dict[str, NamedValue]:
    """`["cpu_device_count=4", "asynchronous=true", "platform_name=SYCL"]` -> typed dict for Client_Create."""
    options: dict[str, NamedValue] = {}
    for assignment in assignments:
        name, sep, raw = assignment.partition("=")
        if not sep or not name:
            raise ValueError(f"create option {assignment!r} is not NAME=VALUE")
        options[name.strip()] = _parse_scalar_or_list(raw.strip())
    return options


def _parse_scalar_or_list(raw: str) -> NamedValue:
    lowered = raw.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if raw.startswith("[") and raw.endswith("]"):
        inner = raw[1:-1].strip()
        return [int(part) for part in inner.split(",")] if inner else []
    for convert in (int, float):
        try:
            return convert(raw)
        except ValueError:
            pass
    return raw
