"""A fork server for isolated tests: a copy of the worker taken right after collection.

An isolated test needs a process that has never loaded the plugin (and so does the rerun of a finding: see
worker_plugin.WorkerPlugin.confirm_findings). Starting Python and pytest and collecting
the test's module again costs ~1.5 s per test (the manifest of the corpus alone is ~0.7 s), for tests that
themselves take ~0.1 s (a program that aborts XLA's compiler). A worker has collected everything and has not
loaded the plugin yet when collection finishes (the suites load it lazily, in fixtures), so it forks a server
then: one thread (the worker's other thread, execnet's reader, is not copied), every module imported, every
item collected. For each isolated test the server forks a child that runs just that item's protocol as the
`child` role does (reports streamed to a file, the worker's log as its stdout and stderr) and exits through
the C library's `exit` (so the plugin's own exit handlers still run, as they would in a fresh process).

The server is a child of the worker; each test's process is a child of the server, which reports its pid and
exit status back over a pipe. Where `fork` does not exist, or the server died, the worker starts a fresh
Python process instead (isolation.py).
"""
from __future__ import annotations

import ctypes
import gc
import json
import os
import signal
import sys
import warnings
from pathlib import Path
from typing import Any, Sequence

import pytest

from pjrt_cts.fuzz.harness import LineReader
from pjrt_cts.runner import crashlog
from pjrt_cts.runtime import calltimes

_server: ForkServer | None = None
_FORK_ANSWER_SECONDS = 120.0  # the server forks at once; no pid by then means it is stuck


class ForkServer:
    def __init__(self, pid: int, requests: int, replies: int) -> None:
        self.pid = pid
        self.requests = requests
        self.replies = replies
        self._reader = LineReader(replies)

    def run(self, nodeids: Sequence[str], reports_path: Path, timeout: float) -> tuple[int, bool] | None:
        """Run the items, one after the other, in one forked child: (its exit status as subprocess gives it, killed
        for overrunning `timeout`), or None when the server is gone (the caller starts a fresh process instead)."""
        try:
            request = {"nodeids": list(nodeids), "reports": str(reports_path)}
            os.write(self.requests, (json.dumps(request) + "\n").encode())
            started = self._reply(_FORK_ANSWER_SECONDS)
        except OSError:
            return None
        if started is None or started[0] != "started":
            return None
        pid = int(started[1])
        killed = False
        exited = self._reply(timeout)
        if exited is None:  # overran its time (or the server stopped answering): kill it, then read its end
            killed = True
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
            exited = self._reply(30.0)
        if exited is None or exited[0] != "exited":
            return None
        return int(exited[2]), killed

    def _reply(self, timeout: float) -> list[str] | None:
        try:
            line = self._reader.readline(timeout)
        except TimeoutError:
            return None
        return line.split() if line is not None else None

    def close(self) -> None:
        for fd in (self.requests, self.replies):
            try:
                os.close(fd)
            except OSError:
                pass
        try:
            os.waitpid(self.pid, 0)
        except OSError:
            pass


def start(session: pytest.Session) -> None:
    """Fork the server (worker role, at the end of collection, before any test ran)."""
    global _server
    if _server is not None or not hasattr(os, "fork"):
        return
    request_read, request_write = os.pipe()
    reply_read, reply_write = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # "multi-threaded, fork() may deadlock": see the docstring
        pid = os.fork()
    if pid == 0:
        code = 0
        try:
            os.close(request_write)
            os.close(reply_read)
            _detach_from_worker(keep={1, 2, request_read, reply_write})
            _serve(session, request_read, reply_write)
        except BaseException:  # noqa: BLE001 - the server's end: the worker falls back to fresh processes
            code = 1
        os._exit(code)
    os.close(request_read)
    os.close(reply_write)
    _server = ForkServer(pid, request_write, reply_read)


def server() -> ForkServer | None:
    return _server


def stop() -> None:
    """At worker exit: the server reads end-of-file and leaves."""
    global _server
    if _server is not None:
        _server.close()
        _server = None


def _detach_from_worker(keep: set[int]) -> None:
    """Point every inherited descriptor but the log and the server's pipes at /dev/null: the worker's pipes to
    the controller must close when the worker dies, and no object of the copy may write to them. The numbers
    stay taken, so no later file reuses one that a copied Python object still believes it owns."""
    null = os.open(os.devnull, os.O_RDWR)
    try:
        fds = [int(name) for name in os.listdir("/proc/self/fd")]
    except OSError:
        fds = list(range(0, 1024))
    for fd in fds:
        if fd in keep or fd == null:
            continue
        try:
            os.dup2(null, fd)
        except OSError:
            pass
    os.close(null)


def _serve(session: pytest.Session, request_read: int, reply_write: int) -> None:
    # What the worker collected is never garbage: frozen, the collector of each test's process does not walk
    # (and so copy, page by page) the millions of objects of the collection (~0.5 s per test otherwise).
    gc.freeze()
    items = {item.nodeid: item for item in session.items}
    with os.fdopen(request_read, "r", encoding="utf-8") as requests:
        for line in requests:
            request = json.loads(line)
            chosen = [items[nodeid] for nodeid in request["nodeids"] if nodeid in items]
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                os.close(reply_write)
                _exit_process(_run_items(chosen, Path(request["reports"])) if chosen else 2)
            os.write(reply_write, f"started {pid}\n".encode())
            _, status = os.waitpid(pid, 0)
            os.write(reply_write, f"exited {pid} {os.waitstatus_to_exitcode(status)}\n".encode())


def _run_items(items: list[pytest.Item], reports_path: Path) -> int:
    """In the forked process: become an isolated child (reports to a file, none to the controller) and run the
    items in order, as a fresh worker would (session fixtures such as the client are shared between them)."""
    from pjrt_cts.runner.worker_plugin import PLUGIN_NAME

    manager = items[0].config.pluginmanager
    for plugin in list(manager.get_plugins()):
        if type(plugin).__name__ == "WorkerInteractor":  # xdist's channel to the controller belongs to the worker
            manager.unregister(plugin)
    worker: Any = manager.get_plugin(PLUGIN_NAME)
    worker.role = "child"
    worker.child_reports = reports_path
    try:
        for item, nextitem in zip(items, [*items[1:], None]):
            # Each test's part of the log is its own: a death reads its tail from its start marker (crashlog).
            os.write(2, crashlog.start_marker(item.nodeid))
            item.ihook.pytest_runtest_protocol(item=item, nextitem=nextitem)
            os.write(2, crashlog.end_marker(item.nodeid))
    except BaseException:  # noqa: BLE001 - pytest's own failure, not the test's: the worker reports an ERROR
        import traceback

        traceback.print_exc()
        return 1
    return 0


def _exit_process(code: int) -> None:
    """Leave as a fresh process would at its end: the C library's exit runs the plugin's exit handlers (a crash
    there is the test's "crashed at exit"), without finalizing the interpreter copied from the worker."""
    try:
        calltimes.write_now()  # Python's exit handlers do not run here (benchmarks only: PJRT_CTS_CALL_TIMES)
        sys.stdout.flush()
        sys.stderr.flush()
        ctypes.CDLL(None).exit(code)
    finally:
        os._exit(code)
