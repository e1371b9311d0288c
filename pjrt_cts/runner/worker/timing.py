"""Per-test timeouts and the per-process stderr log: a hung test dies with a stack dump in its process's log, and the
log's markers say which test each line belongs to (runner/crashlog.py).

`WorkerTiming` in an xdist worker (its fd 1 and 2 go to `<worker>.log`; each test is bracketed by markers and timed,
collection too); `ChildTiming` in a child that runs tests for its worker (the log is its worker's, markers are the
worker's or the fork server's to write)."""
from __future__ import annotations

import faulthandler
import os
import sys
import time
from pathlib import Path
from typing import Callable, Iterator

import pytest

from pjrt_cts.runner import crashlog
from pjrt_cts.runner.crashlog import TIMER_SLACK
from pjrt_cts.runner.spec import RunSpec
COLLECTION_TIMEOUT_SECONDS = 600.0  # a worker stuck importing suites dies with a stack dump
ISOLATION_GRACE_SECONDS = 10.0  # a worker waits this much longer for a child than the child's own timer


def timeout_for(item: pytest.Item, spec: RunSpec) -> float:
    mark = item.get_closest_marker("timeout")
    if mark is not None and mark.args:
        try:
            return float(mark.args[0])
        except (TypeError, ValueError):
            pass
    return spec.timeout


class TestTimer:
    """The per-test timeout: faulthandler's C timer, which fires even while plugin code holds the GIL.

    Re-arming faulthandler starts a new watchdog thread (~0.7 ms, paid by every one of ~10,000 tests), so the
    timer is armed for `TIMER_SLACK` x the test's timeout and re-armed only when less than the timeout is left
    (or the timeout differs): every test still gets its full timeout, and a hung test is killed between its
    timeout and TIMER_SLACK x its timeout after it began."""

    def __init__(self) -> None:
        self.deadline: float | None = None
        self.armed_for: float | None = None

    def start(self, timeout: float) -> None:
        now = time.monotonic()
        if self.deadline is not None and self.armed_for == timeout and self.deadline - now >= timeout:
            return
        span = timeout * TIMER_SLACK
        faulthandler.dump_traceback_later(span, exit=True, file=sys.stderr)
        self.deadline, self.armed_for = now + span, timeout

    def stop(self) -> None:
        faulthandler.cancel_dump_traceback_later()
        self.deadline = self.armed_for = None


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


class WorkerTiming(ChildTiming):
    """A worker's output goes to its log, its collection and each test are timed, each test is bracketed by markers."""

    def __init__(self, spec: RunSpec, log_path: Path, runs_in_child: Callable[[pytest.Item], bool]) -> None:
        super().__init__(spec)
        self.runs_in_child = runs_in_child
        redirect_output(log_path)

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection(self, session: pytest.Session) -> None:
        self.timer.start(max(COLLECTION_TIMEOUT_SECONDS, self.spec.timeout))

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.timer.stop()

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
        timeout = timeout_for(item, self.spec)
        if self.runs_in_child(item):
            timeout += ISOLATION_GRACE_SECONDS * 2  # backstop only: the child has its own timer
        os.write(2, crashlog.start_marker(item.nodeid))
        self.timer.start(timeout)
        try:
            return (yield)
        finally:
            if nextitem is None:  # nothing queued: the worker may wait, untimed
                self.timer.stop()
            os.write(2, crashlog.end_marker(item.nodeid))


def redirect_output(log_path: Path) -> None:
    """fd 1 and 2 (the plugin's printf/stderr too) -> the worker log, so a crash leaves a tail."""
    log_path.parent.mkdir(parents=True, exist_ok=True)
    sys.stdout.flush()
    sys.stderr.flush()
    fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
