"""Records that contradict themselves (pjrt_cts.judgment.contradictions) are refused by the verdict: an outcome
edited alone cannot make a run CONFORMANT."""
from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from pjrt_cts.golden.compare import Mismatch
from pjrt_cts.judgment.contradictions import MISMATCH_DETAILS, count_problems, record_contradiction
from pjrt_cts.judgment.outcomes import Outcome
from pjrt_cts.judgment.verdict import CONFORMANT, NON_CONFORMANT, judge_results
from pjrt_cts.schema import Confirmation, Expected, Results, TestRecord

from .conftest import make_clean, record_of, recount

CASE = "execute.golden_cases.test_case_matches_reference[dot.matmul.f32]"
DIFF = {"max_abs_err": 0.5, "max_rel_err": 0.25, "first_mismatch_index": [0, 1], "num_mismatches": 3}


def _record(outcome: Outcome, **fields: Any) -> TestRecord:
    return TestRecord(id=CASE, layer="execute", outcome=outcome, **fields)


def _confirmation(outcome: Outcome, confirmed: bool = True) -> Confirmation:
    return Confirmation(outcome=outcome, message="", duration=0.1, confirmed=confirmed)


def _expected(actual: Outcome, outcome: Outcome = Outcome.FAIL) -> Expected:
    return Expected(pattern=CASE, outcome=outcome, cause=None, reason="known", url=None, actual=actual)


def test_the_mismatch_details_are_the_ones_a_failed_comparison_records() -> None:
    recorded = Mismatch("differs", dtype="f32", max_abs_err=1.0, max_rel_err=1.0, first_mismatch_index=(0,),
                        num_mismatches=1).details()
    assert set(MISMATCH_DETAILS) <= set(recorded)


@pytest.mark.parametrize("record", [
    _record(Outcome.PASS),
    _record(Outcome.PASS, details={"answer": "ok", "signal": None}),
    _record(Outcome.PASS, expected=_expected(Outcome.PASS)),  # an intermittent entry on a test that passed
    _record(Outcome.FAIL, message="differs", details=DIFF, defect="unclassified",
            confirmation=_confirmation(Outcome.FAIL)),
    _record(Outcome.XFAIL, message="differs", details=DIFF, defect="subnormals-flushed",
            expected=_expected(Outcome.FAIL), confirmation=_confirmation(Outcome.FAIL)),
    _record(Outcome.XPASS, expected=_expected(Outcome.PASS)),
    _record(Outcome.NOT_SUPPORTED, message="UNIMPLEMENTED", confirmation=_confirmation(Outcome.NOT_SUPPORTED)),
    # the consistency rule turned a confirmed UNIMPLEMENTED into a FAIL, keeping what it was
    _record(Outcome.FAIL, message="runs other cases", details={"consistency": {"was": "NOT_SUPPORTED"}},
            defect="unclassified", confirmation=_confirmation(Outcome.NOT_SUPPORTED)),
    _record(Outcome.FLAKY, message="FLAKY: ...", defect="unclassified",
            confirmation=_confirmation(Outcome.PASS, confirmed=False)),
    _record(Outcome.SKIP, message="not selected by --id", details={"deselected_by": "--id"}),
], ids=lambda record: record.outcome.value)
def test_records_the_runner_writes_agree_with_themselves(record: TestRecord) -> None:
    assert record_contradiction(record) is None


@pytest.mark.parametrize("record, why", [
    (_record(Outcome.PASS, message="output 0: 3 of 4 values differ"), "PASS with a failure message (output 0"),
    (_record(Outcome.PASS, defect="subnormals-flushed"), "PASS attributed to the defect subnormals-flushed"),
    (_record(Outcome.PASS, details=DIFF),
     "PASS with a failure's details (max_abs_err, max_rel_err, first_mismatch_index, num_mismatches)"),
    (_record(Outcome.PASS, details={"traceback": "AssertionError"}), "PASS with a failure's details (traceback)"),
    (_record(Outcome.NOT_SUPPORTED, message="UNIMPLEMENTED", details=DIFF), "NOT_SUPPORTED with a failure's details"),
    (_record(Outcome.SKIP, message="skipped", defect="unclassified"), "SKIP attributed to the defect unclassified"),
    (_record(Outcome.FAIL, message="differs", confirmation=_confirmation(Outcome.PASS)),
     "FAIL confirmed by a second observation that was PASS"),
    (_record(Outcome.CRASH, message="SIGSEGV", confirmation=_confirmation(Outcome.CRASH, confirmed=False)),
     "CRASH whose second observation did not confirm it"),
    (_record(Outcome.XFAIL, message="differs"), "XFAIL without an expectation entry"),
    (_record(Outcome.XFAIL, expected=_expected(Outcome.PASS)), "XFAIL of a test that did not fail (PASS)"),
    (_record(Outcome.XPASS, expected=_expected(Outcome.FAIL)), "XPASS of a test that did not pass (FAIL)"),
    (_record(Outcome.FAIL, message="differs", expected=_expected(Outcome.CRASH)),
     "FAIL, yet its expectation entry says the test was CRASH"),
], ids=lambda value: value.outcome.value if isinstance(value, TestRecord) else "")
def test_a_record_whose_fields_say_otherwise_than_its_outcome_contradicts_itself(record: TestRecord, why: str) -> None:
    found = record_contradiction(record)
    assert found is not None and found.startswith(why), found


def test_a_failure_flipped_to_pass_makes_the_run_non_conformant_with_no_level(synthetic: dict[str, Any]) -> None:
    clean = make_clean(synthetic)
    assert judge_results(Results.from_json(clean)).verdict == CONFORMANT
    record = record_of(clean, "client.client_create.test_client_creates_with_profile_options")
    record.update(message="PJRT_Client_Create: INTERNAL: boom", defect="unclassified")  # the failure's, outcome PASS
    judged = judge_results(Results.from_json(clean))
    assert (judged.verdict, judged.level) == (NON_CONFORMANT, None)
    assert judged.contract_level == "Multi-device"  # the contracts are met; no level is awarded all the same
    assert judged.line() == ("NON_CONFORMANT: 1 record(s) contradict themselves, first "
                             "client.client_create.test_client_creates_with_profile_options: PASS attributed to the "
                             "defect unclassified")
    assert judged.untrusted == judged.reasons


def test_counts_that_are_not_the_records_are_named(synthetic: dict[str, Any]) -> None:
    results = recount(make_clean(synthetic))
    assert count_problems(Results.from_json(results)) == []
    results["summary"]["totals"]["PASS"] += 1
    results["summary"]["by_layer"]["abi"]["FAIL"] = 2
    problems = count_problems(Results.from_json(results))
    assert len(problems) == 2 and "are not the records'" in problems[0] and problems[1].endswith("in abi")
    results["summary"]["totals"] = {"PASS": "many"}
    assert 'summary totals {"PASS": "many"} are not' in count_problems(Results.from_json(results))[0]
    assert count_problems(Results.from_json(dict(results, summary={"complete": True}))) == []  # nothing stored


def test_a_run_without_the_stored_counts_or_records_is_judged_as_ever() -> None:
    record = dataclasses.replace(_record(Outcome.PASS), id="abi.entry_point.test_get_pjrt_api_returns_a_table")
    assert judge_results(Results(tests=(record,))).untrusted == []
