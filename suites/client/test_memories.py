"""PJRT_Client_AddressableMemories, PJRT_Device_{AddressableMemories,DefaultMemory}, PJRT_Memory_* getters."""
from __future__ import annotations

from collections import defaultdict
from typing import Any

import pytest

from pjrt_cts.testing import BlockedByFailure, device_index_params, requires

DEVICE_INDEXES = device_index_params()


@pytest.fixture(scope="module")
def memories(client: Any) -> list[Any]:
    found = client.addressable_memories
    if not found:
        raise BlockedByFailure("blocked: PJRT_Client_AddressableMemories returned no memories "
                               "(see client.memories.test_client_has_addressable_memories)")
    return found


def _device_memories(device: Any) -> list[Any]:
    found = device.memories
    assert found, f"PJRT_Device_AddressableMemories of device {device.id} should list its memories, but lists none"
    return found


def test_client_has_addressable_memories(client: Any) -> None:
    assert client.addressable_memories, "PJRT_Client_AddressableMemories should list at least one memory, but lists none"


def test_memory_ids_are_unique(memories: list[Any]) -> None:
    ids = [m.id for m in memories]
    assert len(ids) == len(set(ids)), f"PJRT_Memory_Id should be unique across the client's memories, but ids are {ids}"


def test_memory_kinds_are_non_empty(memories: list[Any]) -> None:
    empty = [m.id for m in memories if not m.kind]
    assert not empty, f"PJRT_Memory_Kind should be non-empty, but memories {empty} have ''"


def test_memory_debug_strings_are_non_empty(memories: list[Any]) -> None:
    empty = [m.id for m in memories if not m.debug_string]
    assert not empty, f"PJRT_Memory_DebugString should be non-empty, but memories {empty} have ''"


def test_memory_to_strings_are_non_empty(memories: list[Any]) -> None:
    empty = [m.id for m in memories if not m.to_string]
    assert not empty, f"PJRT_Memory_ToString should be non-empty, but memories {empty} have ''"


@requires("Memory_Kind_Id")
def test_memory_kind_id_agrees_with_kind(memories: list[Any]) -> None:
    ids_by_kind: dict[str, set[int]] = defaultdict(set)
    for memory in memories:
        ids_by_kind[memory.kind].add(memory.kind_id)
    mixed = {kind: sorted(ids) for kind, ids in ids_by_kind.items() if len(ids) > 1}
    assert not mixed, f"PJRT_Memory_Kind_Id should be the same for memories of one kind, but {mixed}"
    owners = defaultdict(list)
    for kind, ids in ids_by_kind.items():
        owners[next(iter(ids))].append(kind)
    shared = {kind_id: kinds for kind_id, kinds in owners.items() if len(kinds) > 1}
    assert not shared, f"PJRT_Memory_Kind_Id should differ between memory kinds, but {shared} share one"


def test_every_memory_is_addressable_by_some_device(memories: list[Any]) -> None:
    orphans = [m.id for m in memories if not m.addressable_by_devices]
    assert not orphans, f"PJRT_Memory_AddressableByDevices should list at least one device, but memories {orphans} list none"


@pytest.mark.parametrize("index", DEVICE_INDEXES)
def test_default_memory_is_one_of_device_memories(devices: list[Any], index: int) -> None:
    device = devices[index]
    memories = _device_memories(device)
    default = device.default_memory
    assert default.handle in {m.handle for m in memories}, (
        f"PJRT_Device_DefaultMemory of device {device.id} (memory {default.id} {default.kind!r}) should be among "
        f"PJRT_Device_AddressableMemories {[m.id for m in memories]}, but is not"
    )


@pytest.mark.parametrize("index", DEVICE_INDEXES)
def test_default_memory_is_addressable_by_its_device(devices: list[Any], index: int) -> None:
    device = devices[index]
    _device_memories(device)
    default = device.default_memory
    users = [d.id for d in default.addressable_by_devices]
    assert device.handle in {d.handle for d in default.addressable_by_devices}, (
        f"PJRT_Memory_AddressableByDevices of device {device.id}'s default memory {default.id} should include it, "
        f"but lists devices {users}"
    )


@pytest.mark.parametrize("index", DEVICE_INDEXES)
def test_device_memories_are_client_addressable(client: Any, devices: list[Any], index: int) -> None:
    device = devices[index]
    client_memories = {m.handle for m in client.addressable_memories}
    outside = [m.id for m in _device_memories(device) if m.handle not in client_memories]
    assert not outside, (
        f"PJRT_Device_AddressableMemories of device {device.id} should be among PJRT_Client_AddressableMemories, "
        f"but memories {outside} are not"
    )


@pytest.mark.parametrize("index", DEVICE_INDEXES)
def test_device_memories_list_the_device(devices: list[Any], index: int) -> None:
    device = devices[index]
    missing = [m.id for m in _device_memories(device) if device.handle not in {d.handle for d in m.addressable_by_devices}]
    assert not missing, (
        f"PJRT_Memory_AddressableByDevices of device {device.id}'s memories should include device {device.id}, "
        f"but memories {missing} do not"
    )
