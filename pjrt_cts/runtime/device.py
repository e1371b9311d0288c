"""PJRT_Device, PJRT_DeviceDescription and PJRT_Memory views (owned by the client: never freed here), and what a
device hands out that the caller frees: its attribute list (PJRT_Device_GetAttributes) and async tracking events."""
from __future__ import annotations

import ctypes
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Mapping

from pjrt_cts.abi import structs
from pjrt_cts.abi.base import PjrtStruct
from pjrt_cts.abi.callbacks import SerializedDeleter
from pjrt_cts.abi.enums import ErrorCode
from pjrt_cts.runtime.handles import OwnedHandle
from pjrt_cts.runtime.named_values import NamedValue, NamedValueArray, read_named_value_items

if TYPE_CHECKING:
    from pjrt_cts.runtime.client import Client
    from pjrt_cts.runtime.plugin import Plugin


def read_string(pointer: int | None, size: int) -> str:
    return ctypes.string_at(pointer, size).decode(errors="replace") if pointer and size else ""


def read_handles(pointer: int | None, count: int) -> list[int]:
    return [int(h or 0) for h in (ctypes.c_void_p * count).from_address(pointer)] if pointer and count else []


class DeviceDescription:
    """PJRT_DeviceDescription: what a device is, valid as long as its client or topology (`owner`, kept alive)."""

    def __init__(self, plugin: "Plugin", handle: int, owner: object = None) -> None:
        self.plugin = plugin
        self.handle = handle
        self._owner = owner

    def _get(self, name: str, struct: type[PjrtStruct]) -> PjrtStruct:
        return self.plugin.call("DeviceDescription_" + name, struct(device_description=self.handle))

    @cached_property
    def id(self) -> int:
        return int(self._get("Id", structs.PJRT_DeviceDescription_Id_Args).id)

    @cached_property
    def process_index(self) -> int:
        return int(self._get("ProcessIndex", structs.PJRT_DeviceDescription_ProcessIndex_Args).process_index)

    @cached_property
    def kind(self) -> str:
        args = self._get("Kind", structs.PJRT_DeviceDescription_Kind_Args)
        return read_string(args.device_kind, args.device_kind_size)

    @property
    def debug_string(self) -> str:
        args = self._get("DebugString", structs.PJRT_DeviceDescription_DebugString_Args)
        return read_string(args.debug_string, args.debug_string_size)

    @property
    def to_string(self) -> str:
        args = self._get("ToString", structs.PJRT_DeviceDescription_ToString_Args)
        return read_string(args.to_string, args.to_string_size)

    def attribute_items(self) -> list[tuple[str, NamedValue]]:
        args = self._get("Attributes", structs.PJRT_DeviceDescription_Attributes_Args)
        return read_named_value_items(args.attributes, args.num_attributes)


class Device:
    def __init__(self, client: "Client", handle: int) -> None:
        self.client = client
        self.plugin = client.plugin
        self.handle = handle

    @cached_property
    def description(self) -> DeviceDescription:
        args = self.plugin.call("Device_GetDescription", structs.PJRT_Device_GetDescription_Args(device=self.handle))
        return DeviceDescription(self.plugin, args.device_description, self.client)

    @property
    def id(self) -> int:
        return self.description.id

    @property
    def kind(self) -> str:
        return self.description.kind

    @property
    def process_index(self) -> int:
        return self.description.process_index

    @property
    def attributes(self) -> dict[str, NamedValue]:
        return dict(self.description.attribute_items())

    @property
    def is_addressable(self) -> bool:
        args = self.plugin.call("Device_IsAddressable", structs.PJRT_Device_IsAddressable_Args(device=self.handle))
        return bool(args.is_addressable)

    @property
    def local_hardware_id(self) -> int:
        args = self.plugin.call("Device_LocalHardwareId", structs.PJRT_Device_LocalHardwareId_Args(device=self.handle))
        return int(args.local_hardware_id)

    @property
    def memories(self) -> list["Memory"]:
        args = self.plugin.call("Device_AddressableMemories", structs.PJRT_Device_AddressableMemories_Args(device=self.handle))
        return [self.client.memory_for(h) for h in read_handles(args.memories, args.num_memories)]

    @property
    def default_memory(self) -> "Memory":
        args = self.plugin.call("Device_DefaultMemory", structs.PJRT_Device_DefaultMemory_Args(device=self.handle))
        return self.client.memory_for(args.memory)

    def memory_stats(self) -> dict[str, int]:
        """PJRT_Device_MemoryStats: the values whose *_is_set flag is true (bytes_in_use always)."""
        args = self.plugin.call("Device_MemoryStats", structs.PJRT_Device_MemoryStats_Args(device=self.handle))
        stats = {"bytes_in_use": int(args.bytes_in_use)}
        for name, _ in structs.PJRT_Device_MemoryStats_Args._fields_:
            if name.endswith("_is_set") and getattr(args, name):
                stats[name[: -len("_is_set")]] = int(getattr(args, name[: -len("_is_set")]))
        return stats

    def read_attributes(self) -> "DeviceAttributes":
        """PJRT_Device_GetAttributes (0.92+): the list copied, then freed through the plugin's attributes_deleter."""
        args = self.plugin.call("Device_GetAttributes", structs.PJRT_Device_GetAttributes_Args(device=self.handle))
        items = read_named_value_items(args.attributes, args.num_attributes)
        if args.attributes_deleter:
            SerializedDeleter(args.attributes_deleter)(args.device_attributes)
        return DeviceAttributes(items, freed=bool(args.attributes_deleter))

    def create_async_tracking_event(self, description: str) -> "AsyncTrackingEvent | None":
        """PJRT_Device_CreateAsyncTrackingEvent (0.86+); None when the plugin succeeds without an event (a device
        that tracks nothing)."""
        text = description.encode()
        buffer = ctypes.create_string_buffer(text, max(1, len(text)))
        args = self.plugin.call("Device_CreateAsyncTrackingEvent", structs.PJRT_Device_CreateAsyncTrackingEvent_Args(
            device=self.handle, description=ctypes.addressof(buffer), description_size=len(text)))
        return AsyncTrackingEvent(self.plugin, args.event) if args.event else None

    def clear_memory_stats(self) -> None:
        """PJRT_Device_ClearMemoryStats (0.106+)."""
        self.plugin.call("Device_ClearMemoryStats", structs.PJRT_Device_ClearMemoryStats_Args(device=self.handle))

    def poison_execution(self, launch_id: int, code: ErrorCode, message: str,
                         payload: Mapping[str, str] | None = None) -> bool:
        """PJRT_Device_PoisonExecution (0.85+; `payload` 0.100+): make the earliest unfinished execution of
        `launch_id` on this device fail with `code` and `message`. Returns `poisoned` (false: no such execution)."""
        text = message.encode()
        buffer = ctypes.create_string_buffer(text, max(1, len(text)))
        values = NamedValueArray(payload or {})
        args = structs.PJRT_Device_PoisonExecution_Args(
            device=self.handle, launch_id=launch_id, error_code=int(code), error_message=ctypes.addressof(buffer),
            error_message_size=len(text), payload=values.pointer, num_payload=values.count)
        self.plugin.call("Device_PoisonExecution", args)
        return bool(args.poisoned)

    def __repr__(self) -> str:
        return f"<Device id={self.id} kind={self.kind!r}>"


@dataclass(frozen=True)
class DeviceAttributes:
    """What PJRT_Device_GetAttributes returned: the attributes in plugin order (duplicates kept), and whether they
    were freed (a NULL attributes_deleter leaves them allocated: JAX CHECKs it is non-NULL)."""

    items: list[tuple[str, NamedValue]]
    freed: bool


class AsyncTrackingEvent(OwnedHandle):
    """PJRT_AsyncTrackingEvent: destroyed with PJRT_AsyncTrackingEvent_Destroy."""

    def __init__(self, plugin: "Plugin", handle: int) -> None:
        def destroy(h: int) -> None:
            plugin.call("AsyncTrackingEvent_Destroy", structs.PJRT_AsyncTrackingEvent_Destroy_Args(event=h))

        self._own(handle, destroy)


class Memory:
    def __init__(self, client: "Client", handle: int) -> None:
        self.client = client
        self.plugin = client.plugin
        self.handle = handle

    @cached_property
    def id(self) -> int:
        return int(self.plugin.call("Memory_Id", structs.PJRT_Memory_Id_Args(memory=self.handle)).id)

    @cached_property
    def kind(self) -> str:
        args = self.plugin.call("Memory_Kind", structs.PJRT_Memory_Kind_Args(memory=self.handle))
        return read_string(args.kind, args.kind_size)

    @property
    def kind_id(self) -> int:
        return int(self.plugin.call("Memory_Kind_Id", structs.PJRT_Memory_Kind_Id_Args(memory=self.handle)).kind_id)

    @property
    def debug_string(self) -> str:
        args = self.plugin.call("Memory_DebugString", structs.PJRT_Memory_DebugString_Args(memory=self.handle))
        return read_string(args.debug_string, args.debug_string_size)

    @property
    def to_string(self) -> str:
        args = self.plugin.call("Memory_ToString", structs.PJRT_Memory_ToString_Args(memory=self.handle))
        return read_string(args.to_string, args.to_string_size)

    @property
    def addressable_by_devices(self) -> list[Device]:
        args = self.plugin.call("Memory_AddressableByDevices", structs.PJRT_Memory_AddressableByDevices_Args(memory=self.handle))
        return [self.client.device_for(h) for h in read_handles(args.devices, args.num_devices)]

    def __repr__(self) -> str:
        return f"<Memory id={self.id} kind={self.kind!r}>"
