"""Judging mutant runs by the verdict they produce over the passthrough baseline (synthetic records, no plugin).

The baseline is every mandatory id of every level PASSing (CONFORMANT at the top level) plus one optional
test; a mutant re-runs a few tests, and its verdict is pjrt_cts.judgment.verdict.judge_results over the overlay.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from pjrt_cts.judgment.levels import LEVELS, all_mandatory_ids
from pjrt_cts.judgment.outcomes import Outcome
from pjrt_cts.schema import Expected, TestRecord
from pjrt_cts.proxy.catalogue import DEFECTS, DEFECTS_BY_NAME, LEVEL_NAMES, TOLERATED, Defect
from pjrt_cts.selftest.suite_run import SuiteRunResult
from pjrt_cts.selftest.judging import (
    CAUGHT, FALSE_ALARM, MISSED, RUN_ERROR, TOLERATED_STATUS, Baseline, judge, matches_any, mutation_score,
    proxy_differences,
)

CORE, FULL, MULTI = LEVEL_NAMES
OPTIONAL = "transfer.dtypes.test_round_trip_is_bit_exact[f8e4m3b11fnuz]"  # in no level's list


def _own_mandatory(level_index: int) -> str:
    """A mandatory id of this level that no lower level lists."""
    lower = {test_id for level in LEVELS[:level_index] for test_id in level.mandatory_ids()}
    return next(test_id for test_id in LEVELS[level_index].mandatory_ids() if test_id not in lower)


CORE_TEST, FULL_TEST, MULTI_TEST = (_own_mandatory(index) for index in range(3))


def _record(test_id: str, outcome: str) -> TestRecord:
    # As the runner writes them (judgment.contradictions): a PASS has no message, an XFAIL its expectation entry.
    message = "" if outcome == "PASS" else f"{outcome} here"
    expected = Expected(pattern=test_id, outcome=Outcome.FAIL, cause=None, reason="known", url=None,
                        actual=Outcome.FAIL) if outcome == "XFAIL" else None
    return TestRecord(id=test_id, layer=test_id.split(".", 1)[0], outcome=Outcome(outcome), message=message,
                      expected=expected)


def _run(outcomes: dict[str, str], error: str | None = None) -> SuiteRunResult:
    return SuiteRunResult("x", Path("."), records={t: _record(t, o) for t, o in outcomes.items()}, error=error)


def _baseline(**changed: str) -> Baseline:
    outcomes = {test_id: "PASS" for test_id in all_mandatory_ids()}
    outcomes[OPTIONAL] = "PASS"
    for test_id, outcome in changed.items():
        outcomes[test_id] = outcome
    return Baseline.from_run(_run(outcomes))


BASELINE = _baseline()


def _defect(breaks: str = CORE, expect: str = "caught", catchers: tuple[str, ...] = (OPTIONAL,)) -> Defect:
    return Defect("demo", "transfer", "demo defect", catchers, ("transfer",), expect=expect, breaks=breaks)


def test_baseline_of_every_mandatory_test_passing_is_conformant_at_the_top_level() -> None:
    assert (BASELINE.verdict.verdict, BASELINE.verdict.level) == ("CONFORMANT", MULTI)


def test_a_new_failure_anywhere_is_non_conformant_and_caught() -> None:
    verdict = judge(_defect(), _run({OPTIONAL: "FAIL"}), BASELINE, ["transfer"])
    assert (verdict.status, verdict.verdict, verdict.level) == (CAUGHT, "NON_CONFORMANT", None)
    assert verdict.catching_tests == verdict.expected_hits == [OPTIONAL]
    assert verdict.produced == "NON_CONFORMANT"


def test_a_core_mandatory_test_not_supported_is_incomplete_and_caught() -> None:
    verdict = judge(_defect(catchers=(CORE_TEST,)), _run({CORE_TEST: "NOT_SUPPORTED"}), BASELINE, ["transfer"])
    assert (verdict.status, verdict.verdict) == (CAUGHT, "INCOMPLETE")
    assert verdict.catching_tests == [CORE_TEST]
    assert any(CORE_TEST in reason for reason in verdict.reasons)


@pytest.mark.parametrize("lost, breaks, status, level", [
    (FULL_TEST, FULL, CAUGHT, CORE),  # Full's contract lost: CONFORMANT only at Core
    (FULL_TEST, CORE, MISSED, CORE),  # ... which does not catch a defect that only had to cost Core
    (MULTI_TEST, MULTI, CAUGHT, FULL),
    (MULTI_TEST, FULL, MISSED, FULL),
])
def test_a_level_below_the_one_broken_is_a_catch(lost: str, breaks: str, status: str, level: str) -> None:
    verdict = judge(_defect(breaks=breaks), _run({lost: "NOT_SUPPORTED"}), BASELINE, ["transfer"])
    assert (verdict.status, verdict.verdict, verdict.level) == (status, "CONFORMANT", level)
    assert verdict.produced == f"CONFORMANT · {level}"
    assert verdict.reasons, "the reasons name why the next level was not reached"


@pytest.mark.parametrize("outcome, moves", [("XFAIL", True), ("SHARED_DEVIATION", False), ("WARNING", False)])
def test_mandatory_outcomes_meet_the_contract_as_the_levels_say(outcome: str, moves: bool) -> None:
    """A waived mandatory test no longer meets a level (pjrt_cts.judgment.levels); a deviation shared with XLA does."""
    assert BASELINE.moves_verdict(CORE_TEST, outcome) is moves
    verdict = judge(_defect(catchers=(CORE_TEST,)), _run({CORE_TEST: outcome}), BASELINE, ["transfer"])
    assert (verdict.status, verdict.verdict) == ((CAUGHT, "INCOMPLETE") if moves else (MISSED, "CONFORMANT"))


def test_an_optional_test_not_supported_is_missed() -> None:
    verdict = judge(_defect(), _run({OPTIONAL: "NOT_SUPPORTED"}), BASELINE, ["transfer"])
    assert (verdict.status, verdict.verdict, verdict.level) == (MISSED, "CONFORMANT", MULTI)
    assert verdict.catching_tests == []
    assert "stayed CONFORMANT · Multi-device" in verdict.explanation and "ended NOT_SUPPORTED" in verdict.explanation


def test_tests_the_mutant_did_not_rerun_keep_the_baseline_outcome() -> None:
    # The mutant ran one test (PASS); every mandatory id it did not run still counts as the baseline's PASS.
    verdict = judge(_defect(), _run({OPTIONAL: "PASS"}), BASELINE, ["transfer"])
    assert (verdict.status, verdict.level) == (MISSED, MULTI)


def test_skip_records_of_deselected_tests_do_not_replace_the_baseline() -> None:
    verdict = judge(_defect(), _run({CORE_TEST: "SKIP", OPTIONAL: "PASS"}), BASELINE, ["transfer"])
    assert (verdict.status, verdict.level) == (MISSED, MULTI)


def test_a_test_already_bad_on_the_passthrough_is_set_aside_on_both_sides() -> None:
    baseline = _baseline(**{OPTIONAL: "FAIL"})
    assert baseline.set_aside == [OPTIONAL]
    assert baseline.passthrough_verdict.verdict == "NON_CONFORMANT"  # the passthrough is not green
    assert (baseline.verdict.verdict, baseline.verdict.level) == ("CONFORMANT", MULTI)
    assert judge(_defect(), _run({OPTIONAL: "FAIL"}), baseline, ["transfer"]).status == MISSED
    assert judge(_defect(), _run({CORE_TEST: "FAIL"}), baseline, ["transfer"]).status == CAUGHT


def test_a_mandatory_test_bad_on_the_passthrough_makes_defects_unjudgeable() -> None:
    baseline = _baseline(**{CORE_TEST: "FAIL"})
    verdict = judge(_defect(), _run({OPTIONAL: "FAIL"}), baseline, ["transfer"])
    assert verdict.status == RUN_ERROR and not verdict.correct
    assert "passthrough baseline (less 1 test(s) bad on it) is INCOMPLETE" in verdict.explanation


def test_a_baseline_below_the_level_broken_cannot_judge_it() -> None:
    baseline = _baseline(**{MULTI_TEST: "NOT_SUPPORTED"})  # the passthrough reaches Full only
    assert judge(_defect(breaks=MULTI), _run({OPTIONAL: "FAIL"}), baseline, ["transfer"]).status == RUN_ERROR
    assert judge(_defect(breaks=FULL), _run({FULL_TEST: "NOT_SUPPORTED"}), baseline, ["transfer"]).status == CAUGHT


def test_error_outcomes_catch_but_say_the_suite_broke() -> None:
    verdict = judge(_defect(), _run({OPTIONAL: "ERROR"}), BASELINE, ["transfer"])
    assert verdict.status == CAUGHT and "suite itself broke" in verdict.explanation


def test_a_catch_by_other_tests_than_the_catalogue_names_is_flagged() -> None:
    verdict = judge(_defect(catchers=("transfer.other.*",)), _run({OPTIONAL: "CRASH"}), BASELINE, ["transfer"])
    assert verdict.status == CAUGHT and verdict.expected_hits == []
    assert "update the catalogue" in verdict.explanation


@pytest.mark.parametrize("outcomes, status", [
    ({OPTIONAL: "PASS"}, TOLERATED_STATUS),
    ({OPTIONAL: "NOT_SUPPORTED"}, TOLERATED_STATUS),  # an optional feature may be missing
    ({OPTIONAL: "FAIL"}, FALSE_ALARM),
    ({FULL_TEST: "NOT_SUPPORTED"}, FALSE_ALARM),  # CONFORMANT, but at a lower level than the passthrough
])
def test_a_negative_control_must_keep_the_baseline_verdict_and_level(outcomes: dict[str, str], status: str) -> None:
    verdict = judge(_defect(expect=TOLERATED), _run(outcomes), BASELINE, ["transfer"])
    assert verdict.status == status
    assert verdict.correct == (status == TOLERATED_STATUS)


def test_run_without_results_is_a_run_error() -> None:
    verdict = judge(_defect(), _run({}, error="no results"), BASELINE, ["transfer"])
    assert verdict.status == RUN_ERROR and not verdict.correct


def test_missing_layer_is_explained() -> None:
    verdict = judge(_defect(), _run({"abi.x.test_y": "PASS"}), BASELINE, ["abi"])
    assert verdict.status == MISSED
    assert "transfer have no suites" in verdict.explanation


def test_id_patterns_treat_brackets_literally() -> None:
    assert matches_any("transfer.dtypes.test_round_trip[f32]", ["transfer.dtypes.test_round_trip[*]"])
    assert not matches_any("transfer.dtypes.test_round_trip_x", ["transfer.dtypes.test_round_trip[*]"])
    assert matches_any("a.b.test_c[1]", ["a.b.test_?[1]"])


def test_score_and_proxy_differences() -> None:
    caught = judge(_defect(), _run({OPTIONAL: "FAIL"}), BASELINE, ["transfer"])
    missed = judge(_defect(), _run({OPTIONAL: "PASS"}), BASELINE, ["transfer"])
    assert mutation_score([caught, missed]) == 0.5
    assert proxy_differences({"a": "PASS", "b": "FAIL"}, {"a": "PASS", "b": "PASS", "c": "PASS"}) == {
        "b": ("FAIL", "PASS"), "c": ("absent", "PASS")}


def test_catalogue_negative_controls_and_levels() -> None:
    assert DEFECTS_BY_NAME["transcendental_2ulp"].expect == TOLERATED
    assert DEFECTS_BY_NAME["transcendental_64ulp"].expect == "caught"
    assert DEFECTS_BY_NAME["multi_device_execute_unimplemented"].breaks == MULTI
    assert DEFECTS_BY_NAME["serialize_unimplemented"].breaks == FULL
    assert all(defect.breaks in LEVEL_NAMES for defect in DEFECTS)


def test_table_prints_status_verdict_and_level_per_defect() -> None:
    from pjrt_cts.selftest import SelftestOptions, SelftestReport
    from pjrt_cts.selftest.table import render_table

    hatch = Defect("hatch_demo", "transfer", "demo", (OPTIONAL,), ("transfer",), breaks=FULL, escape_hatch=True)
    verdicts = [judge(_defect(), _run({OPTIONAL: "FAIL"}), BASELINE, ["transfer"]),
                judge(hatch, _run({OPTIONAL: "NOT_SUPPORTED"}), BASELINE, ["transfer"])]
    passthrough = _run({test_id: "PASS" for test_id in BASELINE.records})
    report = SelftestReport(verdicts, passthrough, BASELINE, None, {}, 1.0,
                            SelftestOptions(target=Path("x.so"), out_dir=Path(".")), ["transfer"])
    lines = render_table(report).splitlines()
    caught = next(line for line in lines if line.startswith("demo "))
    missed = next(line for line in lines if line.startswith("hatch_demo "))
    assert "CAUGHT" in caught and "NON_CONFORMANT" in caught and OPTIONAL in caught
    assert "MISSED !" in missed and "CONFORMANT · Multi-device" in missed and "Full" in missed
    assert any(line.startswith("mutation score: 1/2 = 50.0%") for line in lines)
    assert "escape hatches caught: 0/1 (not caught: hatch_demo)" in render_table(report)
    assert "passthrough proxy: green" in render_table(report)


def test_the_gate_fails_on_a_low_score_an_escape_hatch_or_a_runner_hatch_and_says_why() -> None:
    """What `pjrt-cts selftest` exits 1 for (the mutation gate CI runs after pytest)."""
    from pjrt_cts.selftest import SelftestOptions, SelftestReport
    from pjrt_cts.selftest.run_hatches import HatchResult

    hatch = Defect("hatch_demo", "transfer", "demo", (OPTIONAL,), ("transfer",), breaks=FULL, escape_hatch=True)
    caught = judge(_defect(), _run({OPTIONAL: "FAIL"}), BASELINE, ["transfer"])
    hatch_caught = judge(hatch, _run({OPTIONAL: "FAIL"}), BASELINE, ["transfer"])
    hatch_missed = judge(hatch, _run({OPTIONAL: "NOT_SUPPORTED"}), BASELINE, ["transfer"])
    passthrough = _run({test_id: "PASS" for test_id in BASELINE.records})
    runner_hatch = HatchResult("resume_over_another_binary", "demo", True, "exit 2")

    def report(verdicts: list, hatches: list[HatchResult]) -> SelftestReport:
        return SelftestReport(verdicts, passthrough, BASELINE, None, {}, 1.0,
                              SelftestOptions(target=Path("x.so"), out_dir=Path(".")), ["transfer"], hatches)

    assert report([caught, hatch_caught], [runner_hatch]).problems(0.95) == []
    problems = report([caught, hatch_missed], [runner_hatch]).problems(0.4)
    assert problems == ["escape-hatch defect(s) not caught: hatch_demo"]
    assert report([caught, hatch_missed], [runner_hatch]).problems(0.95)[0] == "mutation score 50.0% < 95%"
    uncaught = HatchResult("mandatory_only_selection", "demo", False, "CONFORMANT")
    assert report([caught], [runner_hatch, uncaught]).problems(0.95) == [
        "the runner's escape hatch mandatory_only_selection is not caught (CONFORMANT)"]
    broken = SelftestReport([caught], _run({}, error="no results"), BASELINE, None, {}, 1.0,
                            SelftestOptions(target=Path("x.so"), out_dir=Path(".")), ["transfer"], [runner_hatch])
    assert broken.problems(0.95) == ["the passthrough baseline produced no results: no results"]


def test_a_mandatory_only_selection_is_caught_as_a_runner_escape_hatch(tmp_path) -> None:
    """run_hatches.mandatory_only_selection judges the passthrough baseline's own results.json: a --id selection
    holding the mandatory tests must read INCOMPLETE and fail the gate (issue 28)."""
    import json

    from pjrt_cts.judgment.levels import all_mandatory_ids
    from pjrt_cts.judgment.results import build_results
    from pjrt_cts.selftest.run_hatches import mandatory_only_selection

    def record(test_id: str, outcome: str, **details: object) -> dict:
        return {"id": test_id, "nodeid": test_id, "layer": test_id.split(".")[0], "outcome": outcome,
                "duration": 0.0, "message": "not selected by --id" if outcome == "SKIP" else "",
                "details": dict(details), "tags": [], "expected": None, "repro": ""}

    tests = [record(test_id, "PASS") for test_id in all_mandatory_ids()]
    tests.append(record("execute.golden_cases.test_case_matches_reference[spec.add.f64]", "SKIP", deselected_by="--id"))
    results = build_results(tool_version="0", started_at="2026-01-01T00:00:00+00:00",
                            finished_at="2026-01-01T00:00:01+00:00", wall_seconds=1.0, command=[], profile="cpu",
                            plugin={}, environment={}, expectations={}, compatibility={},
                            tests=[TestRecord.from_json(test) for test in tests]).to_json()
    (tmp_path / "results.json").write_text(json.dumps(results))
    hatch = mandatory_only_selection(tmp_path)
    assert hatch.caught and "partial selection" in hatch.evidence and "gate failed" in hatch.evidence
    for test in results["tests"]:  # the same records without the deselection: the hatch would not be caught
        test["outcome"] = "PASS"
    (tmp_path / "results.json").write_text(json.dumps(results))
    assert not mandatory_only_selection(tmp_path).caught


def test_a_baseline_run_is_not_cut_at_the_mutant_runs_wall_limit(tmp_path: Path) -> None:
    from pjrt_cts.selftest.suite_run import BASELINE_WALL_LIMIT, SuiteJob, SuiteRunner, SuiteSelection

    runner = SuiteRunner(wall_limit=240.0)
    mutant = SuiteJob("m", tmp_path, {}, tmp_path, SuiteSelection([], []), test_timeout=10.0)
    baseline = SuiteJob("b", tmp_path, {}, tmp_path, SuiteSelection([], []), baseline=True)
    assert runner.wall_limit_for(mutant) == 240.0
    assert runner.wall_limit_for(baseline) == BASELINE_WALL_LIMIT > 240.0


def test_a_mutant_is_judged_by_its_own_plugin_card() -> None:
    """A mutant that drops an extension offers none of its functions: the mandatory entries that call them do not
    bind its run (contract version 5), whatever the passthrough's card offered."""
    conditional = "extensions.structure.test_functions_within_struct_size_are_not_null[LAYOUTS]"
    assert conditional in all_mandatory_ids()
    card = {"num_slots": 138, "missing_slots": [], "extensions": [], "extension_functions": ["LAYOUTS.MemoryLayout_Destroy"]}
    baseline_run = _run({**{test_id: "PASS" for test_id in all_mandatory_ids()}, OPTIONAL: "PASS"})
    baseline_run.plugin = card
    baseline = Baseline.from_run(baseline_run)
    dropped = _run({conditional: "NOT_SUPPORTED"})
    dropped.plugin = {**card, "extension_functions": []}
    tolerated = judge(_defect(expect=TOLERATED), dropped, baseline, ["extensions"])
    assert (tolerated.status, tolerated.verdict, tolerated.level) == (TOLERATED_STATUS, "CONFORMANT", MULTI)
    dropped.plugin = card  # still offered: the mandatory entry binds, and NOT_SUPPORTED costs Core
    assert judge(_defect(expect=TOLERATED), dropped, baseline, ["extensions"]).status == FALSE_ALARM
