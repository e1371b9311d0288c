"""Which tests the selftest's baselines run: the comparison with the real plugin leaves golden cases to the
passthrough's own verdict, and never becomes an empty (= whole-layer) selection."""
from __future__ import annotations

from pjrt_cts.proxy.catalogue import DEFECTS, defect
from pjrt_cts.selftest import GOLDEN_CASE_PREFIXES, comparison_selection, present_layers, selection_for


def test_comparison_leaves_out_golden_cases_and_keeps_the_rest() -> None:
    layers = present_layers(None)
    union = selection_for(list(DEFECTS), layers, full=False)
    compared = comparison_selection(list(DEFECTS), layers, full=False)
    assert union is not None
    assert not [p for p in compared.patterns if p.startswith(GOLDEN_CASE_PREFIXES)]
    assert [p for p in union.patterns if not p.startswith(GOLDEN_CASE_PREFIXES)] == compared.patterns
    assert set(compared.layers) <= set(union.layers)
    # every kept layer still names its tests: an empty pattern list would run the whole layer
    assert all(any(p.split(".", 1)[0] == layer for p in compared.patterns) for layer in compared.layers)


def test_a_defect_caught_only_by_golden_cases_compares_abi_instead() -> None:
    only_golden = defect("nan_not_propagated_by_max")
    assert all(p.startswith(GOLDEN_CASE_PREFIXES) for p in only_golden.selection)
    compared = comparison_selection([only_golden], present_layers(None), full=False)
    assert compared.layers and compared.patterns
    assert not [p for p in compared.patterns if p.startswith(GOLDEN_CASE_PREFIXES)]
