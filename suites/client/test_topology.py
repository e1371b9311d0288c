"""PJRT_TopologyDescription_*: the topology frameworks read at start-up and compile against.

JAX reads the topology's platform name, version and attributes when a client starts and its fingerprint on
every compile; ahead-of-time compilation serializes a topology and deserializes it where devices exist. Tests
that take only the `topology` fixture (suites/client/conftest.py) hold for any topology, the client's or one
made by PJRT_TopologyDescription_Create; those that also take `client` compare it with the client: platform,
device descriptions, memory-space kinds. Compiling against a deserialized topology is in
suites/compile/test_topology_compile.py.
"""
from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from pjrt_cts.runtime import BufferType, MemoryLayout, Topology
from pjrt_cts.runtime.named_values import type_name_of
from pjrt_cts.testing import expect_rejection, requires, unsupported_if_unimplemented

pytestmark = requires("Client_TopologyDescription")  # the `topology` fixture's source
VALID_TYPES = {"STRING", "INT64", "INT64_LIST", "FLOAT", "BOOL"}
# PJRT_Buffer_Type -> xla.PrimitiveType (the numbers differ from BF16 on: xla/xla_data.proto)
XLA_PRIMITIVE_TYPES = {BufferType.PRED: 1, BufferType.S8: 2, BufferType.S32: 4, BufferType.F32: 11,
                       BufferType.BF16: 16, BufferType.F64: 12}
CANONICAL_SHAPES = [(BufferType.F32, (2, 3)), (BufferType.BF16, (4, 1, 5)), (BufferType.PRED, ()),
                    (BufferType.S8, (7,)), (BufferType.S32, (0, 3))]


def _descriptions(topology: Any) -> list[tuple[int, str, int]]:
    return [(d.id, d.kind, d.process_index) for d in topology.device_descriptions]


def _by_name(items: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """Attributes as a set of named values: the order a list of them comes in means nothing (duplicates kept)."""
    return sorted(items, key=lambda item: item[0])


def _unique_typed(items: list[tuple[str, Any]]) -> dict[str, Any]:
    """Problems of an attribute list: names repeated or empty, values of no PJRT_NamedValue_Type."""
    counts = Counter(name for name, _ in items)
    problems = {name: f"{n} times" for name, n in counts.items() if n > 1 or not name}
    problems.update({name: repr(value) for name, value in items if type_name_of(value) not in VALID_TYPES
                     or (isinstance(value, str) and value.startswith("<unknown PJRT_NamedValue_Type"))})
    return problems


# ---- any topology ----------------------------------------------------------------------------------------------

def test_platform_name_is_non_empty(topology: Any) -> None:
    assert topology.platform_name, "PJRT_TopologyDescription_PlatformName should be non-empty, but is ''"


def test_platform_name_and_version_are_stable(topology: Any) -> None:
    first = (topology.platform_name, topology.platform_version)
    again = (topology.platform_name, topology.platform_version)
    assert first == again, (f"PJRT_TopologyDescription_PlatformName / PlatformVersion should answer the same each "
                            f"call, but answered {first} then {again}")


def test_device_descriptions_are_listed(topology: Any) -> None:
    descriptions = _descriptions(topology)
    assert descriptions, "PJRT_TopologyDescription_GetDeviceDescriptions should list at least one device, but lists none"
    ids = [device_id for device_id, _, _ in descriptions]
    assert len(set(ids)) == len(ids) and min(ids) >= 0, (
        f"PJRT_TopologyDescription_GetDeviceDescriptions: PJRT_DeviceDescription_Id should be unique and >= 0, but "
        f"ids are {ids}")
    blank = [device_id for device_id, kind, _ in descriptions if not kind]
    assert not blank, f"PJRT_DeviceDescription_Kind of topology devices {blank} should be non-empty, but is ''"


def test_device_descriptions_keep_their_order(topology: Any) -> None:
    """The header: "in any order, but ... in the same order across calls within a process"."""
    first = [d.handle for d in topology.device_descriptions]
    again = [d.handle for d in topology.device_descriptions]
    assert first == again, "PJRT_TopologyDescription_GetDeviceDescriptions returned the devices in another order"


def test_device_description_attributes_are_unique_and_typed(topology: Any) -> None:
    problems = {d.id: found for d in topology.device_descriptions if (found := _unique_typed(d.attribute_items()))}
    assert not problems, f"PJRT_DeviceDescription_Attributes of topology devices: {problems}"


def test_attributes_are_unique_typed_and_stable(topology: Any) -> None:
    items = topology.attribute_items()
    problems = _unique_typed(items)
    assert not problems, f"PJRT_TopologyDescription_Attributes: names unique and values typed, but {problems}"
    again = topology.attribute_items()
    assert again == items, f"PJRT_TopologyDescription_Attributes answered {items} then {again}"


@requires("TopologyDescription_Fingerprint")
def test_fingerprint_is_stable(topology: Any) -> None:
    fingerprints = [topology.fingerprint for _ in range(3)]
    assert len(set(fingerprints)) == 1, (
        f"PJRT_TopologyDescription_Fingerprint should be the same on every call, but was {fingerprints}")


def test_serialize_returns_bytes(topology: Any) -> None:
    assert topology.serialize(), "PJRT_TopologyDescription_Serialize returned no bytes"


def _round_trip(topology: Any) -> Topology:
    serialized = topology.serialize()
    with unsupported_if_unimplemented("PJRT_TopologyDescription_Deserialize"):
        again = Topology.deserialize(topology.plugin, serialized)
    assert again.handle, "PJRT_TopologyDescription_Deserialize succeeded but returned a NULL topology"
    return again


@requires("TopologyDescription_Deserialize")
def test_deserialized_topology_describes_the_same_devices(topology: Any) -> None:
    with _round_trip(topology) as again:
        seen = (again.platform_name, again.platform_version, _descriptions(again), _by_name(again.attribute_items()))
    expected = (topology.platform_name, topology.platform_version, _descriptions(topology),
                _by_name(topology.attribute_items()))
    assert seen == expected, (
        f"PJRT_TopologyDescription_Deserialize of its own serialization should give the same topology (platform "
        f"name, version, (id, kind, process index) per device, attributes): {expected}, but gave {seen}")


@requires("TopologyDescription_Deserialize", "TopologyDescription_Fingerprint")
def test_deserialized_topology_has_the_same_fingerprint(topology: Any) -> None:
    with _round_trip(topology) as again:
        fingerprint = again.fingerprint
    assert fingerprint == topology.fingerprint, (
        f"PJRT_TopologyDescription_Fingerprint after Serialize -> Deserialize is {fingerprint:#x}, the topology's "
        f"is {topology.fingerprint:#x}")


def _malformed(serialized: bytes, kind: str) -> bytes:
    if kind == "truncated":
        return serialized[: len(serialized) // 2]
    return random.Random(20260801).randbytes(max(16, len(serialized)))  # "random": seeded, the same every run


@pytest.mark.isolated  # a parser that trusts its input may crash the process
@requires("TopologyDescription_Deserialize")
@pytest.mark.parametrize("kind", ["truncated", "random"])
def test_deserialize_rejects_malformed_bytes(topology: Any, kind: str) -> None:
    serialized = topology.serialize()
    malformed = _malformed(serialized, kind)
    with unsupported_if_unimplemented("PJRT_TopologyDescription_Deserialize"):
        Topology.deserialize(topology.plugin, serialized).close()
    expect_rejection(lambda: Topology.deserialize(topology.plugin, malformed),
                     control=lambda: Topology.deserialize(topology.plugin, serialized),
                     function="PJRT_TopologyDescription_Deserialize",
                     what=f"{len(malformed)} {kind} bytes (the serialization is {len(serialized)} bytes)")


@requires("TopologyDescription_GetMemorySpaceKindIds")
def test_memory_space_kind_ids_are_unique(topology: Any) -> None:
    ids = topology.memory_space_kind_ids
    assert len(set(ids)) == len(ids), f"PJRT_TopologyDescription_GetMemorySpaceKindIds lists a kind twice: {ids}"


def _kind_ids(topology: Any) -> list[int]:
    with unsupported_if_unimplemented("PJRT_TopologyDescription_GetMemorySpaceKindIds"):
        ids = topology.memory_space_kind_ids
    assert ids, "PJRT_TopologyDescription_GetMemorySpaceKindIds lists no memory space"
    return list(ids)


@requires("TopologyDescription_MakeCanonicalShapeForMemorySpace", "TopologyDescription_GetMemorySpaceKindIds")
@pytest.mark.parametrize("element_type, dims", [pytest.param(t, d, id=f"{t.name.lower()}{list(d)}")
                                                 for t, d in CANONICAL_SHAPES])
def test_canonical_shape_keeps_type_and_dimensions(topology: Any, element_type: BufferType, dims: tuple[int, ...]) -> None:
    for kind_id in _kind_ids(topology):
        with unsupported_if_unimplemented("PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace"):
            shape = topology.canonical_shape(kind_id, dims, element_type)
        where = f"PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace({element_type.name}{list(dims)}, kind {kind_id})"
        assert shape.freed, f"{where} returned a NULL serialized_shape_deleter"
        got = (shape.element_type, shape.dimensions)
        assert got == (XLA_PRIMITIVE_TYPES[element_type], dims), (
            f"{where}: ShapeProto element type and dimensions should be ({XLA_PRIMITIVE_TYPES[element_type]}, {dims}), "
            f"but are {got}")
        assert shape.minor_to_major is None or sorted(shape.minor_to_major) == list(range(len(dims))), (
            f"{where}: layout minor_to_major {shape.minor_to_major} is no permutation of the {len(dims)} dimensions")


@requires("TopologyDescription_MakeCanonicalShapeForMemorySpace", "TopologyDescription_GetMemorySpaceKindIds")
def test_canonical_shape_accepts_an_explicit_layout(topology: Any) -> None:
    kind_id = _kind_ids(topology)[0]
    with unsupported_if_unimplemented("PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace"):
        shape = topology.canonical_shape(kind_id, (2, 3), BufferType.F32, MemoryLayout.tiled([0, 1]))
    assert shape.dimensions == (2, 3) and shape.minor_to_major is not None and sorted(shape.minor_to_major) == [0, 1], (
        f"PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace of f32[2,3] with layout {{0,1}}: {shape}")


# ---- the client's topology against the client --------------------------------------------------------------------

def test_platform_name_matches_the_client(client: Any, topology: Any) -> None:
    """Frameworks compile for a topology by its platform name: the client's topology names the client's platform."""
    assert topology.platform_name == client.platform_name, (
        f"PJRT_TopologyDescription_PlatformName {topology.platform_name!r} should be the client's "
        f"PJRT_Client_PlatformName {client.platform_name!r}")


def test_platform_version_matches_the_client(client: Any, topology: Any) -> None:
    """Both are "platform-specific version info (e.g. the CUDA version on GPU)" (pjrt_c_api.h) of one platform."""
    assert topology.platform_version == client.platform_version, (
        f"PJRT_TopologyDescription_PlatformVersion {topology.platform_version!r} should be the client's "
        f"PJRT_Client_PlatformVersion {client.platform_version!r}")


def test_device_descriptions_match_the_client_devices(client: Any, topology: Any) -> None:
    """The client's topology describes the client's devices: the same ids, kinds, process indices, attributes."""
    def described(descriptions: list[Any]) -> list[tuple[int, str, int, list[tuple[str, Any]]]]:
        return sorted((d.id, d.kind, d.process_index, _by_name(d.attribute_items())) for d in descriptions)

    seen = described(topology.device_descriptions)
    expected = described([device.description for device in client.devices])
    assert seen == expected, (f"PJRT_TopologyDescription_GetDeviceDescriptions of the client's topology should describe "
                              f"PJRT_Client_Devices {expected}, but describes {seen}")


@requires("TopologyDescription_GetMemorySpaceKindIds", "Memory_Kind_Id")
def test_memory_space_kind_ids_match_the_client_memories(client: Any, topology: Any) -> None:
    with unsupported_if_unimplemented("PJRT_TopologyDescription_GetMemorySpaceKindIds"):
        ids = sorted(topology.memory_space_kind_ids)
    memories = {memory.kind_id: memory.kind for memory in client.addressable_memories}
    assert ids == sorted(memories), (
        f"PJRT_TopologyDescription_GetMemorySpaceKindIds {ids} should be the PJRT_Memory_Kind_Id of the client's "
        f"memories {memories}")


# ---- topologies the caller owns ----------------------------------------------------------------------------------

@requires("TopologyDescription_Create", "TopologyDescription_Destroy")
def test_create_with_the_default_name(plugin: Any, client: Any) -> None:
    """PJRT_TopologyDescription_Create with an empty name: the plugin's default topology, or UNIMPLEMENTED where the
    plugin compiles only for its client's devices (the XLA CPU plugin)."""
    with unsupported_if_unimplemented("PJRT_TopologyDescription_Create"):
        created = Topology.create(plugin)
    with created:
        assert created.handle, "PJRT_TopologyDescription_Create succeeded but returned a NULL topology"
        name = created.platform_name
    assert name == client.platform_name, (
        f"PJRT_TopologyDescription_PlatformName of a created topology is {name!r}, the client's platform is "
        f"{client.platform_name!r}")


@pytest.mark.isolated  # the header allows it; a plugin that dereferences it crashes
@requires("TopologyDescription_Destroy")
def test_destroy_of_a_null_topology_succeeds(plugin: Any) -> None:
    """The header: "`topology` can be nullptr"."""
    Topology(plugin, 0).close()  # a PjrtError names PJRT_TopologyDescription_Destroy, its code and message
