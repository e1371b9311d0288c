"""How a bare pytest run of the suites (pjrt_cts.cli.pytest_plugin) runs and shows each test: isolated tests in a
child as the runner runs them, each test's record made and judged by the runner's own code, shown by the runner's
outcome names."""
from __future__ import annotations

import copy
import dataclasses
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from pjrt_cts.runner.controller.session import RunOptions
    from pjrt_cts.runner.spec import RunSpec
    from pjrt_cts.schema import TestRecord

JUDGED = "pjrt_cts_judged"  # a report's attribute: the record as judged so far ({"id", "outcome", "message", ...})
# How pytest's terminal shows each outcome: (category counted in the summary line, letter, word). The categories
# pytest knows keep their meaning (a "failed" fails the session); the others are counted under the runner's names.
_STATUS: dict[str, tuple[str, str, str]] = {
    "PASS": ("passed", ".", "PASS"),
    "FAIL": ("failed", "F", "FAIL"),
    "ERROR": ("error", "E", "ERROR"),
    "SKIP": ("skipped", "s", "SKIP"),
    "NOT_SUPPORTED": ("NOT_SUPPORTED", "N", "NOT_SUPPORTED"),
    "WARNING": ("WARNING", "W", "WARNING"),
    "SHARED_DEVIATION": ("SHARED_DEVIATION", "D", "SHARED_DEVIATION"),
    "XFAIL": ("xfailed", "x", "XFAIL"),
    "XPASS": ("failed", "X", "XPASS"),
}

_NOT_FINDINGS = frozenset({"SKIP", "NOT_SUPPORTED", "XFAIL"})  # what -q leaves out of the outcomes section


def runner_nodeid(item: pytest.Item) -> str:
    """The node id `pjrt-cts run` gives `item` (`suites/<layer>/test_x.py::...`, relative to the suites' parent),
    whatever the rootdir of this pytest run: test ids and expectations are made from it."""
    parts = item.path.parts
    below = [index for index, part in enumerate(parts[:-1]) if part == "suites"]
    if not below or "::" not in item.nodeid:
        return item.nodeid
    return "/".join(parts[below[-1]:]) + "::" + item.nodeid.split("::", 1)[1]


class BareRun:
    """Runs isolated tests in a child as the runner does, judges each test as the runner does and shows it by the
    runner's outcome names."""

    def __init__(self, options: RunOptions, rootdir: Path, judging: bool) -> None:
        self.options = options
        self.rootdir = rootdir
        self.expectations = options.expectations
        self.judging = judging
        self.items: dict[str, pytest.Item] = {}
        self.phases: dict[str, dict[str, pytest.TestReport]] = {}  # node id -> phase -> report as pytest made it
        self.findings: list[dict[str, Any]] = []  # judged records that are not PASS, for the terminal summary
        self.spec: RunSpec | None = None

    @pytest.hookimpl(trylast=True)  # after the suites' own ordering: only adds marks
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        """An expectations entry that says SKIP leaves its tests out, as a run does (with the same message)."""
        from pjrt_cts.judgment.outcomes import test_id_from_nodeid
        from pjrt_cts.runner.controller.expectations import skip_reason

        self.items = {item.nodeid: item for item in items}
        skips = self.expectations.skip_patterns()
        for item in items if skips else ():
            reason = skip_reason(test_id_from_nodeid(runner_nodeid(item)), skips)
            if reason:
                item.add_marker(pytest.mark.skip(reason=reason))

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
        """A test marked isolated (it may crash the plugin) runs in a child process of its own, as in a run: the
        runner's isolation (pjrt_cts.runner.worker.isolation) with the child's output in the run's log, so that a death
        is a CRASH or TIMEOUT record with its signal and stderr."""
        from pjrt_cts.runner import crashlog
        from pjrt_cts.runner.worker import isolation
        from pjrt_cts.runner.worker.routing import is_isolated

        if not is_isolated(item):
            return None
        spec = self._spec()
        log_path = Path(spec.log_dir) / "isolated.log"
        with open(log_path, "ab") as log:
            saved = os.dup(2)
            os.dup2(log.fileno(), 2)  # the child (and the spare it leaves) write there: crashlog reads it
            try:
                os.write(2, crashlog.start_marker(item.nodeid))
                isolation.run_in_fresh_process(item, nextitem, spec, log_path)
                os.write(2, crashlog.end_marker(item.nodeid))
            finally:
                os.dup2(saved, 2)
                os.close(saved)
        return True

    def _spec(self) -> RunSpec:
        """The spec of the runner's isolated children, written once (in the run's temporary output directory)."""
        if self.spec is None:
            from pjrt_cts.runner.controller.session import Run

            run = Run(self.options)
            spec = run.spec([])
            # Node ids here are relative to this session's rootdir (the suites directory, where their pytest.ini is,
            # or above it), not to the suites' parent as in a run: the child runs from there and makes the same ones.
            rootdir = str(self.rootdir)
            args = list(spec.child_args)
            args[args.index("--rootdir") + 1] = rootdir
            self.spec = dataclasses.replace(spec, rootdir=rootdir, child_args=args)
            Path(self.spec.log_dir).mkdir(parents=True, exist_ok=True)
            self.spec.write(run.run_dir / "spec.json")
        return self.spec

    def pytest_unconfigure(self) -> None:
        if self.spec is not None:
            from pjrt_cts.runner.worker import isolation

            isolation.discard_spare()

    @pytest.hookimpl(tryfirst=True)  # before the terminal shows the report and the session counts it
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if isinstance(report.longrepr, list):  # a skip an isolated child streamed: its (path, line, reason) went by
            # JSON, and pytest_report_from_serializable (files/child_reports.py) keeps the list; the terminal wants a tuple
            report.longrepr = tuple(report.longrepr)
        if self.judging:
            phases = self.phases.setdefault(report.nodeid, {})
            phases[report.when] = copy.copy(report)  # as made: later phases are judged from these, not the shown ones
            if report.when == "teardown":
                del self.phases[report.nodeid]
            if report.when == "call" or (report.when == "setup" and not report.passed):  # what pytest shows
                _show(report, self.judge(report.nodeid, phases))
        judged = getattr(report, JUDGED, None)
        if judged and judged["outcome"] != "PASS":
            self.findings.append(judged)

    def judge(self, nodeid: str, phases: dict[str, pytest.TestReport]) -> TestRecord:
        """The record `pjrt-cts run` would make of these phase reports, with the judgments one test allows."""
        from pjrt_cts.runner.controller.consistency import apply_consistency
        from pjrt_cts.runner.controller.expectations import apply_expectation
        from pjrt_cts.runner.records import make_record, result_of_phases

        item = self.items.get(nodeid)
        record = make_record(runner_nodeid(item) if item is not None else nodeid, result_of_phases(phases), repro="")
        (record,) = apply_consistency([record])
        return apply_expectation(record, self.expectations)

    @pytest.hookimpl(tryfirst=True)
    def pytest_report_teststatus(self, report: pytest.TestReport) -> tuple[str, str, str] | None:
        judged = getattr(report, JUDGED, None)
        return _STATUS.get(judged["outcome"]) if judged else None

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """Each test that did not pass, with its cause, defect and waiver; with -q, only the findings."""
        quiet = terminalreporter.verbosity < 0
        shown = [judged for judged in self.findings if not (quiet and judged["outcome"] in _NOT_FINDINGS)]
        if not shown:
            return
        terminalreporter.section("pjrt-cts outcomes (as `pjrt-cts run` records them)")
        for judged in shown:
            notes = [f"defect {judged['defect']}"] if judged.get("defect") else []
            if judged.get("waiver"):
                notes.append(f"waived: {judged['waiver'][:160]}")
            message = (judged["message"] or "").strip().splitlines()
            line = f"{judged['outcome']} {judged['id']}" + (f": {message[0][:240]}" if message else "")
            terminalreporter.write_line(line + (f" ({'; '.join(notes)})" if notes else ""))


def _show(report: pytest.TestReport, record: TestRecord) -> None:
    """Put the record's outcome on the report pytest shows, and make pytest count it as the runner does: a waived
    failure (XFAIL) is pytest's xfail, a waived test that passed (XPASS: a stale waiver) and a NOT_SUPPORTED the
    consistency rules turn into a FAIL fail the session."""
    from pjrt_cts.judgment.outcomes import Outcome

    outcome = record.outcome
    expected = record.expected
    setattr(report, JUDGED, {"id": record.id, "outcome": outcome.value, "message": record.message,
                             "defect": record.defect, "waiver": expected.reason if expected is not None else None})
    if outcome is Outcome.XFAIL and report.failed:
        report.outcome = "skipped"
        report.wasxfail = expected.reason if expected is not None else ""
    elif outcome in (Outcome.XPASS, Outcome.FAIL) and not report.failed:
        report.outcome = "failed"
        report.longrepr = f"{outcome.value}: {record.message}" if record.message else (
            f"{outcome.value}: the expectation waives a failure this test did not show"
            f" ({expected.pattern if expected is not None else ''})")
