"""LAYOUTS: default and actual device layouts of clients, topologies, buffers and executables, as XLA layout text.

Ownership as the header says: a layout from Client_GetDefaultLayout, Topology_GetDefaultLayout or
Buffer_MemoryLayout is the caller's (OwnedLayout destroys it once); an executable's parameter and output layouts are
the executable's (a Layout holding them keeps the executable alive and never destroys them).
"""
from __future__ import annotations

import ctypes
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from pjrt_cts.abi.enums import BufferType, ExtensionType
from pjrt_cts.abi.extensions import layouts as abi
from pjrt_cts.runtime.extensions.calls import call, read_pointers, run_deleter
from pjrt_cts.runtime.handles import OwnedHandle

if TYPE_CHECKING:
    from pjrt_cts.runtime.buffer import Buffer
    from pjrt_cts.runtime.client import Client
    from pjrt_cts.runtime.executable import Executable
    from pjrt_cts.runtime.plugin import Plugin

LAYOUTS = ExtensionType.LAYOUTS


class Layout:
    """A PJRT_Layouts_MemoryLayout the plugin owns (an executable's): readable, never destroyed here."""

    def __init__(self, plugin: "Plugin", handle: int, owner: object = None) -> None:
        self.plugin = plugin
        self._layout = handle
        self._owner = owner  # what must outlive the handle (the executable)

    @property
    def address(self) -> int:
        return self._layout

    def serialize(self) -> str:
        """MemoryLayout_Serialize: the layout as XLA layout text (`{1,0}`); the bytes are copied, then their
        deleter is called once."""
        args = call(self.plugin, LAYOUTS, "MemoryLayout_Serialize", abi.PJRT_Layouts_MemoryLayout_Serialize_Args(
            layout=self._layout))
        data = ctypes.string_at(args.serialized_bytes, args.serialized_bytes_size) if args.serialized_bytes else b""
        run_deleter(args.serialized_layout_deleter, args.serialized_layout)
        return data.decode("utf-8", errors="replace")


class OwnedLayout(Layout, OwnedHandle):
    """A layout the caller owns: MemoryLayout_Destroy on close()."""

    def __init__(self, plugin: "Plugin", handle: int, owner: object = None) -> None:
        Layout.__init__(self, plugin, handle, owner)

        def destroy(h: int) -> None:
            destroy_layout(plugin, h)

        self._own(handle, destroy)

    @property
    def address(self) -> int:
        return self.handle


def destroy_layout(plugin: "Plugin", layout: int | None) -> None:
    """MemoryLayout_Destroy (the header lets `layout` be NULL)."""
    call(plugin, LAYOUTS, "MemoryLayout_Destroy", abi.PJRT_Layouts_MemoryLayout_Destroy_Args(layout=layout))


def client_default_layout(client: "Client", element_type: BufferType, dims: Sequence[int]) -> OwnedLayout:
    extents = (ctypes.c_int64 * max(1, len(dims)))(*dims)
    args = call(client.plugin, LAYOUTS, "Client_GetDefaultLayout", abi.PJRT_Layouts_PJRT_Client_GetDefaultLayout_Args(
        client=client.handle, type=int(element_type), dims=ctypes.addressof(extents), num_dims=len(dims)))
    return OwnedLayout(client.plugin, int(args.layout or 0))


def topology_default_layout(plugin: "Plugin", topology: int, element_type: BufferType,
                            dims: Sequence[int]) -> OwnedLayout:
    extents = (ctypes.c_int64 * max(1, len(dims)))(*dims)
    args = call(plugin, LAYOUTS, "Topology_GetDefaultLayout", abi.PJRT_Layouts_PJRT_Topology_GetDefaultLayout_Args(
        topology_description=topology, type=int(element_type), dims=ctypes.addressof(extents), num_dims=len(dims)))
    return OwnedLayout(plugin, int(args.layout or 0))


def buffer_layout(buffer: "Buffer") -> OwnedLayout:
    args = call(buffer.plugin, LAYOUTS, "Buffer_MemoryLayout", abi.PJRT_Layouts_PJRT_Buffer_MemoryLayout_Args(
        buffer=buffer.handle))
    return OwnedLayout(buffer.plugin, int(args.layout or 0), owner=buffer)


def parameter_layouts(executable: "Executable") -> list[Layout]:
    args = call(executable.plugin, LAYOUTS, "Executable_GetParameterLayouts",
                abi.PJRT_Layouts_PJRT_Executable_GetParameterLayouts_Args(executable=executable.handle))
    return [Layout(executable.plugin, h, owner=executable) for h in read_pointers(args.layouts, args.num_parameters)]


def output_layouts(executable: "Executable") -> list[Layout]:
    args = call(executable.plugin, LAYOUTS, "Executable_GetOutputLayouts",
                abi.PJRT_Layouts_PJRT_Executable_GetOutputLayouts_Args(executable=executable.handle))
    return [Layout(executable.plugin, h, owner=executable) for h in read_pointers(args.layouts, args.num_outputs)]


LAYOUT_TEXT = re.compile(r"^\{(?P<m2m>\d+(?:,\d+)*)?(?::(?P<rest>.*))?\}$")


@dataclass(frozen=True)
class LayoutText:
    minor_to_major: tuple[int, ...]
    attributes: str  # what follows `:` (tiles `T(8,128)`, element size `E(4)`, memory space `S(1)`), or ""


def parse_layout_text(text: str) -> LayoutText:
    """XLA layout text (`{1,0}`, `{}`, `{1,0:T(8,128)}`); ValueError when `text` is none."""
    match = LAYOUT_TEXT.match(text.replace(" ", ""))
    if not match:
        raise ValueError(f"{text!r} is no XLA layout text (`{{minor_to_major[:attributes]}}`)")
    m2m = tuple(int(d) for d in match["m2m"].split(",")) if match["m2m"] else ()
    return LayoutText(m2m, match["rest"] or "")
