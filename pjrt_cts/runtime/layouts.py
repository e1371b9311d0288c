"""Build PJRT_Buffer_MemoryLayout structs (tiled minor_to_major or byte strides) with their arrays kept alive."""
from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Sequence

from pjrt_cts.abi import structs
from pjrt_cts.abi.enums import MemoryLayoutType


class MemoryLayout:
    """A PJRT_Buffer_MemoryLayout plus the arrays it points to (alive as long as this object)."""

    def __init__(self, layout: structs.PJRT_Buffer_MemoryLayout, keepalive: list[object]) -> None:
        self.struct = layout
        self._keepalive = keepalive

    @property
    def address(self) -> int:
        return ctypes.addressof(self.struct)

    @classmethod
    def tiled(cls, minor_to_major: Sequence[int], tile_dims: Sequence[Sequence[int]] = ()) -> "MemoryLayout":
        m2m = (ctypes.c_int64 * max(1, len(minor_to_major)))(*minor_to_major)
        flat = [d for tile in tile_dims for d in tile]
        tiles = (ctypes.c_int64 * max(1, len(flat)))(*flat)
        tile_sizes = (ctypes.c_size_t * max(1, len(tile_dims)))(*[len(t) for t in tile_dims])
        layout = structs.PJRT_Buffer_MemoryLayout(type=int(MemoryLayoutType.TILED))
        tiled = layout.layout.tiled
        tiled.struct_size = structs.PJRT_Buffer_MemoryLayout_Tiled.STRUCT_SIZE
        tiled.minor_to_major, tiled.minor_to_major_size = ctypes.addressof(m2m), len(minor_to_major)
        tiled.tile_dims = ctypes.addressof(tiles) if flat else None
        tiled.tile_dim_sizes = ctypes.addressof(tile_sizes) if tile_dims else None
        tiled.num_tiles = len(tile_dims)
        return cls(layout, [m2m, tiles, tile_sizes])

    @classmethod
    def strides(cls, byte_strides: Sequence[int]) -> "MemoryLayout":
        values = (ctypes.c_int64 * max(1, len(byte_strides)))(*byte_strides)
        layout = structs.PJRT_Buffer_MemoryLayout(type=int(MemoryLayoutType.STRIDES))
        strides = layout.layout.strides
        strides.struct_size = structs.PJRT_Buffer_MemoryLayout_Strides.STRUCT_SIZE
        strides.byte_strides, strides.num_byte_strides = ctypes.addressof(values), len(byte_strides)
        return cls(layout, [values])


@dataclass(frozen=True)
class LayoutView:
    """A PJRT_Buffer_MemoryLayout a plugin returned, copied out (its arrays belong to the plugin's object)."""

    type: MemoryLayoutType | int
    minor_to_major: tuple[int, ...] = ()
    tile_dims: tuple[tuple[int, ...], ...] = ()
    byte_strides: tuple[int, ...] = ()

    @classmethod
    def read(cls, layout: structs.PJRT_Buffer_MemoryLayout) -> "LayoutView":
        kind = MemoryLayoutType(layout.type) if layout.type in MemoryLayoutType._value2member_map_ else int(layout.type)
        if kind == MemoryLayoutType.STRIDES:
            strides = layout.strides
            return cls(kind, byte_strides=_int64s(strides.byte_strides, strides.num_byte_strides))
        tiled = layout.tiled
        sizes = [int(n) for n in (ctypes.c_size_t * tiled.num_tiles).from_address(tiled.tile_dim_sizes)] \
            if tiled.num_tiles and tiled.tile_dim_sizes else []
        flat = _int64s(tiled.tile_dims, sum(sizes))
        tiles, start = [], 0
        for size in sizes:
            tiles.append(flat[start:start + size])
            start += size
        return cls(kind, minor_to_major=_int64s(tiled.minor_to_major, tiled.minor_to_major_size), tile_dims=tuple(tiles))


def _int64s(pointer: int | None, count: int) -> tuple[int, ...]:
    return tuple(int(v) for v in (ctypes.c_int64 * count).from_address(pointer)) if pointer and count else ()
