"""The fork server (pjrt_cts.runner.worker.forkserver) on stand-in items: what a forked test's process sees, how its end
reaches the worker, and what the worker gets when the server is gone; and the `python -m MODULE` children it forks
for risky calls (pjrt_cts.fuzz.isolate, `may_fork`) on a probe module. End to end (a real pytest worker, a plugin
that aborts) it runs in test_runner_isolation.py."""
from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable, Iterator

import pytest

from pjrt_cts.fuzz import isolate
from pjrt_cts.runner.worker import forkserver

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the fork server needs fork()")

_STATE: list[str] = []


class _Manager:
    """A worker's plugin manager as far as a forked test's process uses it: its plugin objects by name."""

    def __init__(self) -> None:
        self.plugins: dict[str, Any] = {"pjrt-cts-timing": SimpleNamespace(spec=SimpleNamespace(timeout=60.0)),
                                        "pjrt-cts-selection": object()}

    def get_plugins(self) -> list[Any]:
        return list(self.plugins.values())

    def get_plugin(self, name: str) -> Any:
        return self.plugins.get(name)

    def register(self, plugin: Any, name: str) -> None:
        self.plugins[name] = plugin

    def unregister(self, plugin: Any) -> None:
        self.plugins = {name: held for name, held in self.plugins.items() if held is not plugin}


_CONFIG = SimpleNamespace(pluginmanager=_Manager())  # the worker's: each forked process changes its own copy


def _item(nodeid: str, body: Callable[[Any], None]) -> Any:
    item = SimpleNamespace(nodeid=nodeid, config=_CONFIG,
                           get_closest_marker=lambda name: None)
    item.ihook = SimpleNamespace(pytest_runtest_protocol=lambda item, nextitem: body(item))
    return item


def _reports_path(item: Any) -> Path:
    """Where the forked process streams its reports: set when it became a child (plugin.become_child)."""
    return Path(item.config.pluginmanager.get_plugin("pjrt-cts-child-stream").reports_path)


def _write_state(item: Any) -> None:
    manager = item.config.pluginmanager
    role = "worker" if manager.get_plugin("pjrt-cts-selection") is not None else "child"
    _reports_path(item).write_text(f"{role} {','.join(_STATE)} {os.getppid()}", encoding="utf-8")


def _append_pid(item: Any) -> None:
    with open(_reports_path(item), "a", encoding="utf-8") as handle:
        handle.write(f"{os.getpid()}\n")


def _read_descriptor(item: Any) -> None:
    _reports_path(item).write_bytes(os.read(int(os.environ["FORKSERVER_TEST_FD"]), 100) or b"<eof>")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[forkserver.ForkServer, int]]:
    read_end, write_end = os.pipe()  # the stand-in for the worker's pipe to the controller
    os.environ["FORKSERVER_TEST_FD"] = str(read_end)
    _STATE[:] = ["collected"]
    items = [_item("state", _write_state), _item("descriptor", _read_descriptor), _item("append", _append_pid),
             _item("abort", lambda item: os.abort()), _item("hang", lambda item: time.sleep(60))]
    forkserver.start(SimpleNamespace(items=items))  # type: ignore[arg-type]  # a stand-in session
    _STATE.append("ran in the worker after the server started")
    os.write(write_end, b"worker-only")
    started = forkserver.server()
    assert started is not None
    try:
        yield started, read_end
    finally:
        forkserver.stop()
        os.close(read_end)
        os.close(write_end)
        os.environ.pop("FORKSERVER_TEST_FD", None)


def test_a_forked_test_is_a_child_of_the_collected_worker(server: tuple[forkserver.ForkServer, int], tmp_path: Path) -> None:
    started, _ = server
    reports = tmp_path / "state.txt"
    assert started.run(["state"], reports, timeout=30) == (0, False)
    role, state, parent = reports.read_text(encoding="utf-8").split(" ")
    assert role == "child"  # reports go to the file, none to the controller
    assert state == "collected"  # what the worker did after the server started is not in the copy
    assert int(parent) == started.pid and started.pid != os.getpid()


def test_a_forked_test_cannot_reach_the_workers_pipes(server: tuple[forkserver.ForkServer, int], tmp_path: Path) -> None:
    started, read_end = server
    reports = tmp_path / "fd.txt"
    assert started.run(["descriptor"], reports, timeout=30) == (0, False)
    assert reports.read_bytes() == b"<eof>"  # that descriptor is /dev/null there
    assert os.read(read_end, 100) == b"worker-only"  # and the worker's own end is untouched


def test_a_crash_and_an_overrun_reach_the_worker_as_exit_statuses(server: tuple[forkserver.ForkServer, int],
                                                                  tmp_path: Path) -> None:
    started, _ = server
    assert started.run(["abort"], tmp_path / "abort.txt", timeout=30) == (-signal.SIGABRT, False)
    began = time.monotonic()
    assert started.run(["hang"], tmp_path / "hang.txt", timeout=0.5) == (-signal.SIGKILL, True)
    assert time.monotonic() - began < 20
    assert started.run(["state"], tmp_path / "after.txt", timeout=30) == (0, False)  # the server carries on


def test_an_unknown_test_and_a_dead_server(server: tuple[forkserver.ForkServer, int], tmp_path: Path) -> None:
    started, _ = server
    assert started.run(["not collected"], tmp_path / "x.txt", timeout=30) == (2, False)
    os.kill(started.pid, signal.SIGKILL)
    os.waitpid(started.pid, 0)
    assert started.run(["state"], tmp_path / "y.txt", timeout=30) is None  # the worker starts a fresh process instead


def test_several_items_run_in_order_in_one_process_until_one_crashes(server: tuple[forkserver.ForkServer, int],
                                                                     tmp_path: Path) -> None:
    started, _ = server
    reports = tmp_path / "batch.txt"
    assert started.run(["append", "append"], reports, timeout=30) == (0, False)
    pids = reports.read_text(encoding="utf-8").split()
    assert len(pids) == 2 and pids[0] == pids[1] != str(os.getpid())
    crashed = tmp_path / "crashed.txt"
    assert started.run(["append", "abort", "append"], crashed, timeout=30) == (-signal.SIGABRT, False)
    assert len(crashed.read_text(encoding="utf-8").split()) == 1  # what follows the crash did not run


# ---- children of `python -m MODULE` (isolate.run_command with may_fork) ----------------------------------------

_PROBE_MODULE = '''
import json, os, subprocess, sys, time

def main(argv):
    what = argv[0]
    if what == "answer":
        print("PJRT_CTS_RESULT " + json.dumps({"status": "ok", "argv": argv, "env": os.environ.get("PROBE_ENV"),
              "own_session": os.getsid(0) == os.getpid(), "parent": os.getppid(), "stdin": sys.stdin.read(),
              "cwd": os.getcwd()}), flush=True)
        return 0
    if what == "abort":
        print("the plugin's last words", file=sys.stderr, flush=True)
        os.abort()
    if what == "raise":
        raise ValueError("the suite's own bug")
    if what == "fds":  # write to each descriptor named: the ones the caller handed
        for fd in argv[1:]:
            os.write(int(fd), f"to {fd}".encode())
        return 0
    if what == "grandchild":
        grandchild = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        print("PJRT_CTS_RESULT " + json.dumps({"grandchild": grandchild.pid}), flush=True)
        time.sleep(60)
    return int(what)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
'''


@pytest.fixture
def module_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[forkserver.ForkServer]:
    """A fork server taken after the probe module became importable, as a worker's is after collection."""
    (tmp_path / "forkserver_probe_module.py").write_text(_PROBE_MODULE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    forkserver.start(SimpleNamespace(items=[]))  # type: ignore[arg-type]  # a stand-in session
    started = forkserver.server()
    assert started is not None
    try:
        yield started
    finally:
        forkserver.stop()


def _probe(*args: str) -> list[str]:
    return [sys.executable, "-m", "forkserver_probe_module", *args]


def test_a_module_child_is_forked_and_set_up_as_python_dash_m_would_be(module_server: forkserver.ForkServer,
                                                                        tmp_path: Path) -> None:
    outcome = isolate.run_command(_probe("answer", "x"), timeout=30, env={**os.environ, "PROBE_ENV": "given"},
                                  cwd=tmp_path, may_fork=True)
    assert outcome.answered, outcome.describe()
    result = outcome.result or {}
    assert result["parent"] == module_server.pid  # a copy of the server, not a new interpreter
    assert result["argv"] == ["answer", "x"] and result["env"] == "given" and result["cwd"] == str(tmp_path)
    assert result["own_session"] and result["stdin"] == ""  # as run_command starts a fresh child


def test_a_fresh_interpreter_where_there_is_no_server_or_the_caller_does_not_allow_a_fork(
        module_server: forkserver.ForkServer, tmp_path: Path) -> None:
    outcome = isolate.run_command(_probe("answer"), timeout=60, env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert outcome.answered and (outcome.result or {})["parent"] == os.getpid()
    forkserver.stop()
    outcome = isolate.run_command(_probe("answer"), timeout=60, env={**os.environ, "PYTHONPATH": str(tmp_path)},
                                  may_fork=True)
    assert outcome.answered and (outcome.result or {})["parent"] == os.getpid()


def test_a_module_childs_crash_hang_and_python_error_end_as_a_fresh_childs_would(module_server: forkserver.ForkServer,
                                                                                  tmp_path: Path) -> None:
    crashed = isolate.run_command(_probe("abort"), timeout=30, may_fork=True)
    assert (crashed.status, crashed.signal) == ("crashed", "SIGABRT")
    assert "the plugin's last words" in crashed.stderr_tail and "Fatal Python error: Aborted" in crashed.stderr_tail
    # The stack a fresh child would show: the module's frames, none of those the copy inherited from the worker.
    assert 'forkserver_probe_module.py", line' in crashed.stderr_tail
    assert "forkserver.py" not in crashed.stderr_tail and "_pytest" not in crashed.stderr_tail
    assert isolate.run_command(_probe("3"), timeout=30, may_fork=True).returncode == 3
    with pytest.raises(isolate.ChildHarnessError, match="the suite's own bug"):
        isolate.run_command(_probe("raise"), timeout=30, may_fork=True)
    began = time.monotonic()
    hung = isolate.run_command(_probe("grandchild"), timeout=2, may_fork=True)
    assert hung.status == "hung" and time.monotonic() - began < 30
    grandchild = int((hung.result or {})["grandchild"])
    for _ in range(100):  # the session was killed: the process the child started goes too
        if not _alive(grandchild):
            break
        time.sleep(0.05)
    assert not _alive(grandchild)
    assert isolate.run_command(_probe("answer"), timeout=30, may_fork=True).answered  # the server carries on


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_handed_descriptors_are_where_the_caller_wants_them(module_server: forkserver.ForkServer,
                                                            tmp_path: Path) -> None:
    """As `pass_fds` gives a fresh child: the harness hands its result pipe and stderr file. Numbers at and above
    256 too, where the copy first moves the handed descriptors out of the way."""
    pipes = [os.pipe() for _ in range(3)]
    wanted = {257: pipes[0][1], 3: pipes[1][1], 300: pipes[2][1]}  # 257: where the old base put the next one
    child = isolate.spawn_module(_probe("fds", *map(str, wanted)), env=dict(os.environ),
                                 outputs={1: str(tmp_path / "out"), 2: str(tmp_path / "err"), **wanted})
    assert child is not None
    for _, write_end in pipes:
        os.close(write_end)
    assert child.wait(30) == 0, (tmp_path / "err").read_text(encoding="utf-8")
    for (read_end, _), number in zip(pipes, wanted):
        assert os.read(read_end, 100) == f"to {number}".encode()
        os.close(read_end)
