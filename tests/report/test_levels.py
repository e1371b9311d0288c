from __future__ import annotations

import copy

import pytest

from pjrt_cts.levels import (
    CORE,
    FULL,
    LEVELS,
    MULTI_DEVICE,
    evaluate_level,
    evaluate_levels,
    highest_level,
    level_by_name,
)
from pjrt_cts.model import LAYERS, Outcome

from .conftest import set_outcome


def test_levels_are_cumulative_and_use_known_layers() -> None:
    assert [level.name for level in LEVELS] == ["Core", "Full", "Multi-device"]
    assert set(CORE.layers) < set(FULL.layers) < set(MULTI_DEVICE.layers)
    for level in LEVELS:
        assert set(level.layers) <= set(LAYERS), level.name


def test_clean_run_reaches_every_level(clean) -> None:
    assert highest_level(clean) == "Multi-device"
    assert all(result.reached and not result.reasons for result in evaluate_levels(clean))


def test_a_failure_in_a_core_layer_blocks_every_level(clean) -> None:
    set_outcome(clean, "transfer.roundtrip.test_host_to_device_round_trips[f32]", Outcome.FAIL, "wrong bytes")
    results = evaluate_levels(clean)
    assert [r.reached for r in results] == [False, False, False]
    assert results[0].reasons == ["layer transfer has 1 bad result(s) (FAIL)"]
    assert results[1].reasons == ["level Core not reached"]  # not repeated at higher levels


def test_a_failure_in_multidevice_only_costs_multi_device(clean) -> None:
    set_outcome(clean, "multidevice.copy.test_copy_to_device_preserves_data[0-3]", Outcome.CRASH)
    assert highest_level(clean) == "Full"


def test_missing_layer_is_reported(clean) -> None:
    clean["tests"] = [t for t in clean["tests"] if t["layer"] != "dlpack"]
    result = evaluate_level(FULL, clean["tests"])
    assert not result.reached
    assert "layer dlpack did not run" in result.reasons
    assert highest_level(clean) == "Core"


def test_layer_that_is_only_not_supported_does_not_count(clean) -> None:
    for test in clean["tests"]:
        if test["layer"] == "events":
            test["outcome"] = "NOT_SUPPORTED"
    result = evaluate_level(FULL, clean["tests"])
    assert result.reasons == ["layer events has no passing test (all NOT_SUPPORTED)"]


def test_required_test_pattern_must_pass(clean) -> None:
    for test in clean["tests"]:
        if test["id"].startswith("execute.golden."):
            test["id"] = test["id"].replace("execute.golden.", "execute.other.")
    assert evaluate_level(CORE, clean["tests"]).reasons == ["no passing test matches execute.golden*"]


def test_xfail_is_a_waiver_not_a_blocker(clean) -> None:
    case = "execute.golden.test_case_matches_reference[control.while.bf16.r2]"
    assert next(t for t in clean["tests"] if t["id"] == case)["outcome"] == "XFAIL"
    core = evaluate_level(CORE, clean["tests"])
    assert core.reached and core.waivers == 1


def test_synthetic_run_reaches_no_level(synthetic) -> None:
    assert highest_level(synthetic) is None


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
    evaluate_levels(clean)
    assert clean == before
