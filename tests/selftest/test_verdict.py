"""Judging mutant runs against the passthrough baseline (no plugin needed)."""
from __future__ import annotations

from pathlib import Path

from pjrt_cts.proxy.catalogue import DEFECTS_BY_NAME, Defect
from pjrt_cts.selftest.suite_run import SuiteRunResult
from pjrt_cts.selftest.verdict import (
    CAUGHT, FALSE_ALARM, MISSED, RUN_ERROR, TOLERATED, judge, matches_any, mutation_score, proxy_differences,
)

DEFECT = Defect("demo", "transfer", "demo defect", ("transfer.dtypes.test_round_trip[*]",), ("transfer",))
CONTROL = Defect("control", "execute", "in tolerance", ("execute.programs.*",), ("execute",), expect="tolerated")


def _run(outcomes: dict[str, str], error: str | None = None) -> SuiteRunResult:
    return SuiteRunResult("x", Path("."), outcomes=outcomes, error=error)


def test_id_patterns_treat_brackets_literally() -> None:
    assert matches_any("transfer.dtypes.test_round_trip[f32]", ["transfer.dtypes.test_round_trip[*]"])
    assert not matches_any("transfer.dtypes.test_round_trip_x", ["transfer.dtypes.test_round_trip[*]"])
    assert matches_any("a.b.test_c[1]", ["a.b.test_?[1]"])


def test_new_failure_catches_the_defect() -> None:
    baseline = {"transfer.dtypes.test_round_trip[f32]": "PASS", "transfer.dtypes.test_other": "PASS"}
    verdict = judge(DEFECT, _run({"transfer.dtypes.test_round_trip[f32]": "FAIL", "transfer.dtypes.test_other": "PASS"}),
                    baseline, ["transfer"])
    assert verdict.status == CAUGHT and verdict.correct
    assert verdict.catching_tests == verdict.expected_hits == ["transfer.dtypes.test_round_trip[f32]"]


def test_failure_already_present_on_the_passthrough_does_not_count() -> None:
    baseline = {"transfer.dtypes.test_round_trip[f32]": "FAIL"}
    verdict = judge(DEFECT, _run({"transfer.dtypes.test_round_trip[f32]": "FAIL"}), baseline, ["transfer"])
    assert verdict.status == MISSED and not verdict.correct
    assert "ended FAIL" in verdict.explanation


def test_error_outcome_is_not_a_catch() -> None:
    verdict = judge(DEFECT, _run({"transfer.dtypes.test_round_trip[f32]": "ERROR"}),
                    {"transfer.dtypes.test_round_trip[f32]": "PASS"}, ["transfer"])
    assert verdict.status == MISSED


def test_crash_timeout_and_xpass_catch() -> None:
    for outcome in ("CRASH", "TIMEOUT", "XPASS"):
        verdict = judge(DEFECT, _run({"transfer.dtypes.test_round_trip[f32]": outcome}),
                        {"transfer.dtypes.test_round_trip[f32]": "PASS"}, ["transfer"])
        assert verdict.status == CAUGHT, outcome


def test_missing_layer_is_explained() -> None:
    verdict = judge(DEFECT, _run({"abi.x.test_y": "PASS"}), {}, ["abi"])
    assert verdict.status == MISSED
    assert "transfer have no suites" in verdict.explanation


def test_tolerated_defect_is_correct_only_without_alarms() -> None:
    quiet = judge(CONTROL, _run({"execute.programs.test_p[exp]": "PASS"}), {"execute.programs.test_p[exp]": "PASS"}, ["execute"])
    noisy = judge(CONTROL, _run({"execute.programs.test_p[exp]": "FAIL"}), {"execute.programs.test_p[exp]": "PASS"}, ["execute"])
    assert quiet.status == TOLERATED and quiet.correct
    assert noisy.status == FALSE_ALARM and not noisy.correct


def test_run_without_results_is_a_run_error() -> None:
    verdict = judge(DEFECT, _run({}, error="no results"), {}, ["transfer"])
    assert verdict.status == RUN_ERROR and not verdict.correct


def test_score_and_proxy_differences() -> None:
    caught = judge(DEFECT, _run({"transfer.dtypes.test_round_trip[f32]": "FAIL"}), {}, ["transfer"])
    missed = judge(DEFECT, _run({"transfer.dtypes.test_round_trip[f32]": "PASS"}), {}, ["transfer"])
    assert mutation_score([caught, missed]) == 0.5
    assert proxy_differences({"a": "PASS", "b": "FAIL"}, {"a": "PASS", "b": "PASS", "c": "PASS"}) == {
        "b": ("FAIL", "PASS"), "c": ("absent", "PASS")}


def test_catalogue_negative_control_exists() -> None:
    assert DEFECTS_BY_NAME["transcendental_2ulp"].expect == "tolerated"
    assert DEFECTS_BY_NAME["transcendental_64ulp"].expect == "caught"
