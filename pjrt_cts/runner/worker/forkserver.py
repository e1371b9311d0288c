"""A fork server for isolated tests: a copy of the worker taken right after collection.

An isolated test needs a process that has never loaded the plugin (and so does the rerun of a finding: see
reruns.Reruns.confirm_findings). Starting Python and pytest and collecting
the test's module again costs many times what such a test takes (a program that aborts XLA's compiler): figures
in docs/bench.md. A worker has collected everything and has not
loaded the plugin yet when collection finishes (the suites load it lazily, in fixtures), so it forks a server
then: one thread (the worker's other thread, execnet's reader, is not copied), every module imported, every
item collected. For each isolated test the server forks a child that runs just that item's protocol as the
`child` role does (reports streamed to a file, the worker's log as its stdout and stderr) and exits through
the C library's `exit` (so the plugin's own exit handlers still run, as they would in a fresh process).

The server is a child of the worker; each test's process is a child of the server, which reports its pid and
exit status back over a pipe. Where `fork` does not exist, or the server died, the worker starts a fresh
Python process instead (isolation.py).

The server also stands in for `python -m MODULE ARGS` where a test runs a risky call in a child process of its
own (pjrt_cts.fuzz.isolate's children with `may_fork`: the robustness layer's cases, the fuzz harness's
children). The copy runs `MODULE.main(ARGS)` set up as that command's process would be: a session of its own,
stdin /dev/null, stdout and stderr where the caller says (a file, or a descriptor passed over a socket, as the
descriptors the caller hands the child), the environment it is given, a fresh interpreter's signal dispositions,
faulthandler on; and it leaves through the C library's `exit`. The copy costs a fraction of a fresh interpreter,
which starts and imports numpy before it loads the plugin (docs/bench.md). faulthandler writes a crash's
stack to a file of its own, which the server appends to the child's stderr once it has ended, without the dozens of
frames the copy inherited from the worker (pytest, collection, the server) that a fresh child does not have: they
would push the plugin's last words out of the stderr tail a finding quotes.
"""
from __future__ import annotations

import ctypes
import faulthandler
import gc
import importlib
import json
import os
import signal
import socket
import sys
import tempfile
import threading
import warnings
from pathlib import Path
from typing import Any, Mapping, Sequence

import pytest

from pjrt_cts.fuzz import isolate
from pjrt_cts.fuzz.harness import LineReader
from pjrt_cts.runner import crashlog
from pjrt_cts.runtime import calltimes

_server: ForkServer | None = None
_FORK_ANSWER_SECONDS = 120.0  # the server forks at once; no pid by then means it is stuck


class ForkServer:
    def __init__(self, pid: int, requests: int, replies: int, descriptors: socket.socket) -> None:
        self.pid = pid
        self.requests = requests
        self.replies = replies
        self.descriptors = descriptors  # passes the descriptors a module child is handed (SCM_RIGHTS)
        self._reader = LineReader(replies)
        self._lock = threading.Lock()  # one request at a time: a reply belongs to the request before it

    def run(self, nodeids: Sequence[str], reports_path: Path, timeout: float) -> tuple[int, bool] | None:
        """Run the items, one after the other, in one forked child: (its exit status as subprocess gives it, killed
        for overrunning `timeout`), or None when the server is gone (the caller starts a fresh process instead)."""
        child = self._start({"nodeids": list(nodeids), "reports": str(reports_path)}, ())
        if child is None:
            return None
        try:
            return child.wait(timeout), False
        except TimeoutError:  # overran its time (or the server stopped answering): kill it, then read its end
            isolate.kill_session(child)
        except ChildProcessError:
            return None
        try:
            return child.wait(30.0), True
        except (TimeoutError, ChildProcessError):
            return None

    def spawn_module(self, module: str, args: Sequence[str], *, env: Mapping[str, str], outputs: Mapping[int, str | int],
                     cwd: str | None) -> ForkedChild | None:
        """Start `python -m module args` as a forked child (module docstring): `outputs` maps descriptor numbers in
        the child to a file path to write (created, truncated) or to a descriptor of this process to hand it. None
        when the server is gone."""
        paths = {str(target): where for target, where in outputs.items() if isinstance(where, str)}
        handed = [(target, where) for target, where in outputs.items() if isinstance(where, int)]
        request = {"module": module, "args": list(args), "env": dict(env), "cwd": cwd, "paths": paths,
                   "handed": [target for target, _ in handed]}
        return self._start(request, [fd for _, fd in handed])

    def _start(self, request: dict[str, Any], handed: Sequence[int]) -> ForkedChild | None:
        # Held until the child's end has been read (ForkedChild.wait), or released here on failure. A caller that
        # never waited for its last child (interrupted meanwhile) leaves it held: fresh processes from then on.
        if not self._lock.acquire(timeout=_FORK_ANSWER_SECONDS):
            return None
        try:
            os.write(self.requests, (json.dumps(request) + "\n").encode())
            if handed:
                socket.send_fds(self.descriptors, [b"d"], list(handed))
            started = self._reply(_FORK_ANSWER_SECONDS)
        except OSError:
            started = None
        if started is None or started[0] != "started":
            self._lock.release()
            return None
        return ForkedChild(self, int(started[1]))

    def _reply(self, timeout: float) -> list[str] | None:
        try:
            line = self._reader.readline(timeout)
        except TimeoutError:
            return None
        return line.split() if line is not None else None

    def _end_of(self, pid: int, timeout: float | None) -> int:
        """The exit status of the child `pid` started last (its lock held until then)."""
        try:
            line = self._reader.readline(1e9 if timeout is None else timeout)
        except TimeoutError:
            raise TimeoutError(f"forked process {pid} still running") from None
        except OSError:
            line = None
        self._lock.release()
        words = line.split() if line is not None else []
        if len(words) != 3 or words[0] != "exited":
            raise ChildProcessError(f"the fork server is gone: no end of forked process {pid}")
        return int(words[2])

    def close(self) -> None:
        for fd in (self.requests, self.replies):
            try:
                os.close(fd)
            except OSError:
                pass
        self.descriptors.close()
        try:
            os.waitpid(self.pid, 0)
        except OSError:
            pass


class ForkedChild:
    """A process the server forked, as the worker sees it: its pid, its end, a way to kill it."""

    def __init__(self, server: ForkServer, pid: int) -> None:
        self._server = server
        self.pid = pid
        self.returncode: int | None = None

    def wait(self, timeout: float | None = None) -> int:
        """Its exit status as subprocess gives it (negative: the signal). TimeoutError if it has not ended within
        `timeout` (wait again, or kill it first); ChildProcessError if the server is gone."""
        if self.returncode is None:
            self.returncode = self._server._end_of(self.pid, timeout)
        return self.returncode

    def kill(self) -> None:
        """SIGKILL to it, as Popen.kill (isolate.kill_session takes its session, where it made one)."""
        try:
            os.kill(self.pid, signal.SIGKILL)
        except OSError:
            pass


def start(session: pytest.Session) -> None:
    """Fork the server (worker role, at the end of collection, before any test ran)."""
    global _server
    if _server is not None or not hasattr(os, "fork"):
        return
    request_read, request_write = os.pipe()
    reply_read, reply_write = os.pipe()
    handing, handed = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
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
            handing.close()
            _detach_from_worker(keep={1, 2, request_read, reply_write, handed.fileno()})
            _serve(session, request_read, reply_write, handed)
        except BaseException:  # noqa: BLE001 - the server's end: the worker falls back to fresh processes
            code = 1
        os._exit(code)
    os.close(request_read)
    os.close(reply_write)
    handed.close()
    _server = ForkServer(pid, request_write, reply_read, handing)
    isolate.use_child_spawner(_spawn_module)


def _spawn_module(module: str, args: Sequence[str], env: Mapping[str, str], outputs: Mapping[int, str | int],
                  cwd: str | None) -> ForkedChild | None:
    """isolate's children (`may_fork`), forked by this worker's server while it has one."""
    return None if _server is None else _server.spawn_module(module, args, env=env, outputs=outputs, cwd=cwd)


def server() -> ForkServer | None:
    return _server


def stop() -> None:
    """At worker exit: the server reads end-of-file and leaves."""
    global _server
    if _server is not None:
        isolate.use_child_spawner(None)
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


def _serve(session: pytest.Session, request_read: int, reply_write: int, handed: socket.socket) -> None:
    # What the worker collected is never garbage: frozen, the collector of each test's process does not walk
    # (and so copy, page by page) the millions of objects of the collection in every test's process.
    gc.freeze()
    items = {item.nodeid: item for item in session.items}
    with os.fdopen(request_read, "r", encoding="utf-8") as requests:
        for line in requests:
            request = json.loads(line)
            received: list[int] = []
            if request.get("handed"):
                _, received, _, _ = socket.recv_fds(handed, 16, len(request["handed"]))
            crash_stack = _crash_stack_file() if "module" in request else None
            chosen = [items[nodeid] for nodeid in request.get("nodeids", ()) if nodeid in items]
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                os.close(reply_write)
                handed.close()
                if crash_stack is not None:
                    _exit_process(_run_module(request, dict(zip(request["handed"], received)), crash_stack))
                _exit_process(_run_items(chosen, Path(request["reports"])) if chosen else 2)
            os.write(reply_write, f"started {pid}\n".encode())
            _, status = os.waitpid(pid, 0)
            if crash_stack is not None:
                _append_crash_stack(crash_stack, request, dict(zip(request["handed"], received)))
            for fd in received:
                os.close(fd)
            os.write(reply_write, f"exited {pid} {os.waitstatus_to_exitcode(status)}\n".encode())


def _run_items(items: list[pytest.Item], reports_path: Path) -> int:
    """In the forked process: become an isolated child (reports to a file, none to the controller) and run the
    items in order, as a fresh worker would (session fixtures such as the client are shared between them)."""
    from pjrt_cts.runner.worker.plugin import become_child
    from pjrt_cts.runner.worker.routing import starts_processes

    manager = items[0].config.pluginmanager
    for plugin in list(manager.get_plugins()):
        if type(plugin).__name__ == "WorkerInteractor":  # xdist's channel to the controller belongs to the worker
            manager.unregister(plugin)
    become_child(items[0].config, reports_path)
    if any(starts_processes(item) for item in items):
        start(items[0].session)  # their children fork from a server of this process's own (it leaves at our exit)
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


# Signals whose handling a worker may have changed; a fresh interpreter leaves them at the system's default.
_DEFAULT_SIGNALS = ("SIGTERM", "SIGHUP", "SIGALRM", "SIGUSR1", "SIGUSR2", "SIGCHLD", "SIGQUIT")


def _crash_stack_file() -> Path:
    handle, name = tempfile.mkstemp(prefix="pjrt-cts-crash-stack-")
    os.close(handle)
    return Path(name)


def _run_module(request: dict[str, Any], handed: Mapping[int, int], crash_stack: Path) -> int:
    """In the forked process: become `python -m MODULE ARGS` as far as the plugin and the module can tell (module
    docstring) and return what MODULE.main(ARGS) returns."""
    import fcntl  # POSIX, as fork is: imported here so that the module still imports where neither exists

    os.setsid()  # a timeout kills the session, as run_command kills a fresh child's
    calltimes.count_as_fresh_child()
    # Handed descriptors first moved out of the way (above every number wanted), then put where the caller wants them.
    above = max([256, *(int(target) + 1 for target in (*handed, *request["paths"]))])
    lifted = {target: fcntl.fcntl(fd, fcntl.F_DUPFD, above) for target, fd in handed.items()}
    for fd in handed.values():
        os.close(fd)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    for target, path in request["paths"].items():
        opened = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(opened, int(target))
        os.close(opened)
    for target, fd in lifted.items():
        os.dup2(fd, int(target))
        os.close(fd)
    # The process's own streams, on the descriptors just set (the copied ones may be pytest's capture).
    sys.stdin = open(0, encoding="utf-8", closefd=False)
    sys.stdout = open(1, "w", encoding="utf-8", errors="backslashreplace", closefd=False)
    sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False, buffering=1)
    os.environ.clear()
    os.environ.update(request["env"])
    if request.get("cwd"):
        os.chdir(request["cwd"])
    faulthandler.cancel_dump_traceback_later()
    stack = open(crash_stack, "w", encoding="utf-8")  # open until the process ends: faulthandler writes there
    faulthandler.enable(stack, all_threads=True)  # the server appends it to stderr, trimmed (_append_crash_stack)
    for name in _DEFAULT_SIGNALS:
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    sys.argv = [request["module"], *request["args"]]
    try:
        code = importlib.import_module(request["module"]).main(list(request["args"]))
    except SystemExit as leaving:
        code = leaving.code if isinstance(leaving.code, int) else (0 if leaving.code is None else 1)
        if not isinstance(leaving.code, (int, type(None))):
            print(leaving.code, file=sys.stderr)
    except BaseException:  # noqa: BLE001 - as an uncaught exception ends `python -m`: the traceback, status 1
        import traceback

        traceback.print_exc()
        code = 1
    return int(code or 0)


_THIS_FILE = f'File "{__file__}", line '.encode()


def _append_crash_stack(crash_stack: Path, request: dict[str, Any], handed: Mapping[int, int]) -> None:
    """In the server, once a module's child has ended: its faulthandler stack (if it wrote one) goes to the end of
    its stderr, as a fresh process's would, without the frames from this module's down (those of the worker)."""
    try:
        text = crash_stack.read_bytes()
        crash_stack.unlink()
    except OSError:
        return
    if not text:
        return
    kept: list[bytes] = []
    inherited = False
    for line in text.splitlines(keepends=True):
        if _THIS_FILE in line:
            inherited = True  # most recent call first: what follows is older, the worker's
        if inherited and line.lstrip().startswith(b"File "):
            continue
        inherited = False
        kept.append(line)
    trimmed = b"".join(kept)
    try:
        if 2 in handed:
            os.write(handed[2], trimmed)
        elif "2" in request["paths"]:
            with open(request["paths"]["2"], "ab") as stderr:
                stderr.write(trimmed)
    except OSError:
        pass


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
