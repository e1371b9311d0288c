"""The fork server of isolated tests (pjrt_cts.runner.forkserver) on stand-in items: what a forked test's process
sees, how its end reaches the worker, and what the worker gets when the server is gone. End to end (a real pytest
worker, a plugin that aborts) it runs in test_runner_isolation.py."""
from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable, Iterator

import pytest

from pjrt_cts.runner import forkserver
from pjrt_cts.runner.worker_plugin import PLUGIN_NAME

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the fork server needs fork()")

_STATE: list[str] = []


class _Manager:
    def __init__(self, worker: Any) -> None:
        self.worker = worker

    def get_plugins(self) -> list[Any]:
        return [self.worker]

    def get_plugin(self, name: str) -> Any:
        return self.worker if name == PLUGIN_NAME else None

    def unregister(self, plugin: Any) -> None:
        raise AssertionError("only xdist's WorkerInteractor is unregistered")


def _item(nodeid: str, body: Callable[[Any], None]) -> Any:
    worker = SimpleNamespace(role="worker", child_reports=None)
    item = SimpleNamespace(nodeid=nodeid, config=SimpleNamespace(pluginmanager=_Manager(worker)))
    item.ihook = SimpleNamespace(pytest_runtest_protocol=lambda item, nextitem: body(item))
    return item


def _write_state(item: Any) -> None:
    worker = item.config.pluginmanager.get_plugin(PLUGIN_NAME)
    Path(worker.child_reports).write_text(f"{worker.role} {','.join(_STATE)} {os.getppid()}", encoding="utf-8")


def _append_pid(item: Any) -> None:
    worker = item.config.pluginmanager.get_plugin(PLUGIN_NAME)
    with open(worker.child_reports, "a", encoding="utf-8") as handle:
        handle.write(f"{os.getpid()}\n")


def _read_descriptor(item: Any) -> None:
    worker = item.config.pluginmanager.get_plugin(PLUGIN_NAME)
    Path(worker.child_reports).write_bytes(os.read(int(os.environ["FORKSERVER_TEST_FD"]), 100) or b"<eof>")


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
