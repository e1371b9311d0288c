"""Drafts are drafts (issue 53 item 9): what triage writes is marked `draft = true` until a person reviews it, and a
run judged with a draft entry is never CONFORMANT; waived unclassified tests count as a defect each."""
from __future__ import annotations

from pathlib import Path
import numpy as np

from findings import GOLDEN, crashed, hung, record, wrong_values
from pjrt_cts.judgment.levels import LEVELS
from pjrt_cts.judgment.summary import run_summary
from pjrt_cts.judgment.verdict import CONFORMANT, INCOMPLETE, judge_results
from pjrt_cts.report.badge import badge_message
from pjrt_cts.report.gate import evaluate_gate
from pjrt_cts.judgment.outcomes import Outcome
from pjrt_cts.report.triage import draft_expectations, pinned_cause
from pjrt_cts.runner.controller.expectations import Expectations, apply_expectation, entry_usage
from pjrt_cts.schema import Results, TestRecord


def _findings() -> list[TestRecord]:
    return [
        crashed(f"{GOLDEN}[spec.rng.uniform_one_value.u8]", "SIGABRT", "PJRT_Client_Compile",
                "F0000 rng_expander.cc:56] Check failed: primitive_type == F16"),
        wrong_values(f"{GOLDEN}[fft.rfft_1d.f32]", [1.0, -2.0, 3.5], [1.0, 2.0, 3.0]),
        wrong_values(f"{GOLDEN}[fft.irfft_1d.f32]", [0.5, 2.0, 3.0], [1.0, 2.0, 3.0]),
        crashed("executable.extra.test_runs_after_load[one]", "SIGSEGV", "PJRT_LoadedExecutable_Execute"),
        hung("events.await.test_await_returns[0]", "PJRT_Event_Await"),
        hung("events.await.test_await_returns[1]", None),  # nothing to pin: no entry
    ]


def _run(tests: list[TestRecord], expectations: Expectations) -> Results:
    """A run whose mandatory tests all PASS, with `tests` judged by `expectations`."""
    ids = {test_id for level in LEVELS for test_id in level.mandatory_ids()}
    judged = [apply_expectation(test, expectations) for test in tests]
    passing = [record(test_id, "PASS") for test_id in sorted(ids - {test.id for test in tests})]
    return Results.from_json({"tests": [t.to_json() for t in passing + judged],
                              "expectations": {"entries": entry_usage(expectations, judged)}})


def _draft(tmp_path: Path) -> Expectations:
    path = tmp_path / "draft.toml"
    path.write_text(draft_expectations(Results.from_json({"tests": [t.to_json() for t in _findings()]}), "vendor"))
    return Expectations.load(path)


def test_triage_drafts_every_entry_as_a_draft_that_loads_and_pins_each_finding(tmp_path: Path) -> None:
    expectations = _draft(tmp_path)
    assert expectations.drafts() == len(expectations.entries) == 5  # rng defect + 4 pinned unclassified findings
    by_id = {entry.pattern: entry for entry in expectations.entries}
    assert by_id[f"{GOLDEN}[fft.rfft_1d.f32]"].cause is not None
    assert by_id["events.await.test_await_returns[0]"].cause == "timeout\\ in\\ PJRT_Event_Await"
    assert "killed\\ by\\ SIGSEGV\\ in\\ PJRT_LoadedExecutable_Execute" in str(
        by_id["executable.extra.test_runs_after_load[one]"].cause)
    assert "events.await.test_await_returns[1]" not in by_id  # a hang nowhere in particular: nothing to pin
    assert all(entry.reason.startswith("DRAFT:") for entry in expectations.entries)


def test_a_run_with_draft_waivers_is_incomplete_and_fails_the_gate(tmp_path: Path) -> None:
    draft = _draft(tmp_path)
    results = _run(_findings()[:5], draft)
    judged = judge_results(results)
    assert judged.verdict == INCOMPLETE and judged.reasons[0].startswith("expectations file has 5 draft waivers")
    assert not evaluate_gate(results).passed
    reviewed = tmp_path / "reviewed.toml"
    reviewed.write_text(draft.file.read_text().replace("\ndraft = true\n", "\n") if draft.file else "")
    assert judge_results(_run(_findings()[:5], Expectations.load(reviewed))).verdict == CONFORMANT


def test_waived_unclassified_tests_count_as_a_defect_each(tmp_path: Path) -> None:
    path = tmp_path / "expectations.toml"
    cases = ("fft.rfft_1d.f32", "fft.irfft_1d.f32", "fft.fft_1d.f32")
    tests = [wrong_values(f"{GOLDEN}[{case}]", [1.0, -2.0 - i, 3.5], np.array([1.0, 2.0, 3.0])) for i, case in
             enumerate(cases)]
    path.write_text("\n".join(f'[[expectation]]\nid = "{test.id}"\noutcome = "FAIL"\nreason = "r"\n'
                              f"cause = '{pinned_cause(Outcome.FAIL, test.message, test.details)}'\n" for test in tests))
    results = _run(tests, Expectations.load(path))
    judged = judge_results(results)
    assert judged.verdict == CONFORMANT and len(judged.waivers) == 3
    assert judged.line().endswith("3 waived defects (3 tests)")
    assert [row["defect"] for row in judged.waived_defects] == ["unclassified"] * 3
    assert not evaluate_gate(results, max_waived_defects=2, max_waivers=3).passed \
        and evaluate_gate(results, max_waived_defects=3, max_waivers=3).passed
    assert "3 waived defects" in badge_message(results)[0]
    assert run_summary(results).waived_defects == 3
