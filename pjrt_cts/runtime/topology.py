"""PJRT_TopologyDescription: the devices a plugin compiles for, with or without a client.

    topology = Topology.of_client(client)            # PJRT_Client_TopologyDescription: owned by the client
    topology = Topology.create(plugin, "v5e:2x2")     # PJRT_TopologyDescription_Create: destroyed by close()
    again = Topology.deserialize(plugin, topology.serialize())
    topology.platform_name, topology.fingerprint, topology.device_descriptions, topology.memory_space_kind_ids

    executable = topology.compile(code, compile_options=...)   # PJRT_Compile without a client or device
"""
from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping, Sequence

from pjrt_cts.abi import structs
from pjrt_cts.abi.base import PjrtStruct
from pjrt_cts.abi.callbacks import SerializedDeleter
from pjrt_cts.abi.enums import BufferType
from pjrt_cts.runtime.device import DeviceDescription, read_handles, read_string
from pjrt_cts.runtime.executable import Executable, _take_serialized
from pjrt_cts.runtime.handles import OwnedHandle
from pjrt_cts.runtime.layouts import MemoryLayout
from pjrt_cts.runtime.named_values import NamedValue, NamedValueArray, read_named_value_items
from pjrt_cts.runtime.protobuf_wire import LENGTH_DELIMITED, VARINT, as_int64, decode_varint, iter_fields

if TYPE_CHECKING:
    from pjrt_cts.runtime.client import Client
    from pjrt_cts.runtime.plugin import Plugin


class Topology(OwnedHandle):
    """A PJRT_TopologyDescription. One from a client is the client's (close() only lets go of it); one created or
    deserialized is destroyed with PJRT_TopologyDescription_Destroy."""

    def __init__(self, plugin: "Plugin", handle: int, *, owner: "Client | None" = None) -> None:
        self.plugin = plugin
        self.owner = owner  # the client that owns the topology (kept alive with it), or None: this object owns it

        def destroy(h: int) -> None:
            if owner is None:
                plugin.call("TopologyDescription_Destroy", structs.PJRT_TopologyDescription_Destroy_Args(topology=h))

        self._own(handle, destroy)

    @classmethod
    def of_client(cls, client: "Client") -> "Topology":
        args = client.plugin.call("Client_TopologyDescription",
                                  structs.PJRT_Client_TopologyDescription_Args(client=client.handle))
        return cls(client.plugin, int(args.topology or 0), owner=client)

    @classmethod
    def create(cls, plugin: "Plugin", name: str = "", options: Mapping[str, NamedValue] | None = None) -> "Topology":
        """PJRT_TopologyDescription_Create: a topology without devices (ahead-of-time compilation)."""
        text = name.encode()
        buffer = ctypes.create_string_buffer(text, max(1, len(text)))
        values = NamedValueArray(options or {})
        args = plugin.call("TopologyDescription_Create", structs.PJRT_TopologyDescription_Create_Args(
            topology_name=ctypes.addressof(buffer), topology_name_size=len(text), create_options=values.pointer,
            num_options=values.count))
        return cls(plugin, int(args.topology or 0))

    @classmethod
    def deserialize(cls, plugin: "Plugin", data: bytes) -> "Topology":
        """PJRT_TopologyDescription_Deserialize (0.75+) of exactly `data` (no terminator after it)."""
        buffer = (ctypes.c_char * max(1, len(data))).from_buffer_copy(data or b"\0")
        args = plugin.call("TopologyDescription_Deserialize", structs.PJRT_TopologyDescription_Deserialize_Args(
            serialized_topology=ctypes.addressof(buffer), serialized_topology_size=len(data)))
        return cls(plugin, int(args.topology or 0))

    def _get(self, name: str, struct: type[PjrtStruct]) -> PjrtStruct:
        return self.plugin.call("TopologyDescription_" + name, struct(topology=self.handle))

    def _text(self, name: str, struct: type[PjrtStruct], field: str) -> str:
        args = self._get(name, struct)
        return read_string(getattr(args, field), getattr(args, field + "_size"))

    @property
    def platform_name(self) -> str:
        return self._text("PlatformName", structs.PJRT_TopologyDescription_PlatformName_Args, "platform_name")

    @property
    def platform_version(self) -> str:
        return self._text("PlatformVersion", structs.PJRT_TopologyDescription_PlatformVersion_Args, "platform_version")

    @property
    def device_descriptions(self) -> list[DeviceDescription]:
        args = self._get("GetDeviceDescriptions", structs.PJRT_TopologyDescription_GetDeviceDescriptions_Args)
        return [DeviceDescription(self.plugin, h, self) for h in read_handles(args.descriptions, args.num_descriptions)]

    def attribute_items(self) -> list[tuple[str, NamedValue]]:
        args = self._get("Attributes", structs.PJRT_TopologyDescription_Attributes_Args)
        return read_named_value_items(args.attributes, args.num_attributes)

    @property
    def fingerprint(self) -> int:
        """PJRT_TopologyDescription_Fingerprint (0.101+)."""
        return int(self._get("Fingerprint", structs.PJRT_TopologyDescription_Fingerprint_Args).fingerprint)

    def serialize(self) -> bytes:
        args = self._get("Serialize", structs.PJRT_TopologyDescription_Serialize_Args)
        return _take_serialized(self.plugin, args, "serialized_bytes", "serialized_topology", "serialized_topology_deleter")

    @property
    def memory_space_kind_ids(self) -> list[int]:
        """PJRT_TopologyDescription_GetMemorySpaceKindIds (0.110+)."""
        args = self._get("GetMemorySpaceKindIds", structs.PJRT_TopologyDescription_GetMemorySpaceKindIds_Args)
        n = args.num_memory_space_kind_ids
        return list((ctypes.c_int * n).from_address(args.memory_space_kind_ids)) if n and args.memory_space_kind_ids else []

    def canonical_shape(self, memory_space_kind_id: int, dims: Sequence[int], element_type: BufferType,
                        layout: MemoryLayout | None = None) -> "ShapeProto":
        """PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace (0.109+): the shape, as the serialized
        xla.ShapeProto the plugin returns (freed through its deleter), decoded."""
        c_dims = (ctypes.c_int64 * max(1, len(dims)))(*dims)
        args = self.plugin.call(
            "TopologyDescription_MakeCanonicalShapeForMemorySpace",
            structs.PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace_Args(
                topology=self.handle, memory_space_kind_id=memory_space_kind_id, dims=ctypes.addressof(c_dims),
                num_dims=len(dims), element_type=int(element_type),
                layout=layout.address if layout is not None else None))
        data = ctypes.string_at(args.serialized_shape, args.serialized_shape_size) if args.serialized_shape_size else b""
        if args.serialized_shape_deleter:
            SerializedDeleter(args.serialized_shape_deleter)(args.serialized_shape)
        return ShapeProto.parse(data, freed=bool(args.serialized_shape_deleter))

    def compile(self, code: str | bytes, format: str = "mlir", *, compile_options: bytes | None = None) -> Executable:
        """PJRT_Compile for this topology with no client (ahead-of-time); the executable is freed before the topology."""
        from pjrt_cts.runtime.aot import compile_without_devices

        return compile_without_devices(self.plugin, self.handle, code, format, compile_options=compile_options,
                                       parent=self)

    def __repr__(self) -> str:
        return f"<Topology {'of a client' if self.owner is not None else 'owned'} {self._handle:#x}>"


@dataclass(frozen=True)
class ShapeProto:
    """The fields of a serialized xla.ShapeProto the suite checks (array shapes; xla/xla_data.proto)."""

    element_type: int  # xla.PrimitiveType (not PJRT_Buffer_Type)
    dimensions: tuple[int, ...]
    minor_to_major: tuple[int, ...] | None  # None: no layout
    memory_space: int
    freed: bool  # the plugin gave a serialized_shape_deleter and it was called

    @classmethod
    def parse(cls, data: bytes, *, freed: bool = True) -> "ShapeProto":
        """Raises ValueError when `data` is no ShapeProto."""
        element_type, dimensions, layout = 0, [], None
        for field, wire_type, value in iter_fields(data):
            if field == 2 and wire_type == VARINT:
                element_type = int(value)
            elif field == 3:
                dimensions += _int64s(wire_type, value)
            elif field == 5 and wire_type == LENGTH_DELIMITED:
                layout = bytes(value)
        minor_to_major: list[int] | None = None
        memory_space = 0
        if layout is not None:
            minor_to_major = []
            for field, wire_type, value in iter_fields(layout):
                if field == 1:
                    minor_to_major += _int64s(wire_type, value)
                elif field == 8 and wire_type == VARINT:  # LayoutProto.memory_space
                    memory_space = as_int64(int(value))
        return cls(element_type, tuple(dimensions), tuple(minor_to_major) if minor_to_major is not None else None,
                   memory_space, freed)


def _int64s(wire_type: int, value: int | bytes) -> list[int]:
    """A repeated int64 field's values: packed (LENGTH_DELIMITED) or one VARINT."""
    if wire_type == VARINT and isinstance(value, int):
        return [as_int64(value)]
    if wire_type != LENGTH_DELIMITED or not isinstance(value, bytes):
        raise ValueError(f"repeated int64 field with wire type {wire_type}")
    out, pos = [], 0
    while pos < len(value):
        number, pos = decode_varint(value, pos)
        out.append(as_int64(number))
    return out
