"""The plugin's compatibility window, as frameworks see it, recorded in results.json `compatibility`.

Clauses: PJRT_Api.pjrt_api_version is what frameworks gate on (major must match theirs, minor at
least 29 for XLA's loader); PJRT_Plugin_Attributes announces the StableHLO versions the plugin reads.
"""
from __future__ import annotations

from typing import Any

from pjrt_cts.abi.slots import NUM_SLOTS

FRAMEWORK_MAJOR = 0
FRAMEWORK_MIN_MINOR = 29  # xla/pjrt/pjrt_api.cc kMinPjRtMinor (compatibility mode)


def test_plugin_reports_its_compatibility_window(plugin: Any, stablehlo_window: Any, record: Any) -> None:
    window = {
        "api_version": plugin.version_string,
        "pjrt_api_struct_size": plugin.struct_size,
        "num_slots": plugin.num_slots,
        "slots_missing_vs_header_0_114": max(0, NUM_SLOTS - plugin.num_slots),
        "stablehlo_minimum_version": ".".join(map(str, stablehlo_window.minimum)),
        "stablehlo_current_version": ".".join(map(str, stablehlo_window.current)),
    }
    record.compatibility(window)
    record.details(window)
    assert stablehlo_window.minimum <= stablehlo_window.current, (
        f"PJRT_Plugin_Attributes: stablehlo_minimum_version {window['stablehlo_minimum_version']} is newer than "
        f"stablehlo_current_version {window['stablehlo_current_version']}")


def test_api_version_is_loadable_by_frameworks(plugin: Any) -> None:
    major, minor = plugin.api_version
    assert major == FRAMEWORK_MAJOR and minor >= FRAMEWORK_MIN_MINOR, (
        f"PJRT_Api.pjrt_api_version {major}.{minor}: frameworks load {FRAMEWORK_MAJOR}.x with x >= {FRAMEWORK_MIN_MINOR}")


def test_api_version_struct_has_its_size(plugin: Any) -> None:
    assert plugin.api_version_struct_size >= 24, (
        f"PJRT_Api.pjrt_api_version.struct_size is {plugin.api_version_struct_size}, PJRT_Api_Version is 24 bytes")
