"""MEMORY_DESCRIPTIONS (pjrt_c_api_memory_descriptions_extension.h): the memory spaces a device description
declares, which is what a framework knows of a device it cannot address (ahead-of-time compilation for a topology;
an error here aborts JAX's C API client). They agree with the device's own memories: the same kinds, the same kind
ids, the same default memory."""
from __future__ import annotations

from typing import Any

from pjrt_cts.runtime.extensions.memory_descriptions import describe, memory_descriptions
from pjrt_cts.testing import requires

pytestmark = requires(extension="MEMORY_DESCRIPTIONS")
FUNCTION = "MEMORY_DESCRIPTIONS.DeviceDescription_MemoryDescriptions"


def _described(plugin: Any, device: Any) -> tuple[list[Any], int | None]:
    handles, default = memory_descriptions(plugin, device.description.handle)
    return [describe(plugin, handle) for handle in handles], default


def test_descriptions_list_the_device_memories(plugin: Any, devices: list[Any]) -> None:
    for device in devices:
        described, _ = _described(plugin, device)
        memories = {memory.kind: memory.kind_id for memory in device.memories}
        listed = {d.kind: d.kind_id for d in described}
        assert sorted(listed) == sorted(memories), (
            f"{FUNCTION} of device {device.id} lists memory kinds {sorted(listed)}; the device's memories "
            f"(PJRT_Device_AddressableMemories) are {sorted(memories)}")
        assert listed == memories, (
            f"MEMORY_DESCRIPTIONS.MemoryDescription_Kind ids of device {device.id} are {listed}; "
            f"PJRT_Memory_Kind_Id says {memories}")


def test_default_description_is_the_device_default_memory(plugin: Any, devices: list[Any]) -> None:
    for device in devices:
        described, default = _described(plugin, device)
        wanted = device.default_memory.kind
        assert default is not None and default < len(described), (
            f"{FUNCTION} of device {device.id} has default_memory_index {default} among {len(described)} "
            f"descriptions; the device's default memory is {wanted!r}")
        assert described[default].kind == wanted, (
            f"{FUNCTION} of device {device.id} marks {described[default].kind!r} as default; "
            f"PJRT_Device_DefaultMemory is {wanted!r}")


def test_descriptions_are_stable(plugin: Any, device: Any) -> None:
    first, first_default = _described(plugin, device)
    again, again_default = _described(plugin, device)
    assert ([(d.kind, d.kind_id) for d in again], again_default) == ([(d.kind, d.kind_id) for d in first],
                                                                      first_default), (
        f"{FUNCTION} of device {device.id} answered {first} (default {first_default}), then {again} "
        f"(default {again_default})")
