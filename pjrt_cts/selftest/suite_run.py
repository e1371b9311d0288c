"""Run `pjrt-cts run` on a plugin (real, passthrough proxy or mutant) in a child process and read its outcomes."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from pjrt_cts.judgment.outcomes import Outcome
from pjrt_cts.judgment.results import ResultsError, load_results, read_jsonl
from pjrt_cts.schema import TestRecord


@dataclass
class SuiteSelection:
    layers: list[str]  # empty: every layer
    patterns: list[str]  # test-id patterns (`--id`); empty: every test of the layers


@dataclass
class SuiteJob:
    label: str
    plugin: Path
    env: dict[str, str]
    out_dir: Path
    selection: SuiteSelection
    test_timeout: float | None = None  # overrides the runner's per-test timeout
    confirm: bool = True  # False: `--no-confirmation` (a mutant judged by its records alone, Defect.confirm)
    # A baseline must finish: cut short, it leaves mandatory tests without a record and every mutant unjudged.
    baseline: bool = False


@dataclass
class SuiteRunResult:
    label: str
    out_dir: Path
    records: dict[str, TestRecord] = field(default_factory=dict)  # test id -> its results.json record
    exit_code: int | None = None
    wall_seconds: float = 0.0
    timed_out: bool = False  # the whole run overran its wall limit and was stopped
    error: str | None = None  # the run produced no usable results
    # The probe's card of the plugin the run tested (results.json `plugin`): what it offers decides which conditional
    # mandatory entries bind (pjrt_cts.judgment.levels.Condition). None: the run wrote no results.json.
    plugin: dict[str, Any] | None = None

    @property
    def outcomes(self) -> dict[str, str]:
        return {test_id: record.outcome.value for test_id, record in self.records.items()}

    @property
    def messages(self) -> dict[str, str]:
        return {test_id: record.message[:300] for test_id, record in self.records.items()}

    def ran_records(self) -> dict[str, TestRecord]:
        """Records of the tests that ran (deselected tests are recorded SKIP)."""
        return {test_id: record for test_id, record in self.records.items() if record.outcome is not Outcome.SKIP}

    def selected(self) -> dict[str, str]:
        """Outcomes of tests that ran."""
        return {test_id: record.outcome.value for test_id, record in self.ran_records().items()}


# A baseline's own wall limit, several times what a baseline takes on a loaded 2-core machine (docs/bench.md):
# only a plugin that hangs in every test would reach this.
BASELINE_WALL_LIMIT = 1200.0


@dataclass
class SuiteRunner:
    """How to start a suite run: the profile, workers and timeouts every run of one selftest shares."""

    profile: str | None = None
    workers: int = 1
    test_timeout: float = 30.0  # per test: a hanging mutant becomes TIMEOUT quickly
    wall_limit: float = 240.0  # per run: stopped (partial results kept) beyond this
    suites_dir: Path | None = None
    extra_env: dict[str, str] = field(default_factory=dict)

    def command(self, job: SuiteJob) -> list[str]:
        selection = job.selection
        command = [sys.executable, "-m", "pjrt_cts.cli.main", "run", str(job.plugin), "--out", str(job.out_dir),
                   "-n", str(self.workers), "--timeout", str(job.test_timeout or self.test_timeout), "--no-progress",
                   "--no-report"]
        if self.profile:
            command += ["--plugin", self.profile]
        if self.suites_dir:
            command += ["--suites-dir", str(self.suites_dir)]
        if selection.layers:
            command += ["--layers", ",".join(selection.layers)]
        for pattern in selection.patterns:
            command += ["--id", pattern]
        if not job.confirm:
            command.append("--no-confirmation")
        return command

    def start(self, job: SuiteJob) -> "RunningSuite":
        job.out_dir.mkdir(parents=True, exist_ok=True)
        log = open(job.out_dir / "selftest-run.log", "w")
        command = self.command(job)
        log.write(" ".join(command) + "\n")
        log.flush()
        process = subprocess.Popen(command, env={**os.environ, **self.extra_env, **job.env}, stdout=log,
                                   stderr=subprocess.STDOUT, start_new_session=True)
        return RunningSuite(job.label, job.out_dir, process, log, time.monotonic(), self.wall_limit_for(job))

    def wall_limit_for(self, job: SuiteJob) -> float:
        wall_limit = max(self.wall_limit, 3 * (job.test_timeout or 0.0))
        return max(wall_limit, BASELINE_WALL_LIMIT) if job.baseline else wall_limit

    def run(self, job: SuiteJob) -> SuiteRunResult:
        running = self.start(job)
        while not running.poll():
            time.sleep(0.2)
        return running.result()


@dataclass
class RunningSuite:
    label: str
    out_dir: Path
    process: subprocess.Popen
    log: object
    started: float
    wall_limit: float
    timed_out: bool = False

    def poll(self) -> bool:
        """True once the run has ended (stopping it first when it overran its wall limit)."""
        if self.process.poll() is not None:
            return True
        if time.monotonic() - self.started > self.wall_limit:
            self.timed_out = True
            self.stop()
            return True
        return False

    def stop(self) -> None:
        # The run is its own session (start_new_session): signal exactly that process group.
        for sig, wait in ((signal.SIGTERM, 15.0), (signal.SIGKILL, 5.0)):
            try:
                os.killpg(self.process.pid, sig)
            except ProcessLookupError:
                return
            try:
                self.process.wait(timeout=wait)
                return
            except subprocess.TimeoutExpired:
                continue

    def result(self) -> SuiteRunResult:
        self.log.close()  # type: ignore[attr-defined]  # the log is opened in start()
        result = SuiteRunResult(self.label, self.out_dir, exit_code=self.process.returncode,
                                wall_seconds=time.monotonic() - self.started, timed_out=self.timed_out)
        records, result.plugin = _read_records(self.out_dir)
        if records is None:
            tail = _tail(self.out_dir / "selftest-run.log")
            result.error = f"no results (exit code {self.process.returncode}): {tail}"
            return result
        result.records = {record.id: record for record in records if record.id}
        return result


def _read_records(out_dir: Path) -> tuple[list[TestRecord] | None, dict[str, Any] | None]:
    """Test records and the plugin card from results.json, or only the records from results.jsonl when the run was
    stopped early (no card: the run wrote no results.json)."""
    summary = out_dir / "results.json"
    if summary.is_file():
        try:
            results = load_results(summary)
            return list(results.tests), results.plugin
        except ResultsError:
            pass
    lines = out_dir / "results.jsonl"
    if not lines.is_file():
        return None, None
    return read_jsonl(lines), None  # drops a line cut short by the stop


def _tail(path: Path, lines: int = 8) -> str:
    try:
        return " | ".join(path.read_text(errors="replace").strip().splitlines()[-lines:])
    except OSError:
        return ""


def run_all(runner: SuiteRunner, jobs: Sequence[SuiteJob], parallel: int,
            on_done: Callable[[SuiteRunResult], None] | None = None) -> dict[str, SuiteRunResult]:
    """Run several suite runs, at most `parallel` at a time; `on_done(result)` after each."""
    pending = list(jobs)
    running: list[RunningSuite] = []
    results: dict[str, SuiteRunResult] = {}
    try:
        while pending or running:
            while pending and len(running) < max(1, parallel):
                running.append(runner.start(pending.pop(0)))
            for item in list(running):
                if item.poll():
                    running.remove(item)
                    result = item.result()
                    results[item.label] = result
                    if on_done:
                        on_done(result)
            time.sleep(0.2)
    finally:
        for item in running:  # interrupted: stop the runs this call started
            item.stop()
    return results
