"""The defect catalogue and the diagnosis: every finding named, the verdict line in defects, waivers never
meeting a mandatory test."""
from __future__ import annotations

from typing import Any

import pytest

from pjrt_cts.schema import Results, TestRecord
from pjrt_cts.judgment.defects import UNCLASSIFIED, attribute, defect_table, load_catalogue
from pjrt_cts.judgment.defects.catalogue import SCOPES
from pjrt_cts.golden.spec.deviations import DEVIATION_IDS as VALUE_DEVIATIONS
from pjrt_cts.judgment.levels import CORE, LEVELS, evaluate_levels
from pjrt_cts.judgment.verdict import judge_results


def records_of(data: Any) -> list[TestRecord]:
    """Typed records from a results.json object (its `tests`) or a list of record objects."""
    tests = data["tests"] if isinstance(data, dict) else data
    return [TestRecord.from_json(test) for test in tests]

GOLDEN = "execute.golden_cases.test_case_matches_reference"


def _record(test_id: str, outcome: str, message: str = "", **details: Any) -> dict[str, Any]:
    return {"id": test_id, "outcome": outcome, "message": message, "details": details, "expected": None}


def test_the_catalogue_is_well_formed_and_names_every_value_deviation() -> None:
    defects = load_catalogue()
    ids = [defect.id for defect in defects]
    assert len(ids) == len(set(ids))
    assert all(defect.scope in SCOPES and defect.title and defect.rule for defect in defects)
    assert set(VALUE_DEVIATIONS) <= set(ids)


@pytest.mark.parametrize(("record", "defect"), [
    (_record(f"{GOLDEN}[spec.sqrt.f32]", "FAIL", "differs", deviation="subnormals-flushed"), "subnormals-flushed"),
    (_record("compile.golden_programs.test_golden_program_compiles[spec.rng.uniform_one_value.u8]", "CRASH",
             "killed by SIGABRT", signal="SIGABRT", function="PJRT_Client_Compile"), "rng-expander-aborts"),
    (_record("compile.golden_programs.test_golden_program_compiles[spec.rng.uniform_one_value.u8]", "CRASH",
             "killed by SIGSEGV", signal="SIGSEGV", function="PJRT_Client_Compile"), UNCLASSIFIED),
    (_record(f"{GOLDEN}[spec.add.f6e3m2fn]", "SHARED_DEVIATION",
             "PJRT_Client_Compile failed: UNKNOWN: failed to legalize operation 'arith.addf'"),
     "narrow-float-programs-rejected"),
    (_record("execute.deleted_executable.test_execute_after_delete_fails", "FAIL", "should fail, but succeeded"),
     "deleted-executable-still-runs"),
    (_record(f"{GOLDEN}[elementwise.add.f32]", "FAIL", "output 0 differs from the reference"), UNCLASSIFIED),
    (_record(f"{GOLDEN}[spec.compare.EQ_TOTALORDER.f32.const_decimal]", "FAIL",
             "blocked by client.preflight.test_client_create_survives: CRASH",
             blocked_by="client.preflight.test_client_create_survives"), UNCLASSIFIED),
    (_record(f"{GOLDEN}[elementwise.add.f32]", "PASS"), None),
    (_record("transfer.x.test_y", "NOT_SUPPORTED", "UNIMPLEMENTED"), None),
])
def test_each_finding_is_attributed_to_a_defect_or_unclassified(record: dict[str, Any], defect: str | None) -> None:
    assert attribute(TestRecord.from_json(record)) == defect


def test_an_xfail_is_diagnosed_by_what_actually_happened() -> None:
    record = _record("execute.deleted_executable.test_execute_after_delete_fails", "XFAIL", "should fail, but succeeded")
    record["expected"] = {"actual": "FAIL"}
    assert attribute(TestRecord.from_json(record)) == "deleted-executable-still-runs"


def test_the_defect_table_counts_tests_by_outcome_and_picks_the_smallest_reproduction() -> None:
    records = [dict(_record(f"{GOLDEN}[spec.sqrt.subnormal.f32]", "SHARED_DEVIATION", deviation="subnormals-flushed")),
               dict(_record(f"{GOLDEN}[spec.cbrt.subnormal.bf16]", "XFAIL", deviation="subnormals-flushed"),
                    expected={"actual": "FAIL"}),
               _record(f"{GOLDEN}[elementwise.add.f32]", "FAIL", "differs")]
    rows = {row["id"]: row for row in defect_table(records_of(records))}
    flushed = rows["subnormals-flushed"]
    assert (flushed["tests"], flushed["shared"], flushed["waived"], flushed["bad"]) == (2, 1, 1, 0)
    assert flushed["example"] == f"{GOLDEN}[spec.sqrt.subnormal.f32]"
    assert rows[UNCLASSIFIED]["bad"] == 1
    assert list(rows)[0] == UNCLASSIFIED  # bad findings first


def _passing_run(extra: list[dict[str, Any]]) -> dict[str, Any]:
    ids = [test_id for level in LEVELS for test_id in level.mandatory_ids()]
    tests = [_record(test_id, "PASS") for test_id in ids]
    replaced = {record["id"] for record in extra}
    return {"tests": [t for t in tests if t["id"] not in replaced] + extra}


def test_a_waiver_never_meets_a_mandatory_test_and_a_shared_deviation_does() -> None:
    mandatory = CORE.mandatory_ids()[0]
    waived = _record(mandatory, "XFAIL", "x", )
    waived["expected"] = {"actual": "FAIL", "reason": "r"}
    levels = evaluate_levels(Results.from_json(_passing_run([waived])))
    assert not levels[0].reached and "waiver never satisfies" in levels[0].reasons[0]
    assert judge_results(Results.from_json(_passing_run([waived]))).verdict == "INCOMPLETE"
    shared = _record(mandatory, "SHARED_DEVIATION", "XLA's value")
    assert evaluate_levels(Results.from_json(_passing_run([shared])))[-1].reached


def test_the_verdict_line_speaks_in_defects_and_carries_the_spec_mark() -> None:
    shared = [_record(f"{GOLDEN}[spec.sqrt.subnormal.f32]", "SHARED_DEVIATION", deviation="subnormals-flushed"),
              _record(f"{GOLDEN}[spec.cbrt.subnormal.f32]", "SHARED_DEVIATION", deviation="subnormals-flushed")]
    waived = _record("execute.deleted_executable.test_execute_after_delete_fails", "XFAIL", "should fail, but succeeded")
    waived["expected"] = {"actual": "FAIL", "reason": "r"}
    line = judge_results(Results.from_json(_passing_run(shared + [waived, _record(f"{GOLDEN}[spec.add.f32]", "PASS")]))).line()
    assert line == ("CONFORMANT · level Multi-device · spec ✗ (1 deviation shared with XLA, 2 tests) · "
                    "1 waived defect (1 test)")
    assert judge_results(Results.from_json(_passing_run([_record(f"{GOLDEN}[spec.add.f32]", "PASS")]))).line() == (
        "CONFORMANT · level Multi-device · spec ✓")


def _flaky(test_id: str, first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any]:
    return _record(test_id, "FLAKY", f"FLAKY: first run {first['outcome']}: {first['message']} | rerun {second['outcome']}",
                   observations=[first, second])


def test_a_flaky_finding_is_the_defect_either_observation_shows_and_the_draft_waives_it_as_intermittent() -> None:
    from pjrt_cts.report.triage import draft_expectations

    illegal = {"outcome": "FAIL", "message": "PjrtError: PJRT_Buffer_ToHostBuffer event failed: INTERNAL: "
                                             "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access"}
    named = _flaky(f"{GOLDEN}[spec.fft.FFT.rank1.c64]", illegal, {"outcome": "PASS", "message": ""})
    assert attribute(TestRecord.from_json(named)) == "illegal-address-poisons-later-executions"
    odd = _flaky(f"{GOLDEN}[dot.matmul.f32]", {"outcome": "FAIL", "message": "first mismatch at index [3]: actual 2.0, "
                                                                              "expected 1.0"},
                 {"outcome": "PASS", "message": ""})
    assert attribute(TestRecord.from_json(odd)) == UNCLASSIFIED
    draft = draft_expectations(Results.from_json({"tests": [named, odd]}), "vendor")
    # named for triage only (its rule pins the plugin's text): waived test by test, each pinned to its failure
    assert 'defect = "illegal-address-poisons-later-executions"' not in draft
    assert f'id = "{GOLDEN}[spec.fft.FFT.rank1.c64]"' in draft
    assert draft.count("intermittent = true") == 2 and draft.count("\ndraft = true\n") == 2
    assert f'id = "{GOLDEN}[dot.matmul.f32]"' in draft and 'outcome = "FAIL"' in draft
