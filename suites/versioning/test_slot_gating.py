"""Slot gating: a function exists iff its slot lies within PJRT_Api.struct_size and is non-NULL.

Clause (pjrt_c_api.h, PJRT_Api): new functions are appended; a caller built against a newer header
must check `struct_size` before reading a slot. The suite's runtime must refuse (MissingFunction) to
call any slot beyond the plugin's struct_size, without reading or calling it.
"""
from __future__ import annotations

import ctypes
from typing import Any

import pytest

from pjrt_cts.abi import structs
from pjrt_cts.abi.base import BASE_MINOR
from pjrt_cts.abi.slots import API_HEADER_SIZE, HEADER_MINOR, SLOT_SIZE, SLOTS, slots_expected_at
from pjrt_cts.runtime import MissingFunction

APPENDED_SLOTS = [slot for slot in SLOTS if slot.since_minor > BASE_MINOR]


@pytest.mark.parametrize("slot", APPENDED_SLOTS, ids=lambda s: s.name)
def test_slot_beyond_struct_size_is_unsupported_without_a_call(plugin: Any, slot: Any) -> None:
    if slot.offset + SLOT_SIZE <= plugin.struct_size:
        # Within the table: the runtime must use exactly the pointer the plugin stored there.
        stored = ctypes.c_void_p.from_address(plugin.api_address + slot.offset).value or 0
        assert plugin.slot_pointer(slot.name) == stored, (
            f"PJRT_Api slot {slot.index} ({slot.c_name}): runtime uses 0x{plugin.slot_pointer(slot.name):x}, "
            f"the table holds 0x{stored:x}")
        return
    # A dummy args struct: were the runtime to call the slot anyway, the plugin would get a garbage call.
    with pytest.raises(MissingFunction) as raised:
        plugin.call(slot.name, structs.PJRT_Plugin_Initialize_Args())
    reason = raised.value.reason
    assert str(plugin.struct_size) in reason, (
        f"{slot.c_name} (offset {slot.offset}) lies beyond PJRT_Api struct_size {plugin.struct_size}: MissingFunction "
        f"should say so, says: {reason}")
    assert not plugin.has(slot.name), f"{slot.c_name} lies beyond struct_size {plugin.struct_size} but has() is true"


def test_struct_size_is_a_whole_number_of_slots(plugin: Any) -> None:
    extra = (plugin.struct_size - API_HEADER_SIZE) % SLOT_SIZE
    assert plugin.struct_size >= API_HEADER_SIZE and extra == 0, (
        f"PJRT_Api.struct_size {plugin.struct_size} is not {API_HEADER_SIZE} + {SLOT_SIZE}*n")


def test_struct_size_covers_every_slot_of_the_reported_minor(plugin: Any) -> None:
    major, minor = plugin.api_version
    expected = slots_expected_at(min(minor, HEADER_MINOR))
    present = plugin.num_slots
    assert present >= len(expected), (
        f"PJRT_Api reports {major}.{minor}, which defines {len(expected)} slots, but struct_size "
        f"{plugin.struct_size} holds only {present} (first missing: {expected[present].c_name})")

