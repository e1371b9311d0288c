"""A child that runs tests for its worker (an isolated test, a rerun of findings): its reports go to a file the worker
reads (files/child_reports.py), not to the controller."""
from __future__ import annotations

from pathlib import Path

import pytest

from pjrt_cts.runner.files.child_reports import append_event


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
