"""pjrt_cts.abi against a real header: the pjrt_c_api.h (minor 0.81) shipped in the xla-cpu-pjrt wheel.

A generated C program includes the header and prints sizeof / offsetof / PJRT_STRUCT_SIZE of every struct
and field it declares, the PJRT_Api slot order and every enumerator's value; the ctypes mirrors (written
from the 0.114 reference) must agree wherever the 0.81 header has the same thing, and every field, struct or
slot the mirrors date at or before 0.81 must be in that header.
"""
from __future__ import annotations

import ctypes
import enum
import importlib.util
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from pjrt_cts.abi import enums
from pjrt_cts.abi import structs
from pjrt_cts.abi.base import PjrtStruct, RawStruct
from pjrt_cts.abi.slots import slots_expected_at

HEADER_MINOR = 81


class MirroredEnum(NamedTuple):
    mirror: type[enum.IntEnum]  # the ctypes-side mirror in pjrt_cts.abi.enums
    prefix: str  # the prefix every enumerator of the header's enum carries


# Header enum type -> its mirror.
ENUMS: dict[str, MirroredEnum] = {
    "PJRT_Extension_Type": MirroredEnum(enums.ExtensionType, "PJRT_Extension_Type_"),
    "PJRT_Error_Code": MirroredEnum(enums.ErrorCode, "PJRT_Error_Code_"),
    "PJRT_NamedValue_Type": MirroredEnum(enums.NamedValueType, "PJRT_NamedValue_"),
    "PJRT_ProcessState": MirroredEnum(enums.ProcessState, "PJRT_ProcessState_"),
    "PJRT_Buffer_Type": MirroredEnum(enums.BufferType, "PJRT_Buffer_Type_"),
    "PJRT_HostBufferSemantics": MirroredEnum(enums.HostBufferSemantics, "PJRT_HostBufferSemantics_"),
    "PJRT_Buffer_MemoryLayout_Type": MirroredEnum(enums.MemoryLayoutType, "PJRT_Buffer_MemoryLayout_Type_"),
}


def header_path() -> Path | None:
    spec = importlib.util.find_spec("xla_plugins")
    for root in (spec.submodule_search_locations or []) if spec else []:
        candidate = Path(root) / "xla_cpu_pjrt" / "include" / "pjrt_c_api.h"
        if candidate.is_file():
            return candidate
    return None


@dataclass
class HeaderStruct:
    name: str
    fields: list[str] = field(default_factory=list)


def _strip_comments(text: str) -> str:
    return re.sub(r"/\*.*?\*/", " ", re.sub(r"//[^\n]*", " ", text), flags=re.DOTALL)


def _closing_brace(text: str, opening: int) -> int:
    depth = 0
    for index in range(opening, len(text)):
        depth += {"{": 1, "}": -1}.get(text[index], 0)
        if depth == 0:
            return index
    raise ValueError("unbalanced braces in the header")


def _member_names(body: str) -> list[str]:
    """Field names of a struct body; members of an anonymous union are fields of the struct."""
    names: list[str] = []
    position = 0
    while position < len(body):
        union = re.compile(r"\s*(union|struct)\s*\{").match(body, position)
        if union:
            end = _closing_brace(body, union.end() - 1)
            names += _member_names(body[union.end():end])
            position = body.index(";", end) + 1
            continue
        semicolon = body.find(";", position)
        if semicolon < 0:
            break
        statement = body[position:semicolon].strip()
        position = semicolon + 1
        if not statement:
            continue
        slot = re.fullmatch(r"_PJRT_API_STRUCT_FIELD\((\w+)\)", statement)
        pointer = re.search(r"\(\s*\*\s*(\w+)\s*\)", statement)
        if slot:
            names.append(slot.group(1))
        elif pointer:
            names.append(pointer.group(1))
        else:
            names.append(re.sub(r"\[.*\]", "", statement).split()[-1].lstrip("*"))
    return names


def parse_header(text: str) -> tuple[dict[str, HeaderStruct], dict[str, str], dict[str, list[str]]]:
    """(structs with bodies, PJRT_DEFINE_STRUCT_TRAITS name -> last field, enum type -> enumerators)."""
    text = _strip_comments(text)
    structs: dict[str, HeaderStruct] = {}
    for match in re.finditer(r"\bstruct\s+(PJRT_\w+)\s*\{", text):
        end = _closing_brace(text, match.end() - 1)
        structs[match.group(1)] = HeaderStruct(match.group(1), _member_names(text[match.end():end]))
    traits = dict(re.findall(r"PJRT_DEFINE_STRUCT_TRAITS\((\w+),\s*(\w+)\)", text))
    enum_types: dict[str, list[str]] = {}
    for match in re.finditer(r"typedef\s+enum\s*\{(.*?)\}\s*(\w+)\s*;", text, re.DOTALL):
        enum_types[match.group(2)] = [item.split("=")[0].strip() for item in match.group(1).split(",") if item.strip()]
    return structs, traits, enum_types


def c_program(structs: dict[str, HeaderStruct], traits: dict[str, str], enum_types: dict[str, list[str]]) -> str:
    lines = ["#include <stddef.h>", "#include <stdio.h>", '#include "pjrt_c_api.h"', "int main(void) {"]
    for struct in structs.values():
        kind = "struct " if struct.name not in traits and struct.name != "PJRT_Api" else ""
        ctype = f"{kind}{struct.name}"
        has_size = struct.name in traits or struct.name == "PJRT_Api"  # PJRT_Api_STRUCT_SIZE is its own enum
        size = f"(size_t){struct.name}_STRUCT_SIZE" if has_size else "(size_t)0"
        lines.append(f'  printf("S {struct.name} %zu %zu\\n", sizeof({ctype}), {size});')
        for name in struct.fields:
            lines.append(f'  printf("F {struct.name} {name} %zu %zu\\n", offsetof({ctype}, {name}), '
                         f"sizeof((({ctype}*)0)->{name}));")
    for enumerators in enum_types.values():
        for name in enumerators:
            lines.append(f'  printf("E {name} %d\\n", (int){name});')
    lines += ["  return 0;", "}"]
    return "\n".join(lines) + "\n"


@dataclass
class Compiled:
    sizes: dict[str, tuple[int, int]]  # struct -> (sizeof, PJRT_STRUCT_SIZE or 0)
    fields: dict[str, list[tuple[str, int, int]]]  # struct -> [(field, offset, size)] in header order
    enumerators: dict[str, int]
    parsed: dict[str, HeaderStruct]
    enum_types: dict[str, list[str]]


@pytest.fixture(scope="module")
def header(tmp_path_factory: pytest.TempPathFactory) -> Compiled:
    path = header_path()
    if path is None:
        pytest.skip("the test extra's xla-cpu-pjrt wheel (pjrt_c_api.h) is not installed: pip install -e '.[test]'")
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("needs a C compiler (apt-get install gcc libc6-dev)")
    structs, traits, enum_types = parse_header(path.read_text(encoding="utf-8"))
    work = tmp_path_factory.mktemp("abi-header")
    (work / "layout.c").write_text(c_program(structs, traits, enum_types), encoding="utf-8")
    built = subprocess.run([compiler, "-std=c11", "-I", str(path.parent), "-o", str(work / "layout"),
                            str(work / "layout.c")], capture_output=True, text=True, check=False)
    assert built.returncode == 0, f"compiling the layout probe against {path} failed:\n{built.stderr[-3000:]}"
    output = subprocess.run([str(work / "layout")], capture_output=True, text=True, check=True).stdout
    compiled = Compiled({}, {}, {}, structs, enum_types)
    for line in output.splitlines():
        kind, *rest = line.split()
        if kind == "S":
            compiled.sizes[rest[0]] = (int(rest[1]), int(rest[2]))
        elif kind == "F":
            compiled.fields.setdefault(rest[0], []).append((rest[1], int(rest[2]), int(rest[3])))
        else:
            compiled.enumerators[rest[0]] = int(rest[1])
    return compiled


def mirrors() -> dict[str, type[ctypes.Structure]]:
    return {name: value for name, value in vars(structs).items()
            if isinstance(value, type) and issubclass(value, RawStruct) and name.startswith("PJRT_")}


def test_the_header_is_parsed_into_the_expected_shape(header: Compiled) -> None:
    assert len(header.sizes) > 100 and "PJRT_Api" in header.sizes and "PJRT_Client_Create_Args" in header.sizes
    assert set(ENUMS) <= set(header.enum_types), sorted(header.enum_types)


def test_every_struct_of_the_header_has_a_mirror_dated_at_or_before_its_minor(header: Compiled) -> None:
    ours = mirrors()
    missing = sorted(set(header.sizes) - set(ours) - {"PJRT_Api"})
    assert missing == [], f"structs of the 0.{HEADER_MINOR} header without a ctypes mirror: {missing}"
    too_new = sorted(name for name in header.sizes if name in ours and ours[name]._since_ > HEADER_MINOR)
    assert too_new == [], f"mirrors dated after 0.{HEADER_MINOR} although that header has them: {too_new}"


def test_every_mirror_dated_at_or_before_the_header_is_in_it(header: Compiled) -> None:
    absent = sorted(name for name, cls in mirrors().items() if cls._since_ <= HEADER_MINOR and name not in header.sizes)
    assert absent == [], f"mirrors dated at or before 0.{HEADER_MINOR} that its header lacks: {absent}"


def _offset_problems(name: str, cls: type[ctypes.Structure], header_fields: list[tuple[str, int, int]]) -> list[str]:
    problems = []
    for field_name, offset, size in header_fields:
        descriptor: Any = getattr(cls, field_name, None)
        if descriptor is None:
            problems.append(f"{name}.{field_name}: in the header, not in the mirror")
        elif (descriptor.offset, descriptor.size) != (offset, size):
            problems.append(f"{name}.{field_name}: header offset {offset} size {size}, mirror offset "
                            f"{descriptor.offset} size {descriptor.size}")
    anonymous = set(getattr(cls, "_anonymous_", ()))
    present = {field_name for field_name, _, _ in header_fields}
    since = getattr(cls, "_field_since_", {})
    for field_name, _ in cls._fields_:
        if field_name not in present and field_name not in anonymous and since.get(field_name, 0) <= HEADER_MINOR:
            problems.append(f"{name}.{field_name}: dated at or before 0.{HEADER_MINOR} but not in its header")
    return problems


def test_fields_have_the_headers_offsets_and_sizes(header: Compiled) -> None:
    ours = mirrors()
    problems = [problem for name, fields in sorted(header.fields.items()) if name in ours
                for problem in _offset_problems(name, ours[name], fields)]
    assert problems == [], "\n".join(problems)


def test_struct_size_at_the_headers_minor_is_its_pjrt_struct_size(header: Compiled) -> None:
    ours = mirrors()
    problems = []
    for name, (_, struct_size) in sorted(header.sizes.items()):
        cls = ours.get(name)
        if struct_size and cls is not None and issubclass(cls, PjrtStruct):
            if cls.struct_size_at(HEADER_MINOR) != struct_size:
                problems.append(f"{name}: header {name}_STRUCT_SIZE {struct_size}, mirror "
                                f"struct_size_at(0.{HEADER_MINOR}) {cls.struct_size_at(HEADER_MINOR)}")
    assert problems == [], "\n".join(problems)


def test_pjrt_api_slots_are_in_the_headers_order(header: Compiled) -> None:
    slots = [name for name, _, _ in header.fields["PJRT_Api"]][3:]  # after struct_size, extension_start, version
    assert slots == ["PJRT_" + slot.name for slot in slots_expected_at(HEADER_MINOR)]
    offsets = {name: offset for name, offset, _ in header.fields["PJRT_Api"]}
    assert all(offsets["PJRT_" + slot.name] == slot.offset for slot in slots_expected_at(HEADER_MINOR))
    assert header.sizes["PJRT_Api"][1] == 40 + 8 * len(slots)


def _member_name(enumerator: str, prefix: str) -> str:
    suffix = enumerator[len(prefix):]
    if suffix.startswith("k") and suffix[1:2].isupper():
        suffix = suffix[1:]
    if any(character.islower() for character in suffix):  # CamelCase -> UPPER_SNAKE
        suffix = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", suffix)
    return suffix.upper()


def test_enumerators_have_the_headers_values(header: Compiled) -> None:
    problems = []
    for type_name, mirrored in ENUMS.items():
        mirror = mirrored.mirror
        for enumerator in header.enum_types[type_name]:
            member = _member_name(enumerator, mirrored.prefix)
            if member not in mirror.__members__:
                problems.append(f"{enumerator}: no {mirror.__name__}.{member}")
            elif mirror[member].value != header.enumerators[enumerator]:
                problems.append(f"{enumerator} = {header.enumerators[enumerator]}, {mirror.__name__}.{member} = "
                                f"{mirror[member].value}")
    assert problems == [], "\n".join(problems)
