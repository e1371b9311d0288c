from __future__ import annotations

import copy
from pathlib import Path

import pytest

from pjrt_cts.schema import Results
from pjrt_cts.judgment.levels import (
    CORE,
    FULL,
    LEVELS,
    MULTI_DEVICE,
    evaluate_level,
    evaluate_levels,
    highest_level,
    level_by_name,
)
from pjrt_cts.judgment.outcomes import LAYERS, Outcome

from .conftest import record_of, set_outcome


def test_levels_are_cumulative_and_use_known_layers() -> None:
    assert [level.name for level in LEVELS] == ["Core", "Full", "Multi-device"]
    assert set(CORE.layers) < set(FULL.layers) < set(MULTI_DEVICE.layers)
    for level in LEVELS:
        assert set(level.layers) <= set(LAYERS), level.name


def test_every_layer_is_named_once_and_is_a_suites_folder() -> None:
    assert len(LAYERS) == len(set(LAYERS))  # a layer listed twice would run (and count) its tests twice
    suites = Path(__file__).resolve().parents[2] / "suites"
    assert set(LAYERS) == {path.name for path in suites.iterdir() if (path / "conftest.py").exists()
                                            or any(path.glob("test_*.py"))}


def test_clean_run_reaches_every_level(clean) -> None:
    assert highest_level(Results.from_json(clean)) == "Multi-device"
    assert all(result.reached and not result.reasons for result in evaluate_levels(Results.from_json(clean)))


def _first_mandatory(level, prefix: str) -> str:
    return next(test_id for test_id in level.mandatory_ids() if test_id.startswith(prefix))


def test_a_failure_in_a_core_layer_blocks_every_level(clean) -> None:
    set_outcome(clean, "transfer.roundtrip.test_host_to_device_round_trips[f32]", Outcome.FAIL, "wrong bytes")
    results = evaluate_levels(Results.from_json(clean))
    assert [r.reached for r in results] == [False, False, False]
    assert len(results[0].reasons) == 1 and results[0].reasons[0].startswith("1 bad result(s) (FAIL) in the layers")
    assert results[1].reasons[0] == "level Core not reached"


def test_a_failure_in_multidevice_only_costs_multi_device(clean) -> None:
    set_outcome(clean, "multidevice.copy.test_copy_to_device_preserves_data[0-3]", Outcome.CRASH)
    assert highest_level(Results.from_json(clean)) == "Full"


def test_missing_mandatory_test_blocks_the_level(clean) -> None:
    missing = _first_mandatory(FULL, "dlpack.")
    clean["tests"] = [t for t in clean["tests"] if t["id"] != missing]
    result = evaluate_level(FULL, Results.from_json(clean).tests)
    assert not result.reached
    assert result.reasons == [f"1 mandatory test(s) did not run, e.g. {missing}"]
    assert highest_level(Results.from_json(clean)) == "Core"


@pytest.mark.parametrize("outcome", [Outcome.NOT_SUPPORTED, Outcome.SKIP])
def test_mandatory_feature_is_never_waived_by_not_supported_or_skip(clean, outcome: Outcome) -> None:
    """A plugin answering UNIMPLEMENTED for dot_general does not reach Core: its dot cases are mandatory."""
    dot_case = "execute.golden_cases.test_case_matches_reference[dot.matmul.f32]"
    assert dot_case in CORE.mandatory_ids()
    set_outcome(clean, dot_case, outcome, "PJRT_Client_Compile: UNIMPLEMENTED: dot_general")
    result = evaluate_level(CORE, Results.from_json(clean).tests)
    assert not result.reached
    assert result.reasons == [f"1 mandatory test(s) {outcome.value}, e.g. {dot_case}: "
                              "PJRT_Client_Compile: UNIMPLEMENTED: dot_general"]
    assert highest_level(Results.from_json(clean)) is None


def test_not_supported_outside_the_contract_does_not_block(clean) -> None:
    optional = "executable.cost_analysis.test_cost_analysis_is_repeatable"
    assert optional not in set(MULTI_DEVICE.mandatory_ids()) | set(FULL.mandatory_ids()) | set(CORE.mandatory_ids())
    clean["tests"].append({"id": optional, "layer": "executable", "outcome": "NOT_SUPPORTED", "message": "UNIMPLEMENTED"})
    assert highest_level(Results.from_json(clean)) == "Multi-device"


def test_xfail_is_a_waiver_not_a_blocker(clean) -> None:
    case = "execute.golden.test_case_matches_reference[control.while.bf16.r2]"
    assert next(t for t in clean["tests"] if t["id"] == case)["outcome"] == "XFAIL"
    core = evaluate_level(CORE, Results.from_json(clean).tests)
    assert core.reached and [w["id"] for w in core.to_dict()["waivers"]] == [case]


def test_mandatory_xfail_does_not_meet_the_contract(clean) -> None:
    """A waiver never satisfies a mandatory test: an expectations file cannot lift a plugin to a level."""
    mandatory = "execute.golden_cases.test_case_matches_reference[dot.matmul.f32]"
    assert mandatory in CORE.mandatory_ids()
    record = set_outcome(clean, mandatory, Outcome.XFAIL, "differs from the reference")
    record_of(record, mandatory)["expected"] = {"outcome": "FAIL", "actual": "FAIL", "reason": "wrong sums"}
    core = evaluate_level(CORE, Results.from_json(clean).tests)
    assert not core.reached
    assert core.reasons == [f"1 mandatory test(s) XFAIL (waived: a waiver never satisfies a mandatory test), "
                            f"e.g. {mandatory}: differs from the reference"]
    assert {"id": mandatory, "actual": "FAIL", "reason": "wrong sums", "url": None,
            "defect": None} in core.to_dict()["waivers"]
    assert highest_level(Results.from_json(clean)) is None


def test_mandatory_shared_deviation_meets_the_contract(clean) -> None:
    """XLA's own answer where XLA deviates from the spec: the semantics JAX users get, so it meets a level."""
    mandatory = "execute.golden_cases.test_case_matches_reference[dot.matmul.f32]"
    set_outcome(clean, mandatory, Outcome.SHARED_DEVIATION, "returns XLA's value")
    assert evaluate_level(CORE, Results.from_json(clean).tests).reached
    assert highest_level(Results.from_json(clean)) == "Multi-device"


def test_every_level_has_a_frozen_non_empty_contract() -> None:
    for level in LEVELS:
        ids = level.mandatory_ids()
        assert ids and len(ids) == len(set(ids)), level.name
        assert {test_id.split(".", 1)[0] for test_id in ids} <= set(level.layers), level.name
    core = set(CORE.mandatory_ids())
    for family in ("dot", "conv", "gather", "scatter", "reduce", "control", "elementwise"):
        assert any(f"[{family}." in test_id and ".f32" in test_id for test_id in core), family
    assert "client.client_create.test_client_creates_with_profile_options" in core


def test_synthetic_run_reaches_no_level(synthetic) -> None:
    assert highest_level(Results.from_json(synthetic)) is None


@pytest.mark.parametrize("spelling", ["Full", "full", "FULL"])
def test_level_by_name_is_case_insensitive(spelling: str) -> None:
    assert level_by_name(spelling) is FULL


@pytest.mark.parametrize("spelling", ["multi-device", "multidevice", "Multi_Device"])
def test_multi_device_spellings(spelling: str) -> None:
    assert level_by_name(spelling) is MULTI_DEVICE


def test_unknown_level_name() -> None:
    with pytest.raises(KeyError, match="unknown conformance level 'Gold'"):
        level_by_name("Gold")


def test_evaluate_levels_does_not_mutate(clean) -> None:
    before = copy.deepcopy(clean)
    evaluate_levels(Results.from_json(clean))
    assert clean == before


# -- conditional entries (contract version 5): what frameworks call binds where the plugin offers it -----------------

CONTEXT_TEST = "execute.execute_context.test_create_destroy_pairs_do_not_leak"
LAYOUTS_TEST = "extensions.layouts.test_executable_layout_counts_and_ranks_match_the_program"


def _card(missing_slots=(), extensions=("LAYOUTS",), functions=None) -> dict:
    card = {"num_slots": 138, "missing_slots": [f"PJRT_{name}" for name in missing_slots],
            "extensions": [{"type": 4, "name": name, "struct_size": 80} for name in extensions]}
    if functions is not None:
        card["extension_functions"] = list(functions)
    return card


def test_a_conditional_entry_binds_only_a_plugin_that_offers_its_functions() -> None:
    entries = {entry.id: entry for entry in CORE.mandatory_entries()}
    context, layouts = entries[CONTEXT_TEST], entries[LAYOUTS_TEST]
    assert context.when is not None and "ExecuteContext_Create" in context.when.functions
    assert context.binds(_card()) and not context.binds(_card(missing_slots=["ExecuteContext_Create"]))
    offered = ["LAYOUTS.Executable_GetParameterLayouts", "LAYOUTS.Executable_GetOutputLayouts",
               "LAYOUTS.MemoryLayout_Serialize", "LAYOUTS.MemoryLayout_Destroy"]
    assert layouts.binds(_card(functions=offered))
    assert not layouts.binds(_card(functions=offered[1:]))  # an older LAYOUTS version ends before the function
    assert not layouts.binds(_card(extensions=(), functions=[]))  # not advertised at all
    assert layouts.binds(_card())  # a card from before extension functions were recorded: the extension decides
    assert context.binds(None) and layouts.binds({})  # nothing known of the plugin: every entry binds


def test_an_unconditional_entry_binds_every_plugin() -> None:
    entry = next(entry for entry in CORE.mandatory_entries() if entry.when is None)
    assert entry.binds(_card(missing_slots=["ExecuteContext_Create"], extensions=()))


def test_a_conditional_test_not_supported_for_a_missing_slot_keeps_the_level(clean) -> None:
    set_outcome(clean, CONTEXT_TEST, Outcome.NOT_SUPPORTED, "requires PJRT_ExecuteContext_Create: missing slot")
    clean["plugin"] = _card(missing_slots=["ExecuteContext_Create"])
    assert evaluate_level(CORE, Results.from_json(clean).tests, clean["plugin"]).reached
    assert highest_level(Results.from_json(clean)) == "Multi-device"


def test_a_conditional_test_not_supported_where_the_slot_exists_costs_the_level(clean) -> None:
    set_outcome(clean, CONTEXT_TEST, Outcome.NOT_SUPPORTED, "UNIMPLEMENTED: no contexts")
    clean["plugin"] = _card()
    result = evaluate_level(CORE, Results.from_json(clean).tests, clean["plugin"])
    assert not result.reached and f"e.g. {CONTEXT_TEST}" in result.reasons[0]
    assert highest_level(Results.from_json(clean)) is None


# ---- the AOT tier (issue 52): outside the chain, the level of a run without a device -----------------------------

def _device_less(clean) -> dict:
    """The clean run as a plugin without its device gives it: the client cannot be created (the profile's no-device
    code), so every test of a layer that needs a client is NOT_SUPPORTED; abi, versioning and aot ran."""
    from pjrt_cts.judgment.levels import AOT
    from pjrt_cts.judgment.verdict import CLIENT_CREATION_TEST

    from .conftest import recount, restate

    if not any(test["id"] == CLIENT_CREATION_TEST for test in clean["tests"]):
        clean["tests"].append({"id": CLIENT_CREATION_TEST, "nodeid": "", "layer": "client", "outcome": "PASS",
                               "duration": 0.001, "message": "", "details": {}, "tags": [], "expected": None, "repro": ""})
    for test in clean["tests"]:
        if test["layer"] not in AOT.layers:
            restate(test, Outcome.NOT_SUPPORTED, "no device: FAILED_PRECONDITION: No visible GPU devices.")
    return recount(clean)


def test_the_aot_tier_stands_apart_from_the_device_levels(clean) -> None:
    from pjrt_cts.judgment.levels import AOT, ALL_LEVELS, evaluate_aot, levels_up_to

    assert ALL_LEVELS == (AOT, *LEVELS) and AOT.min_devices == 0 and levels_up_to("AOT") == (AOT,)
    assert set(AOT.layers) <= set(LAYERS) and "aot" in AOT.layers
    set_outcome(clean, "transfer.roundtrip.test_host_to_device_round_trips[f32]", Outcome.FAIL, "wrong bytes")
    results = Results.from_json(clean)
    assert evaluate_aot(results).reached and highest_level(results) is None  # a device run's level is a device level
    aot_test = next(test_id for test_id in AOT.mandatory_ids() if test_id.startswith("aot.golden_programs."))
    set_outcome(clean, aot_test, Outcome.FAIL, "PJRT_Compile: INTERNAL")
    assert not evaluate_aot(Results.from_json(clean)).reached


def test_a_device_less_run_is_conformant_at_level_aot(clean) -> None:
    from pjrt_cts.judgment.verdict import CONFORMANT, INCOMPLETE, judge_results

    clean = _device_less(clean)
    judged = judge_results(Results.from_json(clean))
    assert judged.verdict == CONFORMANT and judged.level == "AOT", judged.reasons
    assert judged.line().startswith("CONFORMANT · level AOT")
    clean["tests"] = [t for t in clean["tests"] if t["id"] != "aot.topology.test_topologies_are_created_without_a_device"]
    judged = judge_results(Results.from_json(clean))
    assert judged.verdict == INCOMPLETE and judged.reasons[0].startswith("level AOT not reached: 1 mandatory test(s)")
    assert judged.reasons[1].startswith("the plugin could not be exercised: no device")
