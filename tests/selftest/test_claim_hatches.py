"""The escape hatches of the verdict's consumers (pjrt_cts/selftest/claim_hatches.py), tried on a run directory of
synthetic records with failures, as the selftest tries them on a mutant run's: each must be caught."""
from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path

import pytest

from pjrt_cts import __version__
from pjrt_cts.judgment.outcomes import Outcome
from pjrt_cts.judgment.results import build_results, load_results, write_results
from pjrt_cts.runner.binding import RunBinding
from pjrt_cts.runner.files.bundle import installed_suite
from pjrt_cts.schema import TestRecord
from pjrt_cts.selftest.claim_hatches import (FORGERY_HATCH, SKIP_HIDDEN_HATCH, SUMMARY_HATCH, contradicting_summary,
                                             failing_run, one_field_forgery, skip_hidden, skip_hidden_baseline,
                                             try_claim_hatches)

FAILING = ("execute.golden_cases.test_case_matches_reference[fft.fft.c64]",
           "execute.golden_cases.test_case_matches_reference[fft.ifft.c64]")
PASSING = ("abi.entry_point.test_get_pjrt_api_returns_a_table", "client.devices.test_devices_are_non_empty")


def _record(test_id: str, outcome: Outcome) -> TestRecord:
    module, name = test_id.split(".")[1], test_id.split(".", 2)[2]
    layer = test_id.split(".")[0]
    record = TestRecord(id=test_id, nodeid=f"suites/{layer}/test_{module}.py::{name}", layer=layer, outcome=outcome,
                        duration=0.1, repro=f"pjrt-cts run --id '{test_id}'")
    if outcome is Outcome.FAIL:
        record = dataclasses.replace(record, message="output 0: 8 of 8 values differ (c64): max abs err 2", defect="unclassified",
                                     details={"max_abs_err": 2.0, "max_rel_err": 1.0, "num_mismatches": 8,
                                              "first_mismatch_index": [0]})
    return record


def mutant_run(folder: Path) -> Path:
    """A mutant run directory as the selftest leaves it: results.json with its binding, two golden cases failing."""
    folder.mkdir(parents=True)
    plugin = folder / "libproxy.so"
    plugin.write_bytes(b"\x7fELF a stand-in proxy")
    digest = hashlib.sha256(plugin.read_bytes()).hexdigest()
    binding = {field.name: "" for field in dataclasses.fields(RunBinding)}
    binding.update(installed_suite(), plugin_sha256=digest, profile=None, create_options="{}", expectations_sha256="",
                   plugin_environment={}, user_settings={})
    tests = [_record(test_id, Outcome.FAIL) for test_id in FAILING] + [_record(t, Outcome.PASS) for t in PASSING]
    results = build_results(
        tool_version=__version__, started_at="2026-01-01T00:00:00+00:00", finished_at="2026-01-01T00:01:00+00:00",
        wall_seconds=60.0, command=["pjrt-cts", "run", str(plugin)], profile=None,
        plugin={"path": str(plugin), "sha256": digest}, environment={"python": "3.11", "cpu_count": 2},
        expectations={"file": None, "sha256": "", "unknown_patterns": [], "entries": []}, compatibility={},
        tests=tests, facts={"binding": binding, "selection": {"ids": list(FAILING + PASSING), "all_layers": False}})
    write_results(results, folder / "results.json")
    return folder


@pytest.fixture
def mutants(tmp_path: Path) -> Path:
    (tmp_path / "mutants" / "a_passing").mkdir(parents=True)  # no results: passed over
    mutant_run(tmp_path / "mutants" / "fft_wrong")
    return tmp_path / "mutants"


def test_the_first_mutant_run_with_failures_is_the_one_tried(mutants: Path) -> None:
    assert failing_run(mutants) == mutants / "fft_wrong"
    assert failing_run(mutants / "a_passing") is None


def test_a_hidden_failure_is_the_skip_record_an_expectations_skip_entry_gives() -> None:
    hidden = skip_hidden(_record(FAILING[0], Outcome.FAIL))
    assert (hidden.outcome, hidden.details, hidden.defect) == (Outcome.SKIP, {"deselected_by": "expectations"}, None)
    assert hidden.message.startswith("skipped by the expectations file") and hidden.id == FAILING[0]
    passing = _record(PASSING[0], Outcome.PASS)
    assert skip_hidden(passing) is passing


def test_each_hatch_is_caught_on_a_run_with_failures(mutants: Path, tmp_path: Path) -> None:
    run = mutants / "fft_wrong"
    hidden = skip_hidden_baseline(run)
    assert hidden.caught, hidden.evidence
    assert f"{len(FAILING)} FAIL hidden as SKIP: gate: FAIL · INCOMPLETE" in hidden.evidence
    assert f"{len(FAILING)} regression(s) against the baseline ({len(FAILING)} deselected)" in hidden.evidence
    forged = one_field_forgery(run, tmp_path / "work")
    assert forged.caught, forged.evidence
    assert f"records: {FAILING[0]}: PASS attributed to the defect unclassified" in forged.evidence
    assert load_results(run / "results.json").tests[0].outcome is Outcome.FAIL  # the run itself is left as it was
    summary = contradicting_summary(run, tmp_path / "work")
    assert summary.caught and summary.evidence.startswith("`pjrt-cts matrix` exit 2 for {'FAIL': 2, 'PASS': 2}")
    assert [hatch.name for hatch in try_claim_hatches(mutants, tmp_path)] == [SKIP_HIDDEN_HATCH, FORGERY_HATCH,
                                                                            SUMMARY_HATCH]


def test_without_a_run_with_failures_the_hatches_are_not_caught_and_say_why(tmp_path: Path) -> None:
    hatches = try_claim_hatches(tmp_path / "mutants", tmp_path)
    assert [hatch.caught for hatch in hatches] == [False] * 3
    assert all("has FAIL records to try it on" in hatch.evidence for hatch in hatches)
