from __future__ import annotations

import copy

import pytest

from pjrt_cts.outcomes import Outcome
from pjrt_cts.report.diff import ChangeKind, classify, diff_runs, format_diff

from .conftest import set_outcome

P, F, C, T, E, XP = Outcome.PASS, Outcome.FAIL, Outcome.CRASH, Outcome.TIMEOUT, Outcome.ERROR, Outcome.XPASS
NS, W, S, XF = Outcome.NOT_SUPPORTED, Outcome.WARNING, Outcome.SKIP, Outcome.XFAIL


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
        (P, XF, ChangeKind.COVERAGE_LOSS),
        (P, None, ChangeKind.COVERAGE_LOSS),
        (F, None, ChangeKind.REMOVED),
        (None, F, ChangeKind.NEW_TEST_FAILING),
        (None, P, ChangeKind.ADDED),
        (F, P, ChangeKind.FIX),
        (C, NS, ChangeKind.FIX),
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
    assert regressions == {ChangeKind.NEW_CRASH, ChangeKind.NEW_FAILURE, ChangeKind.COVERAGE_LOSS,
                           ChangeKind.NEW_TEST_FAILING}


def test_identical_runs_have_no_changes(synthetic) -> None:
    diff = diff_runs(synthetic, copy.deepcopy(synthetic))
    assert diff.changes == [] and diff.regressions == []
    assert "changes: none" in format_diff(diff)


def test_diff_of_modified_run(synthetic) -> None:
    new = copy.deepcopy(synthetic)
    set_outcome(new, "abi.table.test_api_version_is_reported", Outcome.FAIL, "api_version 0.0")
    set_outcome(new, "compile.program.test_empty_compile_options_are_rejected", Outcome.PASS)
    new["tests"] = [t for t in new["tests"] if t["id"] != "client.client.test_process_index_is_zero"]
    diff = diff_runs(synthetic, new)
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
    diff = diff_runs(synthetic, new)
    # one case per (while, dtype) pair in the fixture: each PASSing one was a covered pair
    passing_while = sum(
        1 for t in synthetic["tests"] if t["details"].get("op") == "stablehlo.while" and t["outcome"] == "PASS"
    )
    assert passing_while > 0
    assert diff.old.covered_pairs - diff.new.covered_pairs == passing_while
    assert "op×dtype pairs passing" in format_diff(diff, "github")
