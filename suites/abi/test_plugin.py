"""PJRT_Plugin_Initialize and PJRT_Plugin_Attributes."""
from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from pjrt_cts.runtime.named_values import type_name_of

# Attributes frameworks read (XLA's generic C API test requires all three) and their PJRT_NamedValue types.
STANDARD_ATTRIBUTES = {
    "xla_version": "INT64",
    "stablehlo_current_version": "INT64_LIST",
    "stablehlo_minimum_version": "INT64_LIST",
}
STABLEHLO_VERSIONS = ("stablehlo_current_version", "stablehlo_minimum_version")
VALID_TYPES = {"STRING", "INT64", "INT64_LIST", "FLOAT", "BOOL"}


def _attribute(plugin: Any, name: str) -> Any:
    attributes = plugin.attributes
    assert name in attributes, f"PJRT_Plugin_Attributes should include {name!r}, but has only {sorted(attributes)}"
    return attributes[name]


def test_plugin_initialize_succeeds(plugin: Any) -> None:
    plugin.initialize()  # a PjrtError here names PJRT_Plugin_Initialize, its code and message


def test_plugin_initialize_may_be_called_twice(plugin: Any) -> None:
    plugin.initialize()
    plugin.initialize()


def test_plugin_attributes_succeeds(plugin: Any) -> None:
    items = plugin.read_attribute_items()
    assert isinstance(items, list)


def test_plugin_attributes_are_stable_across_calls(plugin: Any) -> None:
    first, second = plugin.read_attribute_items(), plugin.read_attribute_items()
    assert first == second, f"PJRT_Plugin_Attributes should return the same attributes each call, but got {first} then {second}"


def test_plugin_attribute_names_are_unique(plugin: Any) -> None:
    counts = Counter(name for name, _ in plugin.read_attribute_items())
    repeated = {name: n for name, n in counts.items() if n > 1}
    assert not repeated, f"PJRT_Plugin_Attributes names should be unique, but {repeated} repeat"


def test_plugin_attribute_names_are_non_empty(plugin: Any) -> None:
    empty = [i for i, (name, _) in enumerate(plugin.read_attribute_items()) if not name]
    assert not empty, f"PJRT_Plugin_Attributes names should be non-empty, but entries {empty} have empty names"


def test_plugin_attribute_types_are_valid(plugin: Any) -> None:
    bad = {name: value for name, value in plugin.read_attribute_items() if type_name_of(value) not in VALID_TYPES
           or (isinstance(value, str) and value.startswith("<unknown PJRT_NamedValue_Type"))}
    assert not bad, f"PJRT_Plugin_Attributes values should have a PJRT_NamedValue_Type 0..4, but: {bad}"


@pytest.mark.parametrize("name", sorted(STANDARD_ATTRIBUTES))
def test_standard_attribute_is_present(plugin: Any, name: str) -> None:
    _attribute(plugin, name)


@pytest.mark.parametrize("name", sorted(STANDARD_ATTRIBUTES))
def test_standard_attribute_has_documented_type(plugin: Any, name: str) -> None:
    value = _attribute(plugin, name)
    expected = STANDARD_ATTRIBUTES[name]
    assert type_name_of(value) == expected, (
        f"PJRT_Plugin_Attributes {name!r} should be {expected}, but is {type_name_of(value)}: {value!r}"
    )


def test_xla_version_is_non_negative(plugin: Any) -> None:
    value = _attribute(plugin, "xla_version")
    assert isinstance(value, int) and not isinstance(value, bool) and value >= 0, (
        f"PJRT_Plugin_Attributes 'xla_version' should be a non-negative INT64, but is {value!r}"
    )


@pytest.mark.parametrize("name", STABLEHLO_VERSIONS)
def test_stablehlo_version_is_major_minor_patch(plugin: Any, name: str) -> None:
    value = _attribute(plugin, name)
    assert isinstance(value, list) and len(value) == 3 and all(isinstance(v, int) and v >= 0 for v in value), (
        f"PJRT_Plugin_Attributes {name!r} should be [major, minor, patch] of non-negative INT64, but is {value!r}"
    )


def test_stablehlo_minimum_version_is_not_after_current(plugin: Any) -> None:
    minimum = _attribute(plugin, "stablehlo_minimum_version")
    current = _attribute(plugin, "stablehlo_current_version")
    assert list(minimum) <= list(current), (
        f"PJRT_Plugin_Attributes stablehlo_minimum_version {minimum} should not be after stablehlo_current_version {current}"
    )
