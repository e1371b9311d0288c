"""An xdist worker's own process: its fd 1 and 2 go to `<worker>.log`, its collection and each test are timed (each test
bracketed by markers in the log), its collection is frozen for the garbage collector, its PJRT calls are counted, and
it leaves quickly once its session has ended well."""
from __future__ import annotations

import ctypes
import faulthandler
import gc
import logging
import os
import sys
import threading
from pathlib import Path
from typing import Callable, Iterator

import pytest

from pjrt_cts.runner import api_calls, crashlog
from pjrt_cts.runner.spec import RunSpec
from pjrt_cts.runner.worker.timing import (COLLECTION_TIMEOUT_SECONDS, ISOLATION_GRACE_SECONDS, TestTimer, redirect_output,
                                           timeout_for)


class WorkerTiming:
    """A worker's output goes to its log, its collection and each test are timed, each test is bracketed by markers."""

    def __init__(self, spec: RunSpec, log_path: Path, runs_in_child: Callable[[pytest.Item], bool]) -> None:
        self.spec = spec
        self.timer = TestTimer()
        self.runs_in_child = runs_in_child
        redirect_output(log_path)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        faulthandler.enable(file=sys.stderr, all_threads=True)  # the log (pytest's own points at the old stderr)

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


class WorkerExit:
    """A worker's process: its collection frozen for the collector, its calls counted, and a quick exit."""

    def __init__(self, spec: RunSpec, worker_id: str) -> None:
        api_calls.start_counting(Path(spec.log_dir), worker_id)  # its children inherit the directory

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        # The collection lives as long as the worker and is never garbage: frozen, the collector stops walking its
        # millions of objects again and again while tests run. Frozen as it is: the little garbage collecting made
        # (~12,000 objects) is not worth a full pass over the rest (~0.35 s).
        gc.freeze()
        gc.enable()

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        api_calls.stop_counting()  # what is left counted belongs to no test
        _session_over.set()


# Set once a worker's session has ended well (pytest_unconfigure): xdist has had the worker's last word.
_session_over = threading.Event()


def leave_without_freeing() -> None:
    """A worker whose session ended well leaves through the C library's `exit` after Python's exit handlers: the
    plugin's own exit handlers and destructors still run, but Python does not free the collection's millions of
    objects one by one first (~0.3 s at the end of a full run, while the controller waits for the last worker)."""
    if not _session_over.is_set():
        return  # ended otherwise: Python's own exit, with its status
    # The two handlers registered before this one (when the worker started) would run after it: logging's flush;
    # execnet's, which ends the gateways this process opened (a worker opens none).
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    try:
        libc = ctypes.PyDLL(None)  # holds the GIL: no other Python thread runs while the C library exits
    except OSError:
        return
    libc.exit(0)
