"""A death is confirmed in a child, not in a second session (controller/recorder.py, worker/routing.py): the
test a worker died in joins that worker's findings list, and a test rescheduled after a death runs in a forked child. The
end-to-end runs (a killed worker's test rerun by the next worker, a rerun that dies) are in test_confirmation_run.py."""
from __future__ import annotations

import io
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from pjrt_cts.judgment.outcomes import Outcome
from pjrt_cts.judgment.results import JsonlWriter
from pjrt_cts.runner.controller.recorder import Controller
from pjrt_cts.runner.controller.expectations import Expectations
from pjrt_cts.runner.controller.progress import Progress
from pjrt_cts.runner.records import PhaseResult, make_record
from pjrt_cts.runner.spec import RunSpec
from pjrt_cts.runner.worker.rerun_sharing import FINDINGS_SUFFIX
from pjrt_cts.runner.worker.routing import ChildRouting

NODEID = "suites/execute/test_golden_cases.py::test_case_matches_reference[spec.pad.s4]"


def _controller(log_dir: Path, *, reruns_in_workers: bool) -> Controller:
    return Controller(log_dir=log_dir, writer=JsonlWriter(log_dir / "results.jsonl"), expectations=Expectations(),
                      progress=Progress(io.StringIO(), enabled=False), repro=lambda nodeid: "", timeout=60.0,
                      workers=1, done_nodeids=set(), done_ids=[], reruns_in_workers=reruns_in_workers)


def _dead_worker(worker_id: str, pid: int) -> Any:
    return SimpleNamespace(gateway=SimpleNamespace(id=worker_id, _io=SimpleNamespace(popen=SimpleNamespace(pid=pid))))


def _worker(log_dir: Path) -> ChildRouting:
    spec = RunSpec(out_dir=str(log_dir.parent), log_dir=str(log_dir), rootdir=str(log_dir), timeout=60.0, child_args=[])
    return ChildRouting(spec, log_dir / "gw0.log")


def test_the_test_a_worker_died_in_joins_that_workers_findings(tmp_path: Path) -> None:
    controller = _controller(tmp_path, reruns_in_workers=True)
    crash = make_record(NODEID, PhaseResult(Outcome.CRASH, message="worker gw3 killed by SIGABRT"), repro="")
    controller._leave_for_rerun(controller._emit(crash), _dead_worker("gw3", 4242))
    assert (tmp_path / f"gw3-4242{FINDINGS_SUFFIX}").read_text(encoding="utf-8").split() == [NODEID]


def test_only_findings_and_only_when_workers_rerun_them(tmp_path: Path) -> None:
    passed = make_record(NODEID, PhaseResult(Outcome.PASS), repro="")
    controller = _controller(tmp_path, reruns_in_workers=True)
    controller._leave_for_rerun(controller._emit(passed), _dead_worker("gw1", 7))
    crash = make_record(NODEID + "x", PhaseResult(Outcome.CRASH, message="died"), repro="")
    second_session = _controller(tmp_path / "confirmation", reruns_in_workers=False)
    second_session._leave_for_rerun(second_session._emit(crash), _dead_worker("gw1", 7))
    assert not list(tmp_path.rglob(f"*{FINDINGS_SUFFIX}"))


def test_a_rescheduled_test_runs_in_a_child_from_the_controllers_next_write(tmp_path: Path) -> None:
    worker = _worker(tmp_path)
    item: Any = SimpleNamespace(nodeid=NODEID, get_closest_marker=lambda name: None)  # a collected item, unmarked
    assert not worker.runs_in_child(item)
    controller = _controller(tmp_path, reruns_in_workers=True)
    controller._contain(NODEID)
    assert worker.runs_in_child(item)
    other: Any = SimpleNamespace(nodeid=NODEID + "2", get_closest_marker=lambda name: None)
    assert not worker.runs_in_child(other)
    controller._contain(other.nodeid)
    assert worker.runs_in_child(other) and worker.runs_in_child(item)
