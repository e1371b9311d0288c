from __future__ import annotations

import copy

import pytest

from pjrt_cts.schema import Results
from pjrt_cts.judgment.outcomes import Outcome
from pjrt_cts.report.diff import FIXED, INTRODUCED, UNCHANGED, ChangeKind, classify, diff_runs, format_diff

from .conftest import set_outcome

P, F, C, T, E, XP = Outcome.PASS, Outcome.FAIL, Outcome.CRASH, Outcome.TIMEOUT, Outcome.ERROR, Outcome.XPASS
NS, W, S, XF = Outcome.NOT_SUPPORTED, Outcome.WARNING, Outcome.SKIP, Outcome.XFAIL
SD = Outcome.SHARED_DEVIATION


@pytest.mark.parametrize(
    "old, new, kind",
    [
        (P, P, None),
        (P, F, ChangeKind.NEW_FAILURE),
        (XF, F, ChangeKind.NEW_FAILURE),
        (NS, XP, ChangeKind.NEW_FAILURE),
        (P, C, ChangeKind.NEW_CRASH),
        (F, C, ChangeKind.NEW_CRASH),
        (P, T, ChangeKind.NEW_CRASH),
        (C, T, ChangeKind.CHANGED),
        (F, E, ChangeKind.CHANGED),
        (P, NS, ChangeKind.COVERAGE_LOSS),
        (P, S, ChangeKind.COVERAGE_LOSS),
        (P, None, ChangeKind.COVERAGE_LOSS),
        # a new waiver is never a fix, and not a regression: the gate lists it on its own
        (F, XF, ChangeKind.NEWLY_WAIVED),
        (P, XF, ChangeKind.NEWLY_WAIVED),
        (C, XF, ChangeKind.NEWLY_WAIVED),
        (SD, XF, ChangeKind.NEWLY_WAIVED),
        (None, XF, ChangeKind.NEWLY_WAIVED),
        (XF, P, ChangeKind.COVERAGE_GAIN),
        # a shared deviation is good: it meets the levels like PASS, only the spec mark sees it
        (P, SD, ChangeKind.NEW_SHARED_DEVIATION),
        (SD, P, ChangeKind.SPEC_FIX),
        (F, SD, ChangeKind.FIX),
        (XF, SD, ChangeKind.COVERAGE_GAIN),
        (NS, SD, ChangeKind.COVERAGE_GAIN),
        (SD, NS, ChangeKind.COVERAGE_LOSS),
        (SD, None, ChangeKind.COVERAGE_LOSS),
        (SD, F, ChangeKind.NEW_FAILURE),
        (None, SD, ChangeKind.ADDED),
        (F, None, ChangeKind.REMOVED),
        (None, F, ChangeKind.NEW_TEST_FAILING),
        (None, P, ChangeKind.ADDED),
        (F, P, ChangeKind.FIX),
        # a failure that no longer runs (SKIP) or whose feature is gone (NOT_SUPPORTED) is not fixed
        (C, NS, ChangeKind.FEATURE_DROPPED),
        (F, NS, ChangeKind.FEATURE_DROPPED),
        (XF, NS, ChangeKind.FEATURE_DROPPED),
        (F, S, ChangeKind.DESELECTED),
        (T, S, ChangeKind.DESELECTED),
        (XP, S, ChangeKind.DESELECTED),
        (XF, S, ChangeKind.DESELECTED),
        (W, P, ChangeKind.FIX),
        (NS, P, ChangeKind.COVERAGE_GAIN),
        (P, W, ChangeKind.NEW_WARNING),
        (NS, S, ChangeKind.CHANGED),
    ],
)
def test_classify(old, new, kind) -> None:
    assert classify(old, new) is kind


def test_regression_kinds() -> None:
    regressions = {kind for kind in ChangeKind if kind.is_regression}
    assert regressions == {ChangeKind.NEW_CRASH, ChangeKind.NEW_FAILURE, ChangeKind.DESELECTED,
                           ChangeKind.FEATURE_DROPPED, ChangeKind.COVERAGE_LOSS, ChangeKind.NEW_TEST_FAILING}


def test_identical_runs_have_no_changes(synthetic) -> None:
    diff = diff_runs(Results.from_json(synthetic), Results.from_json(copy.deepcopy(synthetic)))
    assert diff.changes == [] and diff.regressions == []
    assert "changes: none" in format_diff(diff)


def test_diff_of_modified_run(synthetic) -> None:
    new = copy.deepcopy(synthetic)
    set_outcome(new, "abi.table.test_api_version_is_reported", Outcome.FAIL, "api_version 0.0")
    set_outcome(new, "compile.program.test_empty_compile_options_are_rejected", Outcome.PASS)
    new["tests"] = [t for t in new["tests"] if t["id"] != "client.client.test_process_index_is_zero"]
    diff = diff_runs(Results.from_json(synthetic), Results.from_json(new))
    kinds = {change.test_id: change.kind for change in diff.changes}
    assert kinds == {
        "abi.table.test_api_version_is_reported": ChangeKind.NEW_FAILURE,
        "compile.program.test_empty_compile_options_are_rejected": ChangeKind.FIX,
        "client.client.test_process_index_is_zero": ChangeKind.COVERAGE_LOSS,
    }
    assert diff.changes[0].kind is ChangeKind.NEW_FAILURE  # regressions first
    assert diff.new.tests == diff.old.tests - 1
    text = format_diff(diff)
    assert "api_version 0.0" in text and "missing from this run" in text


def test_coverage_change_counts_op_dtype_pairs(synthetic) -> None:
    new = copy.deepcopy(synthetic)
    for test in new["tests"]:
        if test["layer"] == "execute" and test["details"].get("op") == "stablehlo.while":
            test["outcome"] = "NOT_SUPPORTED"
    diff = diff_runs(Results.from_json(synthetic), Results.from_json(new))
    # one case per (while, dtype) pair in the fixture: each PASSing one was a covered pair
    passing_while = sum(
        1 for t in synthetic["tests"] if t["details"].get("op") == "stablehlo.while" and t["outcome"] == "PASS"
    )
    assert passing_while > 0
    assert diff.old.covered_pairs - diff.new.covered_pairs == passing_while
    assert "op×dtype pairs passing" in format_diff(diff, "github")


def _with_defect(results: dict, test_id: str, outcome: Outcome, defect: str) -> dict:
    record = set_outcome(results, test_id, outcome, f"{outcome.value}: an instance of {defect}")
    next(t for t in record["tests"] if t["id"] == test_id)["defect"] = defect
    return results


def test_newly_waived_is_listed_before_fixes_and_is_no_regression(synthetic) -> None:
    tanh = "execute.golden.test_case_matches_reference[elementwise.tanh.bf16.r2]"
    new = set_outcome(copy.deepcopy(synthetic), tanh, XF, "golden case differs from the reference")
    set_outcome(new, "compile.program.test_empty_compile_options_are_rejected", Outcome.PASS)
    diff = diff_runs(Results.from_json(synthetic), Results.from_json(new))
    assert [(c.test_id, c.kind) for c in diff.changes] == [
        (tanh, ChangeKind.NEWLY_WAIVED), ("compile.program.test_empty_compile_options_are_rejected", ChangeKind.FIX)]
    assert diff.regressions == []
    assert diff.new.waived_tests == diff.old.waived_tests + 1
    assert "1 newly waived, 1 fix" in format_diff(diff)


def test_diff_compares_defects(synthetic) -> None:
    """Defects by id (the records' `defect`): introduced, fixed, unchanged, with their tests in each run."""
    kept = "transfer.layout.test_strided_host_buffer_is_honoured"
    gone = "execute.golden.test_case_matches_reference[linalg.convolution.f16.r2]"
    came = "execute.golden.test_case_matches_reference[elementwise.tanh.bf16.r2]"
    old = _with_defect(copy.deepcopy(synthetic), kept, F, "f64-computed-in-f32")
    _with_defect(old, gone, F, "convert-rounds-toward-zero")
    _with_defect(old, came, Outcome.PASS, "")
    new = _with_defect(copy.deepcopy(synthetic), kept, XF, "f64-computed-in-f32")
    _with_defect(new, gone, Outcome.PASS, "")
    _with_defect(new, came, SD, "subnormals-flushed")
    diff = diff_runs(Results.from_json(old), Results.from_json(new))
    status = {change.defect: change.status for change in diff.defects}
    assert {d: status[d] for d in ("f64-computed-in-f32", "convert-rounds-toward-zero", "subnormals-flushed")} == {
        "f64-computed-in-f32": UNCHANGED, "convert-rounds-toward-zero": FIXED, "subnormals-flushed": INTRODUCED}
    assert [change.status for change in diff.defects][:1] == [INTRODUCED]  # introduced first, then fixed
    kept_change = next(change for change in diff.defects if change.defect == "f64-computed-in-f32")
    assert (kept_change.old, kept_change.new) == ({"tests": 1, "bad": 1, "waived": 0, "shared": 0},
                                                  {"tests": 1, "bad": 0, "waived": 1, "shared": 0})
    assert next(c for c in diff.changes if c.test_id == came).kind is ChangeKind.NEW_SHARED_DEVIATION
    text = format_diff(diff)
    assert "defects: 1 introduced, 1 fixed" in text
    assert "1 (1 waived)" in text and "1 (1 shared)" in text
    assert diff.to_dict()["defects"][0]["defect"] == "subnormals-flushed"
