"""Per-test timeouts and the per-process stderr log: a hung test dies with a stack dump in its process's log, and the
log's markers say which test each line belongs to (runner/crashlog.py). No hooks: process.WorkerTiming (a worker)
and child.ChildTiming (a child that runs tests for its worker) arm the timer."""
from __future__ import annotations

import faulthandler
import os
import sys
import time
from pathlib import Path

import pytest

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


def redirect_output(log_path: Path) -> None:
    """fd 1 and 2 (the plugin's printf/stderr too) -> the worker log, so a crash leaves a tail."""
    log_path.parent.mkdir(parents=True, exist_ok=True)
    sys.stdout.flush()
    sys.stderr.flush()
    fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
