"""The versioning layer's reproduction of a plugin writing past an older caller's struct_size.

A query whose trailing fields are outputs is called with the args struct an older framework passes (struct_size
of an older minor); the memory from struct_size on is the caller's, filled with 0xA5 before the call. Any other
byte there afterwards was written by the plugin. The reproduction script is a call of `reproduce` by name (made by
pjrt_cts.testing.reproduction), so what it runs is this module's code, checked like the rest of the package; the
same check from a shell:

    python -m pjrt_cts.testing.struct_size_cases PLUGIN OPTIONS_JSON PROGRAM_FILE FUNCTION STRUCT SIZE FIELD

prints the plugin's error (if it refused the size) and the bytes past struct_size, and exits 1 when the plugin
wrote beyond struct_size, 0 otherwise.
"""
from __future__ import annotations

import ctypes
import json
import sys
from pathlib import Path
from typing import Any, Mapping, Sequence

from pjrt_cts.testing.reproduction import OVERRIDES_NOTE, chosen_plugin, script_calling

SENTINEL = 0xA5
WRITTEN_BEYOND = "WRITTEN BEYOND struct_size"
NOTHING_BEYOND = "ok: nothing written beyond struct_size"


def bytes_past(args: Any, struct: type, size: int) -> bytes:
    """The caller's bytes of `args` (a `struct` whose struct_size was `size`) from `size` to the struct's end."""
    return bytes((ctypes.c_uint8 * (ctypes.sizeof(struct) - size)).from_address(ctypes.addressof(args) + size))


def written(tail: bytes) -> bool:
    """Whether the plugin wrote into `tail` (filled with SENTINEL before the call)."""
    return tail != bytes([SENTINEL]) * len(tail)


def bytes_past_struct_size(plugin_path: str, options: Mapping[str, Any], program: str, function: str,
                           struct_name: str, size: int, field: str) -> tuple[Any, bytes]:
    """(the plugin's error or None, the caller's bytes from `size` to the struct's full size after the call).
    `field` names the one input: "executable" (of `program` compiled) or "device" (the first addressable)."""
    from pjrt_cts.abi import structs
    from pjrt_cts.runtime import Plugin

    plugin = Plugin.load(plugin_path)
    client = plugin.create_client(dict(options))
    if field == "executable":
        # The loaded executable and its executable stay referenced until the call returns: a handle taken from a
        # temporary dangles once the garbage collector destroys it (a crash that depends on collection timing).
        loaded = client.compile(program)
        owner: Any = loaded.executable
    else:
        owner = client.addressable_devices[0]
    struct = getattr(structs, struct_name)
    args, error = plugin.call_with_struct_size(function, struct, size, fill=SENTINEL, **{field: owner.handle})
    return error, bytes_past(args, struct, size)


def check(plugin_path: str, options: Mapping[str, Any], program_file: str, function: str, struct_name: str,
          size: int, field: str) -> int:
    """Call `function` with struct_size `size` and print what the plugin did: its error (if it refused the size),
    the bytes past struct_size and the verdict line. 1 when it wrote beyond struct_size, else 0."""
    program = Path(program_file).read_text(encoding="utf-8")
    error, tail = bytes_past_struct_size(plugin_path, options, program, function, struct_name, size, field)
    print("error:", error)
    print("bytes past struct_size:", tail.hex())
    print(WRITTEN_BEYOND if written(tail) else NOTHING_BEYOND)
    return 1 if written(tail) else 0


def reproduce(plugin_path: str, options: Mapping[str, Any], program_file: str, function: str, struct_name: str,
              size: int, field: str) -> int:
    """What a reproduction script calls: `check`, against the plugin and options it was written for unless its
    runner names others (testing.reproduction.chosen_plugin)."""
    chosen_path, chosen_options = chosen_plugin(plugin_path, options)
    return check(chosen_path, chosen_options, program_file, function, struct_name, size, field)


def main(argv: Sequence[str]) -> int:
    if len(argv) != 7:
        print(__doc__, file=sys.stderr)
        return 2
    plugin_path, options_json, program_file, function, struct_name, size, field = argv
    return check(plugin_path, json.loads(options_json or "{}"), program_file, function, struct_name, int(size), field)


def reproduction_script(*, function: str, struct_name: str, size: int, field: str, path: Path, plugin_path: Any,
                        options: Mapping[str, Any], program: str) -> str:
    """A stand-alone script (no pytest) that reruns the call (a call of `reproduce` by name); the program it
    compiles is written beside it."""
    program_file = path.with_suffix(".mlir")
    program_file.write_text(program, encoding="utf-8")
    doc = (f"pjrt-cts versioning reproduction: PJRT_{function} with struct_size {size} (an older caller's\n"
           f"{struct_name}) writes past struct_size. Bytes from {size} on are caller memory filled with 0x{SENTINEL:02X};\n"
           "any other value was written by the plugin.\n\n"
           f"Run: python {path} [PLUGIN [CREATE_OPTIONS_JSON]]\n"
           f"{OVERRIDES_NOTE}")
    return script_calling(reproduce, (str(plugin_path), dict(options), str(program_file), function, struct_name, size,
                                      field), doc=doc)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
