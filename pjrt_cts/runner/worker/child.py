"""A child that runs tests for its worker (an isolated test, a rerun of findings): each test timed on its own, its
reports to a file the worker reads (files/child_reports.py), not to the controller. The log and its markers are the
worker's or the fork server's to write."""
from __future__ import annotations

import faulthandler
import sys
from pathlib import Path
from typing import Iterator

import pytest

from pjrt_cts.runner.files.child_reports import append_event
from pjrt_cts.runner.spec import RunSpec
from pjrt_cts.runner.worker.timing import TestTimer, timeout_for


class ChildStream:
    """Streams the child's test starts and phase reports to `reports_path`, each as it comes."""

    def __init__(self, config: pytest.Config, reports_path: Path) -> None:
        self.config = config
        self.reports_path = reports_path

    def pytest_runtest_logstart(self, nodeid: str, location: tuple[str, int | None, str]) -> None:
        append_event(self.reports_path, {"event": "logstart", "nodeid": nodeid})

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        data = self.config.hook.pytest_report_to_serializable(config=self.config, report=report)
        append_event(self.reports_path, {"event": "report", "data": data})


class ChildTiming:
    """A child's tests: each timed on its own (the child's process ends with its tests)."""

    def __init__(self, spec: RunSpec) -> None:
        self.spec = spec
        self.timer = TestTimer()

    @pytest.hookimpl(trylast=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        # pytest's own faulthandler points at a copy of the original stderr; ours is the log.
        faulthandler.enable(file=sys.stderr, all_threads=True)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
        self.timer.start(timeout_for(item, self.spec))
        try:
            return (yield)
        finally:
            self.timer.stop()
