"""Calling a function of an extension struct by its registry name (pjrt_cts.abi.extensions.registry)."""
from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING, Any, Callable, TypeVar

from pjrt_cts.abi.callbacks import VoidSlotFunction
from pjrt_cts.abi.enums import ExtensionType
from pjrt_cts.abi.extensions.profiler import TABLE_FUNCTIONS, PLUGIN_Profiler_Api
from pjrt_cts.abi.extensions.registry import EXTENSIONS

if TYPE_CHECKING:
    from pjrt_cts.runtime.plugin import Plugin

_ArgsT = TypeVar("_ArgsT", bound=ctypes.Structure)


def call(plugin: "Plugin", extension: ExtensionType, name: str, args: _ArgsT) -> _ArgsT:
    """`EXTENSION.name(&args)`; a returned PJRT_Error raises PjrtError("EXTENSION.name", code, message)."""
    return plugin.call_extension(extension, name, EXTENSIONS[extension].function(name).offset, args)


def call_void(plugin: "Plugin", extension: ExtensionType, name: str, args: ctypes.Structure) -> None:
    """`EXTENSION.name(&args)` for a function that returns nothing (a destroy)."""
    function(plugin, extension, name, VoidSlotFunction)(ctypes.addressof(args))


def function(plugin: "Plugin", extension: ExtensionType, name: str,
             prototype: Callable[[int], Callable[..., Any]] | None = None) -> Callable[..., Any]:
    """The callable of `EXTENSION.name` (through the call hooks); MissingFunction when absent, NullExtensionFunction
    when NULL."""
    offset = EXTENSIONS[extension].function(name).offset
    if prototype is None:
        return plugin.extension_function(extension, name, offset)
    return plugin.extension_function(extension, name, offset, prototype=prototype)


def c_string(text: str | bytes) -> tuple[Any, int]:
    """A NUL-terminated copy of `text` (kept alive by the caller) and its size without the NUL."""
    data = text.encode() if isinstance(text, str) else text
    return ctypes.create_string_buffer(data, len(data) + 1), len(data)


def address(buffer: Any) -> int:
    return ctypes.addressof(buffer)


def read_pointers(pointer: int | None, count: int) -> list[int]:
    if not pointer or not count:
        return []
    return [int(p or 0) for p in (ctypes.c_void_p * count).from_address(pointer)]


def read_sizes(pointer: int | None, count: int) -> list[int]:
    if not pointer or not count:
        return []
    return [int(s) for s in (ctypes.c_size_t * count).from_address(pointer)]


def read_byte_strings(pointers: int | None, sizes: int | None, count: int) -> list[bytes]:
    """Copies of `count` (pointer, size) byte strings held in two parallel arrays."""
    return [ctypes.string_at(p, s) if p else b"" for p, s in zip(read_pointers(pointers, count), read_sizes(sizes, count))]


def run_deleter(deleter: int | None, holder: int | None) -> None:
    """Call a plugin-returned `void (*)(T*)` deleter on `holder` (exactly once; NULL deleter: nothing to free)."""
    if deleter:
        ctypes.CFUNCTYPE(None, ctypes.c_void_p)(deleter)(holder)


def offered_functions(plugin: "Plugin") -> list[str]:
    """`EXTENSION.name` of every function the plugin offers in the extensions it advertises: within the extension's
    struct_size and not NULL (the registry's declarations; an extension the suite does not declare offers none it
    can name). What the preflight probe records (results.json `plugin.extension_functions`): the conditional
    mandatory entries of the levels and the API coverage read it."""
    offered: list[str] = []
    for info in plugin.extensions:
        try:
            spec = EXTENSIONS[ExtensionType(info.type)]
        except (ValueError, KeyError):
            continue
        for entry in spec.covered(info.struct_size):
            pointer = ctypes.c_void_p.from_address(info.address + entry.offset).value
            if pointer and spec.extension is ExtensionType.PROFILER and entry.name == "profiler_api":
                offered.extend(f"PROFILER.{name}" for name in _profiler_table_functions(int(pointer)))
            elif pointer:
                offered.append(f"{spec.name}.{entry.name}")
    return offered


def _profiler_table_functions(table: int) -> list[str]:
    """The functions of the PLUGIN_Profiler_Api at `table` within its struct_size and not NULL (PROFILER's functions
    are those of this table, not of the extension struct that points to it)."""
    struct_size = ctypes.c_size_t.from_address(table).value
    functions: list[str] = []
    for name in TABLE_FUNCTIONS:
        field = getattr(PLUGIN_Profiler_Api, name)
        if field.offset + field.size <= struct_size and ctypes.c_void_p.from_address(table + field.offset).value:
            functions.append(name)
    return functions
