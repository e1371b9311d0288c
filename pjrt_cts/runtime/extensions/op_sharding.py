"""Just enough of xla.OpSharding (xla/xla_data.proto) to say which logical devices hold which tile of an array."""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from math import prod

from pjrt_cts.runtime.protobuf_wire import LENGTH_DELIMITED, VARINT, as_int64, iter_fields, repeated_varints

REPLICATED, MAXIMAL, TUPLE, OTHER, MANUAL = 0, 1, 2, 3, 4  # OpSharding.Type
TYPE_NAMES = {REPLICATED: "REPLICATED", MAXIMAL: "MAXIMAL", TUPLE: "TUPLE", OTHER: "OTHER", MANUAL: "MANUAL",
              5: "UNKNOWN", 6: "UNREDUCED"}
_TYPE, _DIMS, _DEVICES, _TUPLE, _REPLICATE_LAST, _LAST_TILE_DIMS, _IOTA_DIMS, _IOTA_PERM, _NAMED = 1, 3, 4, 5, 6, 8, 9, 10, 14


@dataclass(frozen=True)
class OpSharding:
    type: int = REPLICATED
    tile_assignment_dimensions: tuple[int, ...] = ()
    tile_assignment_devices: tuple[int, ...] = ()  # explicit, or expanded from the iota form
    replicate_on_last_tile_dim: bool = False
    last_tile_dims: tuple[int, ...] = ()
    tuple_shardings: tuple["OpSharding", ...] = field(default=())
    named: bool = False  # a NamedShardingProto (Shardy) without a tile assignment

    @property
    def type_name(self) -> str:
        return TYPE_NAMES.get(self.type, str(self.type))

    def tile_devices(self, rank: int) -> dict[tuple[int, ...], list[int]]:
        """OTHER sharding of a rank-`rank` array: tile index (one per array dimension) -> the logical devices that
        hold it (several when the last tile dimensions replicate it)."""
        if self.type != OTHER:
            raise ValueError(f"{self.type_name} sharding has no tiles")
        dims = self.tile_assignment_dimensions
        if len(dims) < rank or prod(dims) != len(self.tile_assignment_devices):
            raise ValueError(f"tile assignment {dims} with {len(self.tile_assignment_devices)} devices does not tile "
                             f"a rank-{rank} array")
        tiles: dict[tuple[int, ...], list[int]] = {}
        for flat, index in enumerate(itertools.product(*(range(d) for d in dims))):
            tiles.setdefault(index[:rank], []).append(self.tile_assignment_devices[flat])
        return tiles


def decode(data: bytes) -> OpSharding:
    """Parse a serialized OpSharding; ValueError when the bytes are no protobuf message."""
    values: dict[str, object] = {}
    dims: list[int] = []
    devices: list[int] = []
    iota_dims: list[int] = []
    iota_perm: list[int] = []
    last_tile_dims: list[int] = []
    tuples: list[OpSharding] = []
    named = False
    for number, wire, value in iter_fields(data):
        if number == _TYPE and wire == VARINT:
            values["type"] = int(value)
        elif number == _REPLICATE_LAST and wire == VARINT:
            values["replicate_on_last_tile_dim"] = bool(value)
        elif number in (_DIMS, _DEVICES, _IOTA_DIMS, _IOTA_PERM, _LAST_TILE_DIMS):
            target = {_DIMS: dims, _DEVICES: devices, _IOTA_DIMS: iota_dims, _IOTA_PERM: iota_perm,
                      _LAST_TILE_DIMS: last_tile_dims}[number]
            target.extend(as_int64(v) for v in repeated_varints(wire, value))
        elif number == _TUPLE and wire == LENGTH_DELIMITED:
            tuples.append(decode(bytes(value)))
        elif number == _NAMED:
            named = True
    if not devices and iota_dims:
        devices = _iota_devices(iota_dims, iota_perm)
    return OpSharding(type=int(values.get("type", REPLICATED)),  # type: ignore[call-overload]  # set from an int
                      tile_assignment_dimensions=tuple(dims), tile_assignment_devices=tuple(devices),
                      replicate_on_last_tile_dim=bool(values.get("replicate_on_last_tile_dim", False)),
                      last_tile_dims=tuple(last_tile_dims), tuple_shardings=tuple(tuples), named=named)


def _iota_devices(reshape_dims: list[int], transpose_perm: list[int]) -> list[int]:
    """The devices of the V2 (iota) form: iota(prod(reshape_dims)) reshaped to reshape_dims, transposed by perm."""
    perm = transpose_perm or list(range(len(reshape_dims)))
    if sorted(perm) != list(range(len(reshape_dims))):
        raise ValueError(f"iota_transpose_perm {perm} is no permutation of {len(reshape_dims)} dimensions")
    strides = [prod(reshape_dims[i + 1:]) for i in range(len(reshape_dims))]
    transposed = [reshape_dims[p] for p in perm]
    return [sum(index[k] * strides[perm[k]] for k in range(len(perm)))
            for index in itertools.product(*(range(d) for d in transposed))]
