"""Escape hatches of the verdict's consumers (issue 53): ways to show a broken plugin as conformant that no plugin
defect causes, through what reads a run's records -- the gate, `verify`, the matrix. Each is tried on the records of
a real run with failures (a mutant run of this selftest) and must be refused:

- `skip_hidden_baseline`: the run's FAIL records become the SKIP records a run whose expectations file names them
  in SKIP entries writes ("skipped by the expectations file"); `pjrt-cts gate` against the run as baseline must
  fail -- with `--allow-partial` too, on the "deselected" regressions -- and its headline must show no level.
- `one_field_forgery`: only `outcome` of the FAIL records turned PASS (their messages, defects and numeric diffs
  kept), every summary recomputed with pjrt-cts's own functions and the run packed as a bundle: `pjrt-cts verify`
  must refuse it, naming the records.
- `contradicting_summary`: the run's summary.json made to claim `CONFORMANT · level Multi-device · spec ✓` beside
  its own outcome counts: `pjrt-cts matrix` must refuse it (exit 2).
"""
from __future__ import annotations

import dataclasses
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from pjrt_cts.judgment.outcomes import Outcome
from pjrt_cts.selftest.run_hatches import HatchResult
from pjrt_cts.schema import Results, TestRecord

SKIP_HIDDEN_HATCH = "skip_hidden_baseline"
FORGERY_HATCH = "one_field_forgery"
SUMMARY_HATCH = "contradicting_summary"
_HIDDEN_REASON = "skipped by the expectations file: known failures"


def failing_run(mutants: Path) -> Path | None:
    """The first mutant run directory (by name) whose results.json has FAIL records and a binding to bundle."""
    from pjrt_cts.judgment.results import ResultsError, load_results

    for out in sorted(path for path in mutants.glob("*") if (path / "results.json").is_file()):
        try:
            results = load_results(out / "results.json")
        except ResultsError:
            continue
        if results.binding and any(test.outcome is Outcome.FAIL for test in results.tests):
            return out
    return None


def skip_hidden(test: TestRecord) -> TestRecord:
    """`test` as a run records it when its expectations file has a SKIP entry for it (runner.controller)."""
    from pjrt_cts.runner.records import PhaseResult, make_record

    if test.outcome is not Outcome.FAIL:
        return test
    skipped = PhaseResult(Outcome.SKIP, message=_HIDDEN_REASON, tags=list(test.tags),
                          details={"deselected_by": "expectations"})
    return make_record(test.nodeid, skipped, test.repro, test_id=test.id)


def skip_hidden_baseline(run: Path) -> HatchResult:
    from pjrt_cts.judgment.results import load_results
    from pjrt_cts.report.diff import ChangeKind
    from pjrt_cts.report.gate import evaluate_gate

    description = "a run whose failures a SKIP entry of the expectations file hides, gated against its own records"
    baseline = load_results(run / "results.json")
    hidden = dataclasses.replace(baseline, tests=tuple(skip_hidden(test) for test in baseline.tests))
    failures = sum(1 for test in baseline.tests if test.outcome is Outcome.FAIL)
    gate = evaluate_gate(hidden, baseline=baseline)
    partial = evaluate_gate(hidden, baseline=baseline, allow_partial=True)
    deselected = partial.diff.kind_counts.get(ChangeKind.DESELECTED, 0) if partial.diff else 0
    caught = not gate.passed and not partial.passed and deselected == failures and "level" not in gate.headline
    return HatchResult(SKIP_HIDDEN_HATCH, description, caught,
                       f"{failures} FAIL hidden as SKIP: {gate.headline}; with --allow-partial "
                       f"{'passed' if partial.passed else 'failed'}: {'; '.join(partial.failures)[:300]}")


def one_field_forgery(run: Path, work: Path) -> HatchResult:
    from pjrt_cts.runner.files.bundle import pack_bundle, verify_bundle

    description = "the FAIL records' outcome alone flipped to PASS, every summary recomputed, packed and verified"
    out = _forged_copy(run, work / FORGERY_HATCH, _flip_failures)
    bundle = work / FORGERY_HATCH / "forged.zip"
    pack_bundle(out, bundle)
    found = verify_bundle(bundle)
    refused = [check for check in found.checks if check.status == "FAIL"]
    caught = not found.holds and any(check.name == "records" for check in refused)
    return HatchResult(FORGERY_HATCH, description, caught, found.conclusion()[:400])


def contradicting_summary(run: Path, work: Path) -> HatchResult:
    from pjrt_cts.judgment.results import load_results
    from pjrt_cts.judgment.summary import run_summary

    description = "a summary.json claiming CONFORMANT · level Multi-device · spec ✓ beside its own outcome counts"
    honest = run_summary(load_results(run / "results.json"))
    claimed = dataclasses.replace(honest, verdict="CONFORMANT", level="Multi-device",
                                  levels=("Core", "Full", "Multi-device"), spec_mark="spec ✓", reasons=(),
                                  line="CONFORMANT · level Multi-device · spec ✓")
    folder = work / SUMMARY_HATCH
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    (folder / "summary.json").write_text(claimed.dumps(), encoding="utf-8")
    matrix = subprocess.run([sys.executable, "-m", "pjrt_cts", "matrix", str(folder / "summary.json"), "--markdown",
                             "-o", str(folder / "matrix.md")], capture_output=True, text=True, timeout=120, check=False)
    said = (matrix.stdout + matrix.stderr).strip().splitlines()
    return HatchResult(SUMMARY_HATCH, description, matrix.returncode == 2,
                       f"`pjrt-cts matrix` exit {matrix.returncode} for {honest.outcomes} claimed as {claimed.line}: "
                       + (said[-1][:300] if said else ""))


def _flip_failures(test: TestRecord) -> TestRecord:
    return dataclasses.replace(test, outcome=Outcome.PASS) if test.outcome is Outcome.FAIL else test


def _forged_copy(run: Path, folder: Path, change: Callable[[TestRecord], TestRecord]) -> Path:
    """A run directory holding `run`'s results with `change` applied to each record, results.json's summary and
    summary.json recomputed by pjrt-cts's own functions (build_results, run_summary)."""
    from pjrt_cts.judgment.results import build_results, load_results, write_results
    from pjrt_cts.judgment.summary import run_summary, write_summary

    real = load_results(run / "results.json")
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    forged: Results = build_results(
        tool_version=str((real.tool or {}).get("version")), started_at=str(real.started_at),
        finished_at=str(real.finished_at), wall_seconds=float(real.wall_seconds or 0.0),
        command=list(real.command or []), profile=real.profile, plugin=dict(real.plugin or {}),
        environment=dict(real.environment or {}), expectations=dict(real.expectations or {}),
        compatibility=dict(real.compatibility or {}), tests=[change(test) for test in real.tests],
        facts={"binding": real.binding, "selection": real.selection, "confirmation": real.confirmation})
    write_results(forged, folder / "results.json")
    write_summary(run_summary(forged), folder / "summary.json")
    return folder


def try_claim_hatches(mutants: Path, out: Path) -> list[HatchResult]:
    """Each hatch on the first mutant run with FAIL records; not caught (with why) when there is none."""
    run = failing_run(mutants)
    if run is None:
        why = f"no mutant run under {mutants} has FAIL records to try it on"
        return [HatchResult(name, "needs a run with FAIL records", False, why)
                for name in (SKIP_HIDDEN_HATCH, FORGERY_HATCH, SUMMARY_HATCH)]
    work = out / "claim-hatches"
    return [skip_hidden_baseline(run), one_field_forgery(run, work), contradicting_summary(run, work)]
