"""Run one `@pytest.mark.isolated` test in a process of its own, away from its worker.

The child loads the plugin itself, runs just that test and streams its reports to a file; the worker replays
them as its own. If the child dies (signal, abort, exit) or overruns its timeout, the worker reports CRASH /
TIMEOUT for the test with the signal and the child's stderr tail, and simply carries on: only the child paid
for the crash.

The child is forked from the worker's fork server (forkserver.py: a copy of the worker taken after collection,
before the plugin was loaded): cheap (docs/bench.md). Where there is none, it is a fresh `python -m pytest <nodeid>`:
to keep that price low, each worker then keeps one spare child that has already started Python and imported
pytest and the runtime (never the plugin) and waits on stdin for the pytest arguments of its one test.

PYTEST_DONT_REWRITE: its asserts stay as written (tests/house/test_asserts_as_written.py says why).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from pjrt_cts.judgment.outcomes import Outcome
from pjrt_cts.schema import PhaseInfo, Tally, merge_tallies
from pjrt_cts.runner import api_calls, crashlog
from pjrt_cts.runner.worker import forkserver
from pjrt_cts.runner.spec import RunSpec
from pjrt_cts.runner.files.child_reports import read_child_events
from pjrt_cts.runner.worker.timing import ISOLATION_GRACE_SECONDS, timeout_for

_PHASES = ("setup", "call", "teardown")
# Imported by a spare child while it waits; none of them loads a plugin.
_WARM_IMPORTS = ("pytest", "numpy", "pjrt_cts.judgment.outcomes", "pjrt_cts.runtime", "pjrt_cts.runner.worker.plugin",
                 "pjrt_cts.runner.worker.outcomes")
_SPARE_CHILD_CODE = """\
import json, os, sys
for name in json.loads(sys.argv[1]):
    try:
        __import__(name)
    except Exception:
        pass
line = sys.stdin.readline()
if not line:
    sys.exit(0)
request = json.loads(line)
null = os.open(os.devnull, os.O_RDONLY)
os.dup2(null, 0)
os.close(null)
os.chdir(request["cwd"])
import pytest
sys.exit(int(pytest.main(request["args"])))
"""
_spare: subprocess.Popen[str] | None = None


def child_args(spec: RunSpec, reports_path: Path, nodeid: str) -> list[str]:
    return [*spec.child_args, "--pjrt-cts-child-reports", str(reports_path), nodeid]


def child_environment(spec: RunSpec) -> dict[str, str]:
    env = dict(os.environ)
    if spec.pythonpath:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (spec.pythonpath, env.get("PYTHONPATH", "")) if p)
    return env


def run_in_fresh_process(item: pytest.Item, nextitem: pytest.Item | None, spec: RunSpec, log_path: Path) -> None:
    ihook = item.ihook
    ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    for report in run_child(item, spec, log_path):
        ihook.pytest_runtest_logreport(report=report)
    ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
    # Fixtures the previous in-process test left set up and the next one does not need.
    try:
        item.session._setupstate.teardown_exact(nextitem)
    except Exception:  # noqa: BLE001 - a teardown error belongs to an earlier test; nothing to attribute it to here
        pass


def run_child(item: pytest.Item, spec: RunSpec, log_path: Path) -> list[pytest.TestReport]:
    timeout = timeout_for(item, spec)
    handle, name = tempfile.mkstemp(prefix="isolated-", suffix=".jsonl", dir=spec.log_dir)
    os.close(handle)
    reports_path = Path(name)
    began = time.time()
    forked = forkserver.server()
    ended = forked.run([item.nodeid], reports_path, timeout + ISOLATION_GRACE_SECONDS) if forked is not None else None
    if ended is None:
        ended = _run_fresh_process(spec, reports_path, item.nodeid, timeout)
    returncode, killed = ended
    elapsed = time.time() - began
    events = read_child_events(reports_path, item.config)
    reports_path.unlink(missing_ok=True)
    reports = list(events.reports.get(item.nodeid, {}).values())
    if "teardown" in {report.when for report in reports} and returncode >= 0:
        return reports
    return death_reports(item, reports, started=item.nodeid in events.started, returncode=returncode, killed=killed,
                         elapsed=elapsed, timeout=timeout, log_path=log_path, began=began)


def death_reports(item: pytest.Item, reports: list[pytest.TestReport], *, started: bool, returncode: int,
                  killed: bool, elapsed: float, timeout: float, log_path: Path, began: float) -> list[pytest.TestReport]:
    """The reports of a test whose process died under it (or was killed for overrunning `timeout`): the phases it
    finished, then one failed report for the phase that never ended, whose record is CRASH or TIMEOUT with the
    signal and the tail of the process's output (its part of `log_path`)."""
    phases = {report.when for report in reports}
    segment = crashlog.read_segment(log_path, item.nodeid)
    signal_name, words = crashlog.describe_death(returncode, segment)
    where = crashlog.where(segment)
    details: dict[str, Any] = {"isolated": True, "exit_status": returncode, "signal": signal_name,
                               "function": segment.pjrt_function, "stderr_tail": segment.tail()}
    if killed or segment.timed_out:
        outcome = Outcome.TIMEOUT
        headline = f"exceeded the {timeout:g}s timeout{where} in its isolated subprocess and was killed"
    elif "teardown" in phases:
        outcome = Outcome.CRASH
        headline = f"the test finished, then its isolated subprocess {words}{where} (at exit)"
    elif started or returncode < 0:
        outcome = Outcome.CRASH
        headline = f"isolated subprocess {words}{where} while running this test"
    else:
        outcome = Outcome.ERROR
        headline = f"could not run the test in a fresh subprocess: pytest {words}"
    missing = next((phase for phase in _PHASES if phase not in phases), "teardown")
    synthetic = pytest.TestReport(
        nodeid=item.nodeid,
        location=item.location,
        keywords={name: 1 for name in item.keywords},
        outcome="failed",
        longrepr=crashlog.crash_message(headline, segment),
        when=missing,  # type: ignore[arg-type]  # a synthetic report for the phase that never ran
        duration=elapsed,
        start=began,
        stop=began + elapsed,
        user_properties=[],
    )
    info = PhaseInfo(outcome=outcome, message=crashlog.crash_message(headline, segment), details=details,
                     api_calls=_calls_of_the_dead(reports))
    synthetic.pjrt_cts = info.to_json()  # type: ignore[attr-defined]  # the record rides on pytest's report
    return [r for r in reports if r.when != "teardown"] + [synthetic]


def _calls_of_the_dead(reports: list[pytest.TestReport]) -> dict[str, Tally]:
    """The calls of a test whose process died: its teardown report's, if it got that far (that report is replaced),
    and the table the process left (what it counted since, the call it died in)."""
    teardown = [PhaseInfo.from_json(getattr(report, "pjrt_cts", None)).api_calls
                for report in reports if report.when == "teardown"]
    return merge_tallies(*teardown, api_calls.ended_calls())


def _run_fresh_process(spec: RunSpec, reports_path: Path, nodeid: str, timeout: float) -> tuple[int, bool]:
    """(exit status, killed for overrunning its time) of a fresh `python -m pytest` process running the test."""
    proc = _start_child(spec, child_args(spec, reports_path, nodeid))
    _prepare_spare(spec)
    try:
        return proc.wait(timeout=timeout + ISOLATION_GRACE_SECONDS), False
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.wait(), True
    except BaseException:
        proc.kill()
        proc.wait()
        raise


def _spawn_spare(spec: RunSpec) -> subprocess.Popen[str]:
    sys.stdout.flush()
    sys.stderr.flush()
    # stdout/stderr are inherited: fds 1 and 2 of the worker are its log.
    return subprocess.Popen([sys.executable, "-c", _SPARE_CHILD_CODE, json.dumps(_WARM_IMPORTS)],
                            cwd=spec.rootdir, stdin=subprocess.PIPE, env=child_environment(spec), text=True)


def _prepare_spare(spec: RunSpec) -> None:
    global _spare
    if _spare is None or _spare.poll() is not None:
        _spare = _spawn_spare(spec)


def _start_child(spec: RunSpec, args: list[str]) -> subprocess.Popen[str]:
    """Hand the test to the spare child (or a new one if the spare is gone)."""
    global _spare
    for _attempt in range(2):
        proc, _spare = (_spare if _spare is not None and _spare.poll() is None else _spawn_spare(spec)), None
        assert proc.stdin is not None
        try:
            proc.stdin.write(json.dumps({"cwd": spec.rootdir, "args": args}) + "\n")
            proc.stdin.close()
            return proc
        except OSError:  # it died while waiting: use a fresh one
            proc.kill()
            proc.wait()
    raise RuntimeError("could not start a child process for an isolated test")


def discard_spare() -> None:
    """At worker exit: a spare child reads end-of-file on stdin and leaves."""
    global _spare
    if _spare is not None:
        try:
            if _spare.stdin is not None:
                _spare.stdin.close()
            _spare.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            _spare.kill()
            _spare.wait()
        _spare = None
