"""PJRT_Api function slots: struct_size agrees with the reported minor, and no slot inside it is NULL.

Slot i lives at offset 40 + 8*i; a plugin reporting API 0.<m> must provide every slot the
header of 0.<m> declares (the per-minor table in pjrt_cts.abi.slots).
"""
from __future__ import annotations

from typing import Any

import pytest

from pjrt_cts.abi.base import BASE_MINOR
from pjrt_cts.abi.slots import API_HEADER_SIZE, HEADER_MINOR, SLOT_SIZE, SLOTS, Slot, slots_expected_at
from pjrt_cts.testing import not_applicable


def _slot_ids(slot: Slot) -> str:
    return slot.name


def test_struct_size_is_header_plus_whole_slots(plugin: Any) -> None:
    size = plugin.struct_size
    assert size >= API_HEADER_SIZE and (size - API_HEADER_SIZE) % SLOT_SIZE == 0, (
        f"PJRT_Api.struct_size should be {API_HEADER_SIZE} + 8*slots, but is {size}"
    )


def test_struct_size_covers_slots_of_reported_minor(plugin: Any, known_minor: int) -> None:
    if known_minor < BASE_MINOR:
        not_applicable(f"API 0.{known_minor} predates the 0.{BASE_MINOR} PJRT_Api layout this suite models")
    expected = slots_expected_at(known_minor)
    needed = API_HEADER_SIZE + SLOT_SIZE * len(expected)
    assert plugin.struct_size >= needed, (
        f"PJRT_Api.struct_size should be >= {needed} ({len(expected)} slots of API 0.{known_minor}), but is "
        f"{plugin.struct_size}: ends before PJRT_{expected[plugin.num_slots].name}"
    )


def test_struct_size_has_no_slots_beyond_reported_minor(plugin: Any, reported_minor: int) -> None:
    if reported_minor > HEADER_MINOR:
        not_applicable(f"API 0.{reported_minor} is newer than the 0.{HEADER_MINOR} header this suite mirrors: "
                       "its slots beyond the header are unknown to the suite")
    if reported_minor < BASE_MINOR:
        not_applicable(f"API 0.{reported_minor} predates the 0.{BASE_MINOR} PJRT_Api layout this suite models")
    expected = API_HEADER_SIZE + SLOT_SIZE * len(slots_expected_at(reported_minor))
    assert plugin.struct_size <= expected, (
        f"PJRT_Api.struct_size should be {expected} for API 0.{reported_minor}, but is {plugin.struct_size}: "
        f"the table has slots of a later minor than the version it reports"
    )


def test_no_null_slot_within_struct_size(plugin: Any) -> None:
    null = plugin.null_slots_within_struct_size()
    assert not null, (
        f"every PJRT_Api slot within struct_size {plugin.struct_size} should be non-NULL, but "
        f"{len(null)} are NULL: " + ", ".join(f"PJRT_{s.name} (slot {s.index})" for s in null)
    )


@pytest.mark.parametrize("slot", SLOTS, ids=_slot_ids)
def test_slot_is_present(plugin: Any, known_minor: int, slot: Slot) -> None:
    """A slot of the reported minor must be there; a slot of a later minor is NOT_SUPPORTED when absent (the
    attempt to read it raises runtime.MissingFunction, "missing slot") and must be a real function when present."""
    version = plugin.version_string
    if slot.since_minor > BASE_MINOR and slot.since_minor > known_minor:
        plugin.function(slot.name)  # absent ahead of its minor: missing slot, NOT_SUPPORTED
    else:
        assert slot.offset + SLOT_SIZE <= plugin.struct_size, (
            f"PJRT_{slot.name} (slot {slot.index}, offset {slot.offset}) belongs to API {version}, but "
            f"PJRT_Api.struct_size {plugin.struct_size} ends before it"
        )
    assert plugin.slot_pointer(slot.name), (
        f"PJRT_{slot.name} (slot {slot.index}, offset {slot.offset}) should be a function pointer, but is NULL"
    )
