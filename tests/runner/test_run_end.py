"""The run's end: the last worker's findings shared with workers that have ended, and report.html written in a copy
of the controller beside results.json."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from pjrt_cts.report import html
from pjrt_cts.runner.controller.session import Run, RunOptions
from pjrt_cts.runner.worker import rerun_sharing
from pjrt_cts.runner.worker.rerun_sharing import (ENDING_SUFFIX, SHARED_SUFFIX, TESTING_SUFFIX, RerunSharing,
                                                  split_findings)

GOLDEN = "suites/execute/test_golden_cases.py::test_case_matches_reference[{}]"


def test_findings_split_at_program_boundaries_by_cost() -> None:
    a = [GOLDEN.format(f"a{i}") for i in range(3)]
    b = [GOLDEN.format(f"b{i}") for i in range(2)]
    others = [f"suites/client/test_x.py::test_{i}" for i in range(4)]
    units = {**{n: "golden:a" for n in a}, **{n: "golden:b" for n in b}}
    assert split_findings(a + b, units, 2) == [a, b]  # one program, one piece: never split inside it
    assert split_findings(a, units, 4) == [a]  # one program: no more pieces than programs
    # a program weighs 1, another finding 1/4: 1 + 2/4 and 2/4 + 1
    assert split_findings(a + others + b, units, 2) == [a + others[:2], others[2:] + b]
    assert split_findings(others, units, 1) == [others]
    assert split_findings([], units, 3) == [[]]


def _worker(log_dir: Path, items: list[str], units: dict[str, str | None] | None = None) -> RerunSharing:
    """A worker's side of the sharing: its log directory, its items and their programs."""
    return RerunSharing(log_dir, "gw0", collected=dict.fromkeys(items), units=units or {})


def _sleeper() -> Any:
    return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])


@pytest.fixture
def other_worker(monkeypatch: pytest.MonkeyPatch) -> Any:
    """A live process standing in for another worker of the run (its pid names its marker files; it counts as a child
    of the same controller)."""
    proc = _sleeper()
    real_alive = rerun_sharing._alive

    def alive(pid: int, parent: int | None = None) -> bool:  # its parent is this test's process, not the controller
        return real_alive(pid, os.getpid() if pid == proc.pid and parent is not None else parent)

    monkeypatch.setattr(rerun_sharing, "_alive", alive)
    yield proc
    proc.kill()
    proc.wait()


def test_findings_are_shared_only_with_workers_that_have_ended(tmp_path: Path, other_worker: Any) -> None:
    a, b = GOLDEN.format("a"), GOLDEN.format("b")
    worker = _worker(tmp_path, [a, b], {a: "golden:a", b: "golden:b"})
    marker = tmp_path / f"gw1-{other_worker.pid}"
    Path(f"{marker}{TESTING_SUFFIX}").touch()
    assert worker.share([a, b]) == [a, b]  # the other still runs tests: nothing to share with
    assert not list(tmp_path.glob(f"*{SHARED_SUFFIX}"))
    Path(f"{marker}{TESTING_SUFFIX}").rename(f"{marker}{ENDING_SUFFIX}")
    assert worker.share([a, b]) == [a]  # it has ended: the later piece is left for whoever is free first
    assert [p.read_text().split() for p in tmp_path.glob(f"*{SHARED_SUFFIX}")] == [[b]]
    claimer = _worker(tmp_path, [a, b])
    assert claimer.claim_shared() == [b]
    assert worker.claim_shared() == []  # claimed once
    assert not list(tmp_path.glob(f"*{SHARED_SUFFIX}*"))  # nor left behind in the run's logs


def test_a_worker_that_has_ended_waits_for_what_a_worker_still_testing_shares(tmp_path: Path, other_worker: Any,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    b = GOLDEN.format("b")
    worker = _worker(tmp_path, [b])
    testing = tmp_path / f"gw1-{other_worker.pid}{TESTING_SUFFIX}"
    testing.touch()
    polls = []

    def sleep(seconds: float) -> None:
        polls.append(seconds)
        if len(polls) == 3:  # the other worker ends its tests: it shares first, then stops counting as testing
            (tmp_path / f"gw1-{other_worker.pid}-1{SHARED_SUFFIX}").write_text(b + "\n")
            testing.unlink()

    monkeypatch.setattr(rerun_sharing, "time", SimpleNamespace(sleep=sleep))
    assert worker.next_batch() == [b]
    assert len(polls) == 3
    assert worker.next_batch() == []  # nobody tests any more, nothing is left: done, without waiting
    assert len(polls) == 3


def test_a_dead_worker_still_marked_testing_is_not_waited_for(tmp_path: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    (tmp_path / f"gw1-{proc.pid}{TESTING_SUFFIX}").touch()
    assert _worker(tmp_path, []).next_batch() == []


def test_a_marker_whose_process_id_is_another_process_now_is_not_waited_for(tmp_path: Path) -> None:
    """A marker an earlier run left in the same directory, whose pid a live process outside this run now has."""
    stranger = _sleeper()  # alive, but not a child of this worker's parent
    try:
        (tmp_path / f"gw1-{stranger.pid}{TESTING_SUFFIX}").touch()
        assert _worker(tmp_path, []).next_batch() == []
    finally:
        stranger.kill()
        stranger.wait()


def _run(tmp_path: Path) -> Run:
    return Run(RunOptions(plugin_path=tmp_path / "plugin.so", suites_dir=tmp_path, layers=[], out_dir=tmp_path))


def test_the_report_is_written_by_a_copy_of_the_controller(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def write_report(results: Any, path: Path) -> None:
        path.write_text(str(os.getpid()))

    monkeypatch.setattr(html, "write_report", write_report)
    finish = _run(tmp_path)._start_report(results=None)  # type: ignore[arg-type]  # the stand-in writer reads no results
    assert finish() == f"  report: {tmp_path / 'report.html'}"
    assert int((tmp_path / "report.html").read_text()) != os.getpid()


def test_a_report_the_copy_could_not_write_is_written_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    controller = os.getpid()

    def write_report(results: Any, path: Path) -> None:
        if os.getpid() != controller:
            raise RuntimeError("the copy fails")
        path.write_text(str(os.getpid()))

    monkeypatch.setattr(html, "write_report", write_report)
    finish = _run(tmp_path)._start_report(results=None)  # type: ignore[arg-type]  # the stand-in writer reads no results
    assert finish() == f"  report: {tmp_path / 'report.html'}"
    assert int((tmp_path / "report.html").read_text()) == controller


_EXITING_WORKER = """
import atexit, sys
from pjrt_cts.runner.worker import process
atexit.register(process.leave_without_freeing)  # as a worker registers it: before the others
atexit.register(lambda: open(sys.argv[2], "w").write("a later exit handler ran"))  # e.g. calltimes' writer
if sys.argv[1] == "over":
    process._session_over.set()
sys.stdout.write("still buffered")
sys.exit(3)
"""


@pytest.mark.parametrize("session", ["over", "not over"])
def test_a_worker_whose_session_ended_leaves_without_freeing_after_the_exit_handlers(tmp_path: Path,
                                                                                      session: str) -> None:
    written = tmp_path / "handler.txt"
    proc = subprocess.run([sys.executable, "-c", _EXITING_WORKER, session, str(written)], capture_output=True,
                          text=True, timeout=60)
    assert written.read_text() == "a later exit handler ran"
    assert proc.stdout == "still buffered"
    # Through the C library's exit once the session is over (a worker's status is 0 then); else Python's own exit.
    assert proc.returncode == (0 if session == "over" else 3), proc.stderr
