"""The controller's record of a dead worker's test comes from xdist's public `pytest_handlecrashitem` hook; the
report xdist logs after it is not recorded twice."""
from __future__ import annotations

import io
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from pjrt_cts.judgment.outcomes import Outcome
from pjrt_cts.judgment.results import JsonlWriter, read_jsonl
from pjrt_cts.runner.controller.expectations import Expectations
from pjrt_cts.runner.controller.progress import Progress
from pjrt_cts.runner.controller.recorder import Controller

NODEID = "suites/execute/test_x.py::test_y[a]"


def _report(nodeid: str, when: str, outcome: str = "passed", node: Any = None) -> pytest.TestReport:
    report = pytest.TestReport(nodeid=nodeid, location=("x.py", 1, "test_y"), keywords={}, outcome=outcome,
                               longrepr=None if outcome == "passed" else "crash", when=when, duration=0.25)  # type: ignore[arg-type]  # "???": xdist's phase for a dead worker's test
    report.node = node  # type: ignore[attr-defined]  # as xdist's DSession sets it
    return report


def test_a_dead_workers_test_is_recorded_once_and_timed_from_the_workers_last_report(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    controller = Controller(log_dir=tmp_path, writer=JsonlWriter(tmp_path / "results.jsonl"),
                            expectations=Expectations(), progress=Progress(io.StringIO(), enabled=False),
                            repro=lambda nodeid: "", timeout=60.0, workers=1, done_nodeids=set(), done_ids=[],
                            reruns_in_workers=False)
    node = SimpleNamespace(gateway=SimpleNamespace(id="gw0", _io=SimpleNamespace(popen=SimpleNamespace(
        pid=4242, returncode=-6, poll=lambda: -6, wait=lambda timeout=None: -6))))
    now = [100.0]
    monkeypatch.setattr("pjrt_cts.runner.controller.recorder.time.monotonic", lambda: now[0])
    for when in ("setup", "call", "teardown"):
        controller.pytest_runtest_logreport(_report(NODEID, when, node=node))
    controller.pytest_runtest_logfinish(NODEID, ("x.py", 1, "test_y"))
    now[0] = 107.5
    dying = NODEID.replace("[a]", "[b]")
    died = _report(dying, "???", "failed", node)  # what xdist makes for the pending test of a dead worker
    controller.pytest_handlecrashitem(dying, died, sched=SimpleNamespace())  # a scheduler that cannot reschedule
    controller.pytest_runtest_logreport(died)  # xdist logs it next
    records = [record for record in read_jsonl(tmp_path / "results.jsonl")]
    assert [record.nodeid for record in records] == [NODEID, dying]
    assert records[0].outcome is Outcome.PASS and records[0].duration == pytest.approx(0.75)
    assert records[1].outcome is Outcome.CRASH and records[1].duration == pytest.approx(7.5)
    assert records[1].details["exit_status"] == -6 and records[1].details["signal"] == "SIGABRT"
