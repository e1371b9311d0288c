"""MEMORY_DESCRIPTIONS: the memory spaces a PJRT_DeviceDescription declares (kinds, kind ids, the default one)."""
from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pjrt_cts.abi.enums import ExtensionType
from pjrt_cts.abi.extensions import memory_descriptions as abi
from pjrt_cts.runtime.extensions.calls import call, read_pointers

if TYPE_CHECKING:
    from pjrt_cts.runtime.plugin import Plugin

NO_DEFAULT = (1 << 64) - 1  # default_memory_index when the description has no default memory ((size_t)-1)


@dataclass(frozen=True)
class MemoryDescription:
    handle: int  # PJRT_MemoryDescription*, owned by the device description
    kind: str
    kind_id: int


def memory_descriptions(plugin: "Plugin", device_description: int) -> tuple[list[int], int | None]:
    """DeviceDescription_MemoryDescriptions: (the description handles, the default's index or None)."""
    args = call(plugin, ExtensionType.MEMORY_DESCRIPTIONS, "DeviceDescription_MemoryDescriptions",
                abi.PJRT_DeviceDescription_MemoryDescriptions_Args(device_description=device_description))
    handles = read_pointers(args.memory_descriptions, args.num_memory_descriptions)
    default = int(args.default_memory_index)
    return handles, None if default == NO_DEFAULT else default


def describe(plugin: "Plugin", memory_description: int) -> MemoryDescription:
    """MemoryDescription_Kind of one description."""
    args = call(plugin, ExtensionType.MEMORY_DESCRIPTIONS, "MemoryDescription_Kind",
                abi.PJRT_MemoryDescription_Kind_Args(memory_description=memory_description))
    kind = ctypes.string_at(args.kind, args.kind_size).decode("utf-8", errors="replace") if args.kind else ""
    return MemoryDescription(memory_description, kind, int(args.kind_id))
