"""The verdict rules (pjrt_cts.judgment.verdict, docs/levels.md): CONFORMANT must be earned by running."""
from __future__ import annotations

import copy
from typing import Any

import pytest

from pjrt_cts.schema import Results
from pjrt_cts.judgment.levels import CORE
from pjrt_cts.judgment.outcomes import Outcome
from pjrt_cts.judgment.verdict import (
    CONFORMANT, EXIT_CONFORMANT, EXIT_INCOMPLETE, EXIT_NON_CONFORMANT, INCOMPLETE, NON_CONFORMANT, judge_results,
)

from .conftest import restate, set_outcome

CLIENT_CREATE = "client.client_create.test_client_creates_with_profile_options"


def test_clean_run_is_conformant_at_the_top_level_with_its_waivers_listed(clean) -> None:
    judged = judge_results(Results.from_json(clean))
    waived = [t["id"] for t in clean["tests"] if t["outcome"] == "XFAIL"]
    assert (judged.verdict, judged.level, judged.exit_code) == (CONFORMANT, "Multi-device", EXIT_CONFORMANT)
    assert [w["id"] for w in judged.waivers] == waived
    assert len(waived) == 1
    assert judged.line() == "CONFORMANT · level Multi-device · 1 waived defect (1 test)"


def test_any_bad_outcome_is_non_conformant(clean) -> None:
    set_outcome(clean, CLIENT_CREATE, Outcome.FAIL, "PJRT_Client_Create: INVALID_ARGUMENT: bogus_option")
    judged = judge_results(Results.from_json(clean))
    assert (judged.verdict, judged.exit_code) == (NON_CONFORMANT, EXIT_NON_CONFORMANT)
    assert judged.reasons[0] == f"1 bad result(s) (FAIL), first {CLIENT_CREATE}"


def test_zero_pass_is_never_conformant() -> None:
    tests = [{"id": test_id, "layer": test_id.split(".")[0], "outcome": "NOT_SUPPORTED", "message": "no device"}
             for test_id in CORE.mandatory_ids()]
    judged = judge_results(Results.from_json({"tests": tests}))
    assert (judged.verdict, judged.exit_code) == (INCOMPLETE, EXIT_INCOMPLETE)
    assert "no test passed" in judged.reasons


@pytest.mark.parametrize(("contract", "reason"), [
    ({"checked": True, "problems": ["Core: the tree no longer matches the committed list: 1 removed (e.g. abi.x)"]},
     "the mandatory lists disagree with the suites (1 problem, first: Core: the tree no longer matches the committed "
     "list: 1 removed (e.g. abi.x); `pjrt-cts contract --check`)"),
    ({"checked": False, "error": "collecting suites took more than 600 s"},
     "the mandatory lists could not be checked against the suites: collecting suites took more than 600 s"),
])
def test_a_run_whose_lists_are_not_the_trees_is_not_conformant(clean, contract: dict[str, Any], reason: str) -> None:
    """Issue 53: the level is decided by the mandatory lists, so a run checks them against the suites it ran
    (results.json `contract`) and is INCOMPLETE when they disagree or could not be checked; a run that found them
    in agreement, or did not check (older files), is judged as before."""
    assert judge_results(Results.from_json({**clean, "contract": {"checked": True, "problems": []}})).verdict == CONFORMANT
    judged = judge_results(Results.from_json({**clean, "contract": contract}))
    assert (judged.verdict, judged.reasons[0]) == (INCOMPLETE, reason)
    set_outcome(clean, CLIENT_CREATE, Outcome.FAIL, "PJRT_Client_Create: INVALID_ARGUMENT: bogus_option")
    assert judge_results(Results.from_json({**clean, "contract": contract})).verdict == NON_CONFORMANT


def test_empty_run_is_incomplete() -> None:
    assert judge_results(Results.from_json({"tests": []})).verdict == INCOMPLETE


def test_no_device_is_incomplete_with_the_plugins_reason(clean) -> None:
    """The documented no-device case: client-dependent tests NOT_SUPPORTED, only abi passes."""
    reason = "no device: PJRT_Client_Create: FAILED_PRECONDITION: No visible GPU devices."
    for test in clean["tests"]:
        if test["layer"] != "abi":
            restate(test, Outcome.NOT_SUPPORTED, reason)
    judged = judge_results(Results.from_json(clean))
    assert judged.verdict == INCOMPLETE and judged.level is None
    assert reason in judged.reasons[0]


def test_partial_selection_is_incomplete(clean) -> None:
    partial = copy.deepcopy(clean)
    partial["tests"] = [t for t in partial["tests"] if t["layer"] in ("client", "transfer", "execute")]
    judged = judge_results(Results.from_json(partial))
    assert judged.verdict == INCOMPLETE
    assert "mandatory test(s) did not run" in judged.reasons[0]


def test_interrupted_run_is_incomplete(clean) -> None:
    clean["summary"] = {"complete": False}
    judged = judge_results(Results.from_json(clean))
    assert judged.verdict == INCOMPLETE
    assert judged.reasons == ["the run was interrupted before every selected test had a result"]


@pytest.mark.parametrize("outcome", [Outcome.CRASH, Outcome.TIMEOUT, Outcome.XPASS, Outcome.ERROR])
def test_every_bad_outcome_counts(clean, outcome: Outcome) -> None:
    set_outcome(clean, CLIENT_CREATE, outcome)
    assert judge_results(Results.from_json(clean)).verdict == NON_CONFORMANT


def test_verdict_is_recomputed_not_trusted(clean) -> None:
    set_outcome(clean, CLIENT_CREATE, Outcome.FAIL, "boom")
    clean["summary"] = {"verdict": CONFORMANT, "complete": True}
    assert judge_results(Results.from_json(clean)).verdict == NON_CONFORMANT


def _record(test_id: str, outcome: str) -> dict[str, Any]:
    return {"id": test_id, "layer": test_id.split(".")[0], "outcome": outcome, "message": ""}


def test_missing_dot_general_cannot_reach_core(clean) -> None:
    """A plugin that answers UNIMPLEMENTED to every program with dot_general."""
    for test in clean["tests"]:
        if "[dot." in test["id"]:
            restate(test, Outcome.NOT_SUPPORTED, "PJRT_Client_Compile: UNIMPLEMENTED: dot_general")
    judged = judge_results(Results.from_json(clean))
    assert judged.verdict == INCOMPLETE and judged.level is None


def test_quick_run_is_never_conformant(clean) -> None:
    """A `--quick` sample says so first, even when every test it ran passed."""
    clean["quick"] = {"tests_in_sample": 12, "collected": 120, "note": "a sample"}
    judged = judge_results(Results.from_json(clean))
    assert judged.verdict == INCOMPLETE and judged.exit_code == EXIT_INCOMPLETE
    assert judged.reasons[0].startswith("a --quick run")


def _deselect_all_but_mandatory(results: dict[str, Any], by: str) -> dict[str, Any]:
    """The reproduction of issue 28: a selection that keeps every mandatory test and drops the rest."""
    from pjrt_cts.judgment.levels import all_mandatory_ids

    mandatory = set(all_mandatory_ids())
    partial = copy.deepcopy(results)
    for test in partial["tests"]:
        if test["id"] not in mandatory:
            restate(test, Outcome.SKIP, "not selected by --id")
            test["details"] = {"deselected_by": by}
    return partial


@pytest.mark.parametrize("by", ["--id", "-k", "expectations"])
def test_a_selection_of_only_the_mandatory_tests_is_incomplete_and_fails_the_gate(clean, by: str) -> None:
    from pjrt_cts.report.gate import evaluate_gate

    partial = _deselect_all_but_mandatory(clean, by)
    judged = judge_results(Results.from_json(partial))
    assert (judged.verdict, judged.exit_code) == (INCOMPLETE, EXIT_INCOMPLETE)
    assert judged.reasons[0].startswith("partial selection (")
    assert f"deselected by {by}" in judged.reasons[0] and judged.reasons[0].endswith("nothing bad")
    gate = evaluate_gate(Results.from_json(partial))
    assert not gate.passed and any("INCOMPLETE" in failure for failure in gate.failures)


def test_deselection_in_results_written_before_the_detail_existed_still_counts(clean) -> None:
    partial = _deselect_all_but_mandatory(clean, "--id")
    for test in partial["tests"]:
        (test.get("details") or {}).pop("deselected_by", None)
    assert judge_results(Results.from_json(partial)).verdict == INCOMPLETE  # the runner's own SKIP message names the selection


def test_a_layer_selection_reads_clean_and_says_what_it_is(clean) -> None:
    partial = copy.deepcopy(clean)
    partial["tests"] = [t for t in partial["tests"] if t["layer"] == "execute"]
    partial["selection"] = {"layers": ["execute"], "all_layers": False}
    judged = judge_results(Results.from_json(partial))
    assert judged.line() == f"INCOMPLETE: partial selection (execute): {len(partial['tests'])} tests, nothing bad"


def test_a_partial_selection_with_a_failure_is_non_conformant(clean) -> None:
    partial = _deselect_all_but_mandatory(clean, "-k")
    set_outcome(partial, CLIENT_CREATE, Outcome.FAIL, "PJRT_Client_Create: INVALID_ARGUMENT: bogus_option")
    judged = judge_results(Results.from_json(partial))
    assert judged.verdict == NON_CONFORMANT and judged.reasons[1].startswith("partial selection (")


def test_an_environment_skip_is_no_partial_selection(clean) -> None:
    tests = [t for t in clean["tests"] if t["outcome"] == "PASS" and t["layer"] == "client"]
    tests[0].update(outcome="SKIP", message="test environment: torch is not installed", details={})
    assert judge_results(Results.from_json(clean)).verdict == CONFORMANT


def test_flaky_is_bad(clean) -> None:
    set_outcome(clean, CLIENT_CREATE, Outcome.FLAKY, "FLAKY: first run FAIL: x | rerun in a fresh process PASS: ")
    assert judge_results(Results.from_json(clean)).verdict == NON_CONFORMANT


def test_a_run_that_skipped_confirming_its_findings_is_never_conformant(clean) -> None:
    """`--no-confirmation` (the selftest's mutant runs) cannot earn a verdict: observed-once findings decide nothing."""
    unconfirmed = dict(clean, confirmation={"rerun": 0, "skipped": 3})
    judged = judge_results(Results.from_json(unconfirmed))
    assert judged.verdict == INCOMPLETE and "3 finding(s) not confirmed by a second run" in judged.reasons[0]
    assert judge_results(Results.from_json(dict(clean, confirmation={"rerun": 3, "confirmed": 3}))).verdict == CONFORMANT
