"""The verdict rules (pjrt_cts.verdict, docs/levels.md): CONFORMANT must be earned by running."""
from __future__ import annotations

import copy
from typing import Any

import pytest

from pjrt_cts.levels import CORE
from pjrt_cts.outcomes import Outcome
from pjrt_cts.verdict import (
    CONFORMANT, EXIT_CONFORMANT, EXIT_INCOMPLETE, EXIT_NON_CONFORMANT, INCOMPLETE, NON_CONFORMANT, judge_results,
)

from .conftest import set_outcome

CLIENT_CREATE = "client.client_create.test_client_creates_with_profile_options"


def test_clean_run_is_conformant_at_the_top_level_with_its_waivers_listed(clean) -> None:
    judged = judge_results(clean)
    waived = [t["id"] for t in clean["tests"] if t["outcome"] == "XFAIL"]
    assert (judged.verdict, judged.level, judged.exit_code) == (CONFORMANT, "Multi-device", EXIT_CONFORMANT)
    assert [w["id"] for w in judged.waivers] == waived
    assert len(waived) == 1
    assert judged.line() == "CONFORMANT · level Multi-device · 1 waived defect (1 test)"


def test_any_bad_outcome_is_non_conformant(clean) -> None:
    set_outcome(clean, CLIENT_CREATE, Outcome.FAIL, "PJRT_Client_Create: INVALID_ARGUMENT: bogus_option")
    judged = judge_results(clean)
    assert (judged.verdict, judged.exit_code) == (NON_CONFORMANT, EXIT_NON_CONFORMANT)
    assert judged.reasons[0] == f"1 bad result(s) (FAIL), first {CLIENT_CREATE}"


def test_zero_pass_is_never_conformant() -> None:
    tests = [{"id": test_id, "layer": test_id.split(".")[0], "outcome": "NOT_SUPPORTED", "message": "no device"}
             for test_id in CORE.mandatory_ids()]
    judged = judge_results({"tests": tests})
    assert (judged.verdict, judged.exit_code) == (INCOMPLETE, EXIT_INCOMPLETE)
    assert "no test passed" in judged.reasons


def test_empty_run_is_incomplete() -> None:
    assert judge_results({"tests": []}).verdict == INCOMPLETE


def test_no_device_is_incomplete_with_the_plugins_reason(clean) -> None:
    """The documented no-device case: client-dependent tests NOT_SUPPORTED, only abi passes."""
    reason = "no device: PJRT_Client_Create: FAILED_PRECONDITION: No visible GPU devices."
    for test in clean["tests"]:
        if test["layer"] != "abi":
            test["outcome"], test["message"] = "NOT_SUPPORTED", reason
    judged = judge_results(clean)
    assert judged.verdict == INCOMPLETE and judged.level is None
    assert reason in judged.reasons[0]


def test_partial_selection_is_incomplete(clean) -> None:
    partial = copy.deepcopy(clean)
    partial["tests"] = [t for t in partial["tests"] if t["layer"] in ("client", "transfer", "execute")]
    judged = judge_results(partial)
    assert judged.verdict == INCOMPLETE
    assert "mandatory test(s) did not run" in judged.reasons[0]


def test_interrupted_run_is_incomplete(clean) -> None:
    clean["summary"] = {"complete": False}
    judged = judge_results(clean)
    assert judged.verdict == INCOMPLETE
    assert judged.reasons == ["the run was interrupted before every selected test had a result"]


@pytest.mark.parametrize("outcome", [Outcome.CRASH, Outcome.TIMEOUT, Outcome.XPASS, Outcome.ERROR])
def test_every_bad_outcome_counts(clean, outcome: Outcome) -> None:
    set_outcome(clean, CLIENT_CREATE, outcome)
    assert judge_results(clean).verdict == NON_CONFORMANT


def test_verdict_is_recomputed_not_trusted(clean) -> None:
    set_outcome(clean, CLIENT_CREATE, Outcome.FAIL, "boom")
    clean["summary"] = {"verdict": CONFORMANT, "complete": True}
    assert judge_results(clean).verdict == NON_CONFORMANT


def _record(test_id: str, outcome: str) -> dict[str, Any]:
    return {"id": test_id, "layer": test_id.split(".")[0], "outcome": outcome, "message": ""}


def test_missing_dot_general_cannot_reach_core(clean) -> None:
    """A plugin that answers UNIMPLEMENTED to every program with dot_general."""
    for test in clean["tests"]:
        if "[dot." in test["id"]:
            test["outcome"], test["message"] = "NOT_SUPPORTED", "PJRT_Client_Compile: UNIMPLEMENTED: dot_general"
    judged = judge_results(clean)
    assert judged.verdict == INCOMPLETE and judged.level is None


def test_quick_run_is_never_conformant(clean) -> None:
    """A `--quick` sample says so first, even when every test it ran passed."""
    clean["quick"] = {"tests_in_sample": 12, "collected": 120, "note": "a sample"}
    judged = judge_results(clean)
    assert judged.verdict == INCOMPLETE and judged.exit_code == EXIT_INCOMPLETE
    assert judged.reasons[0].startswith("a --quick run")
