"""Canaries: the private parts of pytest-xdist, execnet and pytest the runner still relies on (docs/runner.md, "What we
take from xdist and why"). Each fails with what changed and which runner code to revisit when a release moves it."""
from __future__ import annotations

import inspect
import subprocess

import pytest

pytest_plugins = ["pytester"]


def _why(seam: str, used_by: str) -> str:
    return (f"private seam changed: {seam}. The runner relies on it in {used_by}; see docs/runner.md, "
            "'What we take from xdist and why', and move to a public interface or adapt the runner")


def test_xdist_load_scheduling_sends_batches_through_send_tests() -> None:
    """controller/scheduling.py (ProgramLoadScheduling) extends each batch to a golden program's end by overriding
    `LoadScheduling._send_tests(node, num)`: every batch xdist sends must go through it."""
    from xdist.scheduler.load import LoadScheduling

    why = _why("xdist.scheduler.load.LoadScheduling._send_tests(node, num)", "controller/scheduling.py")
    assert list(inspect.signature(LoadScheduling._send_tests).parameters) == ["self", "node", "num"], why
    for caller in (LoadScheduling.check_schedule, LoadScheduling.schedule):
        assert "self._send_tests(" in inspect.getsource(caller), why
    assert "send_runtest_some" in inspect.getsource(LoadScheduling._send_tests), why


def test_xdist_dsession_replaces_dead_workers_within_max_worker_restart() -> None:
    """controller/recorder.py (Controller._stop_replacing_workers) sets `DSession._max_worker_restart = 0` so that xdist
    stops cloning dead workers once nothing is left to run or workers keep dying: `--max-worker-restart` is fixed
    at the start, these decisions come during the run."""
    from xdist.dsession import DSession

    why = _why("xdist.dsession.DSession._max_worker_restart", "controller/recorder.py: _stop_replacing_workers")
    assert "self._max_worker_restart = " in inspect.getsource(DSession.__init__), why
    errordown = inspect.getsource(DSession.worker_errordown)
    assert "self._max_worker_restart is not None" in errordown and "self._clone_node(node)" in errordown, why


def test_execnet_popen_gateway_holds_its_process() -> None:
    """controller/recorder.py (Controller._popen) reads a dead worker's pid and exit status from
    `node.gateway._io.popen`: neither xdist nor execnet tells them otherwise."""
    import execnet

    why = _why("execnet's popen gateway `gateway._io.popen` (a subprocess.Popen)", "controller/recorder.py: _popen")
    gateway = execnet.makegateway("popen")
    try:
        popen = getattr(getattr(gateway, "_io", None), "popen", None)
        assert isinstance(popen, subprocess.Popen) and popen.pid > 0, why
    finally:
        gateway.exit()


def test_xdist_worker_interactor_is_found_by_its_class_name() -> None:
    """worker/forkserver.py unregisters xdist's WorkerInteractor (the worker's channel to the controller) in a forked
    process, found by class name: xdist runs remote.py as execnet's `__channelexec__`, not as `xdist.remote`, and
    registers the interactor without a name."""
    from xdist.remote import WorkerInteractor

    why = _why("xdist.remote.WorkerInteractor registering itself", "worker/forkserver.py: _run_items")
    assert WorkerInteractor.__name__ == "WorkerInteractor", why
    assert "config.pluginmanager.register(self)" in inspect.getsource(WorkerInteractor.__init__), why


def test_pytest_keyword_expression_compiles_and_rejects() -> None:
    """cli/run.py checks `-k EXPRESSION` with pytest's own parser before any worker starts (a bad one otherwise
    fails in every worker)."""
    why = _why("_pytest.mark.expression.Expression.compile", "cli/run.py: _keyword")
    try:
        from _pytest.mark.expression import Expression
    except ImportError:
        pytest.fail(why)
    Expression.compile("add and not f64")
    with pytest.raises(Exception):  # noqa: B017 - pytest's own error class is private too
        Expression.compile("add and")


def test_an_assertion_explanation_needs_no_terminal_reporter(pytester: pytest.Pytester) -> None:
    """Workers run with `-p no:terminal`; pytest (>= 9.2, pyproject.toml) explains a failed comparison without a
    terminal reporter, and a message given with the assert is kept."""
    pytester.makepyfile("def test_x():\n    assert [1, 2] == [1, 3], 'why it matters'\n")
    reports = pytester.inline_run("-p", "no:terminal", "-p", "pjrt_cts.runner.worker.plugin").getreports(
        "pytest_runtest_logreport")
    failed = [report for report in reports if report.failed]
    assert len(failed) == 1 and "why it matters" in str(failed[0].longrepr), failed
    assert "AssertionError" in str(failed[0].longrepr)
