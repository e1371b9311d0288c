from __future__ import annotations

import copy
import json
from pathlib import Path

from pjrt_cts.schema import Results
from pjrt_cts.cli.main import main
from pjrt_cts.judgment.outcomes import Outcome
from pjrt_cts.report.diff import ChangeKind
from pjrt_cts.judgment.verdict import judge_results
from pjrt_cts.report.gate import evaluate_gate, gate_markdown, slim_baseline

from .conftest import bundled_expectations_sha256, record_of, restate, set_outcome, write_json

API_TEST = "abi.table.test_api_version_is_reported"


def test_synthetic_regression_fails_the_gate(clean) -> None:
    new = set_outcome(copy.deepcopy(clean), API_TEST, Outcome.FAIL, "api_version reported as 0.0")
    gate = evaluate_gate(Results.from_json(new), baseline=Results.from_json(clean))
    assert not gate.passed and gate.exit_code == 1
    assert gate.failures[0] == "1 regression(s) against the baseline (1 new failure)"
    markdown = gate_markdown(gate)
    assert "❌ PJRT conformance gate: failed" in markdown
    assert "### Regressions (1)" in markdown
    assert f"`{API_TEST}`" in markdown and "api_version reported as 0.0" in markdown


def test_improvement_passes_the_gate(synthetic) -> None:
    new = set_outcome(copy.deepcopy(synthetic), "compile.program.test_empty_compile_options_are_rejected", Outcome.PASS)
    gate = evaluate_gate(Results.from_json(new), baseline=Results.from_json(synthetic))
    assert gate.passed and gate.exit_code == 0, gate.failures
    markdown = gate_markdown(gate)
    assert "✅ PJRT conformance gate: passed" in markdown
    assert "### Fixes (1)" in markdown and "### Regressions" not in markdown


def test_known_failures_in_the_baseline_do_not_fail_the_gate(synthetic) -> None:
    assert evaluate_gate(Results.from_json(copy.deepcopy(synthetic)), baseline=Results.from_json(synthetic)).passed


def test_missing_layers_fail_the_level_check(clean) -> None:
    partial = copy.deepcopy(clean)
    partial["tests"] = [t for t in partial["tests"] if t["layer"] not in ("events", "dlpack")]
    gate = evaluate_gate(Results.from_json(partial), level="Full")
    assert not gate.passed
    assert any(f.startswith("required level Full not reached") and "mandatory test(s) did not run" in f
               for f in gate.failures)
    assert evaluate_gate(Results.from_json(partial), level="Core").passed


def test_without_baseline_the_default_level_is_core(clean) -> None:
    no_client = copy.deepcopy(clean)
    for test in no_client["tests"]:
        if test["layer"] not in ("abi",):
            restate(test, Outcome.NOT_SUPPORTED, "PJRT_Client_Create failed: no device")
    gate = evaluate_gate(Results.from_json(no_client))
    assert not gate.passed
    assert any(f.startswith("the run is INCOMPLETE") for f in gate.failures)
    assert any(f.startswith("required level Core not reached") for f in gate.failures)


def test_waiver_budget(clean) -> None:
    waived = [t["id"] for t in clean["tests"] if t["outcome"] == "XFAIL"]
    assert waived, "the synthetic run has waivers"
    assert evaluate_gate(Results.from_json(clean)).passed
    gate = evaluate_gate(Results.from_json(clean), max_waivers=0)
    assert not gate.passed and gate.failures[0].startswith(f"the run needs {len(waived)} waiver(s) (XFAIL), the budget is 0")
    assert evaluate_gate(Results.from_json(clean), max_waivers=len(waived)).passed


def test_missing_passing_test_is_a_regression(clean) -> None:
    new = copy.deepcopy(clean)
    new["tests"] = [t for t in new["tests"] if t["id"] != API_TEST]
    gate = evaluate_gate(Results.from_json(new), baseline=Results.from_json(clean))
    assert gate.failures == ["1 regression(s) against the baseline (1 coverage loss)"]


def test_pass_to_not_supported_is_a_regression(clean) -> None:
    new = set_outcome(copy.deepcopy(clean), API_TEST, Outcome.NOT_SUPPORTED, "UNIMPLEMENTED")
    assert not evaluate_gate(Results.from_json(new), baseline=Results.from_json(clean)).passed


def test_level_drop_fails_even_without_a_per_test_regression(clean) -> None:
    baseline = copy.deepcopy(clean)
    new = copy.deepcopy(clean)
    for test in new["tests"]:
        if test["layer"] == "multidevice":  # now NOT_SUPPORTED (too few devices), recorded so in the baseline too
            restate(test, Outcome.NOT_SUPPORTED, "too few devices")
    for test in baseline["tests"]:
        if test["layer"] == "multidevice":
            restate(test, Outcome.NOT_SUPPORTED, "too few devices")
    assert evaluate_gate(Results.from_json(new), baseline=Results.from_json(baseline)).passed  # same level, nothing lost
    gate = evaluate_gate(Results.from_json(new), baseline=Results.from_json(clean))
    assert "the highest level contract met dropped from Multi-device (baseline) to Full" in gate.failures


def test_without_baseline_any_bad_outcome_fails(synthetic, clean) -> None:
    assert evaluate_gate(Results.from_json(clean)).passed
    gate = evaluate_gate(Results.from_json(synthetic))
    assert gate.failures[0] == "8 test(s) with a bad outcome and no baseline to waive them"
    assert gate.failures[-1].startswith("required level Core not reached")


def test_slim_baseline_gates_like_the_full_one(synthetic) -> None:
    slim = slim_baseline(Results.from_json(synthetic))
    assert set(slim["tests"][0]) == {"id", "layer", "outcome"}
    new = set_outcome(copy.deepcopy(synthetic), API_TEST, Outcome.CRASH)
    assert evaluate_gate(Results.from_json(new), Results.from_json(slim)).failures == evaluate_gate(Results.from_json(new), Results.from_json(synthetic)).failures


def test_cli_gate_exit_codes_and_summary(tmp_path: Path, clean, capsys) -> None:
    baseline = write_json(tmp_path / "baseline.json", clean)
    good = write_json(tmp_path / "good.json", clean)
    bad = write_json(tmp_path / "bad.json", set_outcome(copy.deepcopy(clean), API_TEST, Outcome.FAIL, "boom"))
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    assert main(["gate", str(good), "--baseline", str(baseline), "--level", "Full", "--summary", str(summary)]) == 0
    assert main(["gate", str(bad), "--baseline", str(baseline), "--summary", str(summary),
                 "--json", str(tmp_path / "gate.json")]) == 1
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("earlier step\n")  # appended, as $GITHUB_STEP_SUMMARY expects
    assert text.count("## ✅") == 1 and text.count("## ❌") == 1
    assert json.loads((tmp_path / "gate.json").read_text())["passed"] is False
    assert "boom" in capsys.readouterr().out


def test_cli_gate_usage_errors(tmp_path: Path, clean, capsys) -> None:
    results = write_json(tmp_path / "r.json", clean)
    assert main(["gate", str(results), "--level", "Platinum"]) == 2
    assert main(["gate", str(tmp_path / "missing.json")]) == 2
    (tmp_path / "old.json").write_text(json.dumps({"schema_version": 99, "tests": []}))
    assert main(["gate", str(results), "--baseline", str(tmp_path / "old.json")]) == 2
    assert "schema_version 99" in capsys.readouterr().err


def test_cli_write_baseline(tmp_path: Path, clean) -> None:
    results = write_json(tmp_path / "r.json", clean)
    baseline = tmp_path / "ci" / "baseline.json"
    assert main(["gate", str(results), "--write-baseline", str(baseline)]) == 0
    assert main(["gate", str(results), "--baseline", str(baseline)]) == 0
    assert len(json.loads(baseline.read_text())["tests"]) == len(clean["tests"])


TANH = "execute.golden.test_case_matches_reference[elementwise.tanh.bf16.r2]"
WHILE = "execute.golden.test_case_matches_reference[control.while.bf16.r2]"  # XFAIL in the synthetic run


def _waive(results: dict, test_id: str, defect: str, actual: str = "FAIL") -> dict:
    record = set_outcome(results, test_id, Outcome.XFAIL, f"{actual}: an instance of {defect}")
    test = next(t for t in record["tests"] if t["id"] == test_id)
    test["defect"] = defect
    test["expected"] = {"outcome": "XFAIL", "actual": actual, "reason": f"waived: {defect}", "defect": defect}
    return results


def test_headline_speaks_in_defects(clean) -> None:
    gate = evaluate_gate(Results.from_json(clean))
    assert gate.passed
    assert gate.headline == ("gate: PASS · CONFORMANT · level Multi-device · 1 waived defect (1 test) · hides 1 waived "
                             "test (budget: the cpu profile's expectations file)")
    assert gate.headline.startswith("gate: PASS · " + gate.judged.line() + " · hides 1 waived test")
    assert f"**{gate.headline}**" in gate_markdown(gate)
    assert gate.to_dict()["headline"] == gate.headline
    failing = evaluate_gate(Results.from_json(clean), max_waivers=0)
    assert failing.headline.startswith("gate: FAIL · CONFORMANT · level Multi-device · 1 waived defect")


def test_fail_to_xfail_is_newly_waived_never_a_fix(synthetic) -> None:
    new = _waive(copy.deepcopy(synthetic), TANH, "subnormals-flushed")
    gate = evaluate_gate(Results.from_json(new), baseline=Results.from_json(synthetic))
    assert gate.passed, gate.failures  # not a regression either
    [change] = gate.diff.changes
    assert (change.test_id, change.kind) == (TANH, ChangeKind.NEWLY_WAIVED)
    markdown = gate_markdown(gate)
    assert "### Newly waived (1)" in markdown and "### Fixes" not in markdown
    assert markdown.index("### Newly waived") < markdown.index("Level contracts")
    table = " ".join(markdown.split())  # columns are padded
    assert "| waived tests (XFAIL) | 1 | 2 | +1 |" in table
    assert "| waived defects | 1 | 2 | +1 |" in table
    assert "<summary>Defects (1 introduced" in markdown  # the defects of both runs, compared
    assert "| `subnormals-flushed` | introduced |" in table


def test_pass_to_xfail_is_newly_waived(clean) -> None:
    new = _waive(copy.deepcopy(clean), API_TEST, "unclassified")
    gate = evaluate_gate(Results.from_json(new), baseline=Results.from_json(clean))
    assert [c.kind for c in gate.diff.changes] == [ChangeKind.NEWLY_WAIVED]
    assert "### Newly waived (1)" in gate_markdown(gate)


def test_waived_defect_budget(clean) -> None:
    """--max-waived-defects counts distinct defects, not tests: many tests of one defect cost one."""
    two = _waive(copy.deepcopy(clean), API_TEST, "subnormals-flushed")
    _waive(two, WHILE, "subnormals-flushed")
    assert [w["defect"] for w in evaluate_gate(Results.from_json(two)).judged.waived_defects] == ["subnormals-flushed"]
    assert evaluate_gate(Results.from_json(two), max_waived_defects=1).passed
    _waive(two, "abi.table.test_attributes_are_typed", "f64-computed-in-f32")  # not mandatory
    gate = evaluate_gate(Results.from_json(two), max_waived_defects=1)
    assert not gate.passed
    assert gate.failures == ["the run's waivers cover 2 defect(s), the budget is 1: subnormals-flushed (2 test(s)), "
                             "f64-computed-in-f32 (1 test(s))"]
    assert evaluate_gate(Results.from_json(two), max_waived_defects=2).passed
    assert not evaluate_gate(Results.from_json(two), max_waivers=2, max_waived_defects=2).passed  # both budgets apply


def test_cli_max_waived_defects(tmp_path: Path, clean, capsys) -> None:
    results = write_json(tmp_path / "r.json", clean)
    assert main(["gate", str(results), "--max-waived-defects", "1"]) == 0
    assert main(["gate", str(results), "--max-waived-defects", "0", "--json", str(tmp_path / "g.json")]) == 1
    out = capsys.readouterr().out
    assert "**gate: FAIL · CONFORMANT · level Multi-device · 1 waived defect (1 test) · hides 1 waived test" in out
    assert "the run's waivers cover 1 defect(s), the budget is 0" in out
    assert json.loads((tmp_path / "g.json").read_text())["headline"].startswith("gate: FAIL")
    assert main(["gate", str(results), "--max-waived-defects", "-1"]) == 2


def test_slim_baseline_keeps_the_defects(synthetic) -> None:
    waived = _waive(copy.deepcopy(synthetic), TANH, "subnormals-flushed")
    slim = slim_baseline(Results.from_json(waived))
    assert next(t for t in slim["tests"] if t["id"] == TANH)["defect"] == "subnormals-flushed"
    assert evaluate_gate(Results.from_json(waived), Results.from_json(slim)).stats.waived_defects == evaluate_gate(Results.from_json(waived), Results.from_json(waived)).stats.waived_defects


# -- a gate that cannot be passed by hiding (issue 53 item 3) ---------------------------------------------------

# Golden cases of the synthetic clean run (all PASS there), none mandatory for a level.
GOLDEN = [TANH, "execute.golden.test_case_matches_reference[linalg.convolution.f16.r2]",
          "execute.golden.test_case_matches_reference[linalg.dot_general.u8.r2]"]


def _failing(clean: dict) -> dict:
    """The clean run with its golden cases failing: a known-failure baseline (NON_CONFORMANT)."""
    failing = copy.deepcopy(clean)
    for test_id in GOLDEN:
        set_outcome(failing, test_id, Outcome.FAIL, "output 0: 3 of 4 values differ")
    return failing


def test_failures_hidden_behind_skip_fail_the_gate_against_their_baseline(clean) -> None:
    """Issue 53's reproduction: the baseline's failures turned SKIP by a SKIP entry of the expectations file."""
    baseline = _failing(clean)
    hidden = copy.deepcopy(baseline)
    for test_id in GOLDEN:
        set_outcome(hidden, test_id, Outcome.SKIP, "skipped by the expectations file: too slow")
        record_of(hidden, test_id)["details"] = {"deselected_by": "expectations"}
    gate = evaluate_gate(Results.from_json(hidden), baseline=Results.from_json(baseline))
    assert not gate.passed
    assert f"{len(GOLDEN)} regression(s) against the baseline ({len(GOLDEN)} deselected)" in gate.failures
    assert any(failure.startswith("the run is INCOMPLETE: partial selection") for failure in gate.failures)
    assert [change.kind for change in gate.diff.changes] == [ChangeKind.DESELECTED] * len(GOLDEN)
    assert gate.stats.contract_level == "Multi-device" and gate.stats.level is None  # no level gain to show
    assert gate.headline.startswith("gate: FAIL · INCOMPLETE") and "level" not in gate.headline
    markdown = gate_markdown(gate)
    assert f"### Regressions ({len(GOLDEN)})" in markdown and "### Fixes" not in markdown
    assert "| level | none | none |" in " ".join(markdown.split())
    # --allow-partial accepts the partial selection, never the hidden failures
    accepted = evaluate_gate(Results.from_json(hidden), baseline=Results.from_json(baseline), allow_partial=True)
    assert accepted.failures == [f"{len(GOLDEN)} regression(s) against the baseline ({len(GOLDEN)} deselected)"]


def test_a_failure_turned_not_supported_is_a_dropped_feature(clean) -> None:
    baseline = _failing(clean)
    dropped = set_outcome(copy.deepcopy(baseline), TANH, Outcome.NOT_SUPPORTED, "PJRT_Client_Compile: UNIMPLEMENTED")
    gate = evaluate_gate(Results.from_json(dropped), baseline=Results.from_json(baseline))
    assert "1 regression(s) against the baseline (1 feature dropped)" in gate.failures
    assert gate.diff.of_kind(ChangeKind.FIX) == []


def test_an_incomplete_run_fails_the_gate_with_or_without_a_baseline_unless_partial_is_allowed(clean) -> None:
    partial = copy.deepcopy(clean)
    partial["tests"] = [test for test in partial["tests"] if test["layer"] == "execute"]
    partial["selection"] = {"layers": ["execute"], "all_layers": False}
    execute_only = copy.deepcopy(partial)
    for results, baseline in ((partial, None), (partial, execute_only)):
        base = Results.from_json(baseline) if baseline else None
        gate = evaluate_gate(Results.from_json(results), baseline=base)
        assert not gate.passed and gate.failures[0].startswith("the run is INCOMPLETE: partial selection (execute)")
        assert gate.failures[0].endswith("an INCOMPLETE run passes the gate only with --allow-partial")
        assert gate.headline.startswith("gate: FAIL · INCOMPLETE ·") and "level" not in gate.headline
        accepted = evaluate_gate(Results.from_json(results), baseline=base, allow_partial=True)
        assert accepted.passed, accepted.failures
        assert accepted.headline.startswith("gate: PASS · INCOMPLETE (accepted: --allow-partial)")
        assert accepted.to_dict()["allow_partial"] is True
    # a level asked for by name is still required of an accepted partial run
    assert not evaluate_gate(Results.from_json(partial), level="Core", allow_partial=True).passed


def test_allow_partial_accepts_only_a_run_incomplete_because_not_every_test_ran(clean) -> None:
    no_device = copy.deepcopy(clean)
    for test in no_device["tests"]:
        if test["layer"] != "abi":
            restate(test, Outcome.NOT_SUPPORTED, "no device: PJRT_Client_Create: FAILED_PRECONDITION: no GPU")
    judged = judge_results(Results.from_json(no_device))
    assert judged.verdict == "INCOMPLETE" and not judged.only_partial and judged.partial == []
    gate = evaluate_gate(Results.from_json(no_device), allow_partial=True)
    assert not gate.passed and "(accepted: --allow-partial)" not in gate.headline
    assert gate.failures[0].endswith("--allow-partial accepts a run that is INCOMPLETE only because not every test "
                                     "ran, and this one is not")
    # an interrupted run is partial; one whose findings were not confirmed is not
    interrupted = dict(clean, summary=dict(clean["summary"], complete=False))
    assert judge_results(Results.from_json(interrupted)).only_partial
    unconfirmed = dict(interrupted, confirmation={"skipped": 2})
    assert not judge_results(Results.from_json(unconfirmed)).only_partial


def test_a_level_shows_only_for_a_conformant_run(clean) -> None:
    failing = set_outcome(copy.deepcopy(clean), "robustness.fuzz.test_compile_survives_mutated_program[seed6]",
                          Outcome.FAIL, "boom")  # robustness: every level's contract is still met
    gate = evaluate_gate(Results.from_json(failing), baseline=Results.from_json(failing), level="Full")
    assert gate.passed, gate.failures  # a known failure outside the levels' layers; Full's contract is met
    assert gate.stats.verdict == "NON_CONFORMANT" and gate.stats.level is None
    assert "level" not in gate.headline and gate.to_dict()["run"]["level"] is None
    assert "No level is awarded: the run is NON_CONFORMANT" in gate_markdown(gate)


def test_records_that_contradict_themselves_fail_the_gate_even_where_the_baseline_failed(clean) -> None:
    baseline = _failing(clean)
    forged = copy.deepcopy(baseline)
    for test_id in GOLDEN:  # only the outcome edited: the message still says how the values differ
        record_of(forged, test_id)["outcome"] = "PASS"
    gate = evaluate_gate(Results.from_json(forged), baseline=Results.from_json(baseline))
    assert not gate.passed
    assert gate.failures[0].startswith(f"the run's records cannot be trusted: {len(GOLDEN)} record(s) contradict")


# -- the waiver budget without a baseline (issue 53 item 9) ------------------------------------------------------


def test_without_a_baseline_the_waivers_are_those_of_the_profiles_own_expectations_file(clean) -> None:
    assert evaluate_gate(Results.from_json(clean)).passed  # judged by the cpu profile's own file
    drafted = copy.deepcopy(clean)
    drafted["expectations"] = {"file": "draft.toml", "sha256": "d" * 64}
    gate = evaluate_gate(Results.from_json(drafted))
    assert not gate.passed
    assert gate.failures == ["the run's 1 waiver(s) come from draft.toml (dddddddddddd), not from the cpu profile's own "
                             f"({bundled_expectations_sha256()[:12]}): without a baseline the waiver budget is the "
                             "profile's own expectations file; give --max-waivers N to accept more"]
    assert gate.headline.endswith("hides 1 waived test (budget: the cpu profile's expectations file)")
    budgeted = evaluate_gate(Results.from_json(drafted), max_waivers=1)
    assert budgeted.passed and budgeted.headline.endswith("hides 1 waived test (budget: 1)")
    # a run of no profile has no file of its own: any waiver needs a budget
    bare = dict(drafted, profile=None)
    assert "a profile's own (the run's profile (none) ships none)" in evaluate_gate(Results.from_json(bare)).failures[0]
    # with a baseline, each newly waived test is listed instead
    assert evaluate_gate(Results.from_json(drafted), baseline=Results.from_json(clean)).passed


def test_cli_allow_partial_and_the_default_waiver_budget(tmp_path: Path, clean, capsys) -> None:
    partial = copy.deepcopy(clean)
    partial["selection"] = {"layers": ["abi"], "all_layers": False}
    partial["tests"] = [test for test in partial["tests"] if test["layer"] == "abi"]
    results = write_json(tmp_path / "partial.json", partial)
    assert main(["gate", str(results)]) == 1
    assert main(["gate", str(results), "--allow-partial"]) == 0
    assert "**gate: PASS · INCOMPLETE (accepted: --allow-partial)" in capsys.readouterr().out
    drafted = write_json(tmp_path / "drafted.json", dict(clean, expectations={"file": "draft.toml", "sha256": "0" * 64}))
    assert main(["gate", str(drafted)]) == 1
    assert main(["gate", str(drafted), "--max-waivers", "1"]) == 0
