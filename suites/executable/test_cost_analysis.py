"""PJRT_Executable_GetCostAnalysis: typed, named properties (UNIMPLEMENTED -> NOT_SUPPORTED).

Each property has a non-empty, unique name and a PJRT_NamedValue value (int64, float, bool, string or int64
list); counts and byte sizes ("flops", "transcendentals", "bytes accessed*", "utilization*") are finite and
not negative.
"""
from __future__ import annotations

import math

from pjrt_cts.testing import PROGRAMS_BY_NAME, compiled_program, programs_param, requires, unsupported_if_unimplemented

NON_NEGATIVE_PREFIXES = ("flops", "transcendentals", "bytes accessed", "utilization")


pytestmark = requires("Executable_GetCostAnalysis")


def _cost(plugin, executable):
    with unsupported_if_unimplemented("PJRT_Executable_GetCostAnalysis"):
        return executable.cost_analysis_items()


@programs_param()
def test_cost_properties_are_typed(plugin, client, program):
    items = _cost(plugin, compiled_program(client, program))
    for name, value in items:
        assert isinstance(name, str) and name, f"PJRT_Executable_GetCostAnalysis has a property with an empty name: {value!r}"
        assert isinstance(value, (int, float, bool, str, list)), (
            f"PJRT_Executable_GetCostAnalysis property {name!r} has an untyped value {value!r}"
        )
        if isinstance(value, list):
            assert all(isinstance(v, int) for v in value), f"cost property {name!r}: int64 list holds {value!r}"


@programs_param()
def test_cost_property_names_are_unique(plugin, client, program):
    names = [name for name, _ in _cost(plugin, compiled_program(client, program))]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    assert not duplicates, f"PJRT_Executable_GetCostAnalysis repeats properties {duplicates}"


@programs_param()
def test_cost_counts_are_finite_and_not_negative(plugin, client, program):
    for name, value in _cost(plugin, compiled_program(client, program)):
        if not name.startswith(NON_NEGATIVE_PREFIXES) or isinstance(value, (str, list, bool)):
            continue
        assert math.isfinite(value) and value >= 0, (
            f"PJRT_Executable_GetCostAnalysis property {name!r} = {value!r}: a count must be finite and >= 0"
        )


def test_cost_analysis_is_repeatable(plugin, client):
    executable = compiled_program(client, PROGRAMS_BY_NAME["dot_f32"])
    first = dict(_cost(plugin, executable))
    second = dict(_cost(plugin, executable))
    assert first == second, "PJRT_Executable_GetCostAnalysis of one executable differs between calls"
