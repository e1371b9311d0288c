"""The ctypes declarations agree with the ABI reference, field by field and slot by slot."""
from __future__ import annotations

import ctypes
import re
from pathlib import Path

import pytest

from pjrt_cts.abi import slots, structs
from pjrt_cts.abi.base import PjrtStruct

REFERENCE = Path(__file__).parent / "data" / "pjrt_abi_reference.md"
_STRUCT_LINE = re.compile(r"^- `(PJRT_\w+)` \[(\w+)/(\w+)\]: (.*)$")


def _reference_structs() -> dict[str, tuple[str, str, list[tuple[str, int]]]]:
    table = {}
    for line in REFERENCE.read_text().splitlines():
        match = _STRUCT_LINE.match(line.strip())
        if not match:
            continue
        name, struct_size, size, body = match.groups()
        fields: list[tuple[str, int]] = []
        for part in re.split(r",\s*(?![^{]*\})", body):
            part = part.strip()
            if part == "HDR":
                fields += [("struct_size", 0), ("extension_start", 8)]
            elif part.startswith("union"):
                fields.append(("<union>", int(part.rsplit("@", 1)[1])))
            else:
                field, offset = re.match(r"(\w+)(?::.+)?@(\d+)$", part).groups()
                fields.append((field, int(offset)))
        table[name] = (struct_size, size, fields)
    return table


REFERENCE_STRUCTS = _reference_structs()


def test_reference_lists_every_struct() -> None:
    assert len(REFERENCE_STRUCTS) == 163
    declared = {name for name in dir(structs) if name.startswith("PJRT_")}
    assert set(REFERENCE_STRUCTS) <= declared, f"not declared: {sorted(set(REFERENCE_STRUCTS) - declared)}"


@pytest.mark.parametrize("name", sorted(REFERENCE_STRUCTS))
def test_struct_matches_reference(name: str) -> None:
    struct_size, size, fields = REFERENCE_STRUCTS[name]
    cls = getattr(structs, name)
    if size != "None":
        assert ctypes.sizeof(cls) == int(size), f"{name}: sizeof {ctypes.sizeof(cls)} != {size}"
    if struct_size != "None":
        assert cls.STRUCT_SIZE == int(struct_size), f"{name}: STRUCT_SIZE {cls.STRUCT_SIZE} != {struct_size}"
    declared = [(field_name, getattr(cls, field_name).offset) for field_name, _ in cls._fields_]
    expected = [(("value" if name == "PJRT_NamedValue" else "layout") if f == "<union>" else f, o) for f, o in fields]
    assert declared == expected, f"{name}: fields/offsets differ from the reference"


def test_sixteen_structs_have_tail_padding() -> None:
    padded = [name for name in REFERENCE_STRUCTS if REFERENCE_STRUCTS[name][0] not in ("None", REFERENCE_STRUCTS[name][1])]
    assert len(padded) == 16
    for name in padded:
        cls = getattr(structs, name)
        assert cls.STRUCT_SIZE < ctypes.sizeof(cls)
        assert cls().struct_size == cls.STRUCT_SIZE, "instances must carry PJRT_STRUCT_SIZE, not sizeof"


def _reference_slots() -> list[tuple[int, str, str]]:
    rows = []
    for line in REFERENCE.read_text().splitlines():
        match = re.match(r"^\| [\d–]+ \| (base|0\.\d+) \| (.*) \|$", line)
        if match:
            since, functions = match.groups()
            for index, name in re.findall(r"\[(\d+)\] …?(\w+)", functions):
                rows.append((int(index), name, since))
    return rows


def test_slot_table_matches_reference() -> None:
    reference = _reference_slots()
    assert len(reference) == 138 == slots.NUM_SLOTS
    for index, name, since in reference:
        slot = slots.SLOTS[index]
        assert slot.index == index
        expected_minor = slots.BASE_MINOR if since == "base" else int(since.split(".")[1])
        assert slot.since_minor == expected_minor, f"slot {index}: since {slot.since_minor} != {since}"
        # The reference abbreviates the transfer manager family as "…_Device" etc.
        assert slot.name == name or slot.name.endswith(name), f"slot {index}: {slot.name} != {name}"


@pytest.mark.parametrize("name,offset", [("Client_Create", 120), ("Client_Compile", 200), ("Client_BufferFromHostBuffer", 216), ("LoadedExecutable_Execute", 480), ("Compile", 752), ("TopologyDescription_GetMemorySpaceKindIds", 1136)])
def test_slot_offsets(name: str, offset: int) -> None:
    assert slots.SLOTS_BY_NAME[name].offset == offset
    assert slots.API_STRUCT_SIZE == 1144


def test_an_081_plugin_lacks_exactly_twenty_slots() -> None:
    assert len([s for s in slots.SLOTS if s.since_minor > 81]) == 20
    assert len(slots.slots_expected_at(81)) == 118


def test_struct_size_of_older_minor_drops_later_fields() -> None:
    assert structs.PJRT_ExecuteOptions.struct_size_at(114) == 144
    assert structs.PJRT_ExecuteOptions.struct_size_at(78) == 112  # through incarnation_ids, the plugins' floor
    assert structs.PJRT_Client_Create_Args.struct_size_at(60) == 72  # before the try_get callback
    assert structs.PJRT_ExecuteOptions.fields_added_after(108) == ["hlo_output_callbacks", "num_hlo_output_callbacks"]
    with pytest.raises(ValueError):
        structs.PJRT_Event_Create_Args.struct_size_at(88)


def test_every_struct_is_a_pjrt_struct_or_raw() -> None:
    for name in REFERENCE_STRUCTS:
        assert issubclass(getattr(structs, name), (PjrtStruct, ctypes.Structure))
