"""PJRT_Executable_GetCostAnalysis: typed, named properties (UNIMPLEMENTED -> NOT_SUPPORTED).

Each property has a non-empty, unique name and a PJRT_NamedValue value (int64, float, bool, string or int64
list); counts and byte sizes ("flops", "transcendentals", "bytes accessed*", "utilization*") are finite and
not negative (pjrt_cts.testing.executable_checks, shared with the aot layer).
"""
from __future__ import annotations

from pjrt_cts.testing import PROGRAMS_BY_NAME, compiled_program, programs_param, requires
from pjrt_cts.testing.executable_checks import (check_cost_counts, check_cost_names_unique, check_cost_properties_typed,
                                                cost_analysis)

pytestmark = requires("Executable_GetCostAnalysis")


@programs_param()
def test_cost_properties_are_typed(plugin, client, program):
    check_cost_properties_typed(cost_analysis(compiled_program(client, program)))


@programs_param()
def test_cost_property_names_are_unique(plugin, client, program):
    check_cost_names_unique(cost_analysis(compiled_program(client, program)))


@programs_param()
def test_cost_counts_are_finite_and_not_negative(plugin, client, program):
    check_cost_counts(cost_analysis(compiled_program(client, program)))


def test_cost_analysis_is_repeatable(plugin, client):
    executable = compiled_program(client, PROGRAMS_BY_NAME["dot_f32"])
    first = dict(cost_analysis(executable))
    second = dict(cost_analysis(executable))
    assert first == second, "PJRT_Executable_GetCostAnalysis of one executable differs between calls"
