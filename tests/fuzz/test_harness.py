"""The fuzz harness classifies each input and survives crashes and hangs of its child."""
from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from pjrt_cts.fuzz.harness import CpuBound, FuzzHarnessError, run_inputs
from pjrt_cts.fuzz.isolate import ChildHarnessError, run_command
from pjrt_cts.fuzz.mutate import Mutant

FAKE_CHILD = Path(__file__).with_name("fake_child.py")


def fake_command(*extra: str):
    def command(inputs_file: Path, start: int, fd: int) -> list[str]:
        return [sys.executable, str(FAKE_CHILD), str(inputs_file), str(start), str(fd), *extra]

    return command


def inputs(*payloads: bytes) -> list[Mutant]:
    return [Mutant(seed=5, index=100 + i, program="p", mutations=("truncate",), data=p) for i, p in enumerate(payloads)]


def test_crash_and_hang_are_classified_saved_and_skipped(tmp_path: Path) -> None:
    batch = inputs(b"bad", b"CRASH me", b"COMPILE", b"HANG here", b"bad again")
    summary = run_inputs(batch, fake_command(), tmp_path, input_timeout=2.0, startup_timeout=30.0)
    assert [(r.index, r.status) for r in sorted(summary.results, key=lambda r: r.index)] == [
        (100, "error"), (101, "crash"), (102, "compiled"), (103, "hang"), (104, "error")]
    assert summary.child_starts == 3
    assert summary.counts() == {"error": 2, "crash": 1, "compiled": 1, "hang": 1}
    crash, hang = summary.findings
    assert (crash.status, crash.signal) == ("crash", "SIGABRT")
    assert crash.input_file == tmp_path / "fuzz-5-101.mlir" and crash.input_file.read_bytes() == b"CRASH me"
    report = json.loads(crash.report_file.read_text())
    assert report["classification"] == "crash" and report["index"] == 101
    assert "Check failed: CRASH input" in report["stderr_tail"]
    assert (hang.status, hang.index) == ("hang", 103)
    assert json.loads(hang.report_file.read_text())["classification"] == "hang"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="the CPU bound reads /proc")
def test_an_input_spinning_on_the_cpu_is_a_hang_long_before_the_wall_bound(tmp_path: Path) -> None:
    import time

    began = time.monotonic()
    summary = run_inputs(inputs(b"COMPILE", b"SPIN", b"COMPILE"), fake_command(), tmp_path, input_timeout=60.0,
                         cpu_bound=CpuBound(factor=20.0, floor=0.5))
    assert [(r.index, r.status) for r in sorted(summary.results, key=lambda r: r.index)] == [
        (100, "compiled"), (101, "hang"), (102, "compiled")]
    spin = summary.findings[0].one_line()
    assert "-> hang [no answer after" in spin and "at least 0.5 CPU-s" in spin
    assert time.monotonic() - began < 30.0  # the wall bound (60 s) did not decide


def test_without_a_compiled_input_only_the_wall_bound_applies(tmp_path: Path) -> None:
    summary = run_inputs(inputs(b"SPIN"), fake_command(), tmp_path, input_timeout=1.5,
                         cpu_bound=CpuBound(factor=20.0, floor=0.1))
    assert [f.status for f in summary.findings] == ["hang"]
    assert "in 1.5 s" in summary.findings[0].one_line()


def test_findings_are_rerun_alone_to_tell_input_from_state(tmp_path: Path) -> None:
    def reproduce(path: Path) -> list[str]:
        return [sys.executable, str(FAKE_CHILD), "--reproduce", str(path)]

    summary = run_inputs(inputs(b"a", b"CRASH", b"b", b"STATEFUL", b"HANG"), fake_command(), tmp_path,
                         input_timeout=1.0, reproduce=reproduce)
    alone = {f.index: f.reproduces_alone for f in summary.findings}
    assert alone == {101: True, 103: False, 104: True}
    report = json.loads(summary.findings[1].report_file.read_text())
    assert report["reproduces_alone"] is False and "102..102" in report["state_dependent"]
    assert "only after earlier inputs" in summary.findings[1].one_line()


def test_clean_run_needs_one_child_and_saves_nothing(tmp_path: Path) -> None:
    summary = run_inputs(inputs(b"a", b"b", b"COMPILE"), fake_command(), tmp_path / "out", input_timeout=5.0)
    assert summary.counts() == {"error": 2, "compiled": 1}
    assert summary.child_starts == 1 and summary.findings == []
    assert not (tmp_path / "out").exists()
    assert summary.error_codes() == {"INVALID_ARGUMENT": 2}


def test_crash_on_the_last_input_ends_the_run(tmp_path: Path) -> None:
    summary = run_inputs(inputs(b"a", b"CRASH"), fake_command(), tmp_path, input_timeout=5.0)
    assert [r.status for r in summary.results] == ["error", "crash"]
    assert summary.child_starts == 1


def test_a_child_that_cannot_start_is_a_harness_error(tmp_path: Path) -> None:
    with pytest.raises(FuzzHarnessError):
        run_inputs(inputs(b"a"), fake_command("--fail-startup"), tmp_path, input_timeout=5.0)


def _script(tmp_path: Path, body: str) -> list[str]:
    path = tmp_path / "probe.py"
    path.write_text(textwrap.dedent(body))
    return [sys.executable, str(path)]


def test_isolated_call_answered(tmp_path: Path) -> None:
    outcome = run_command(_script(tmp_path, """
        print('PJRT_CTS_RESULT {"status": "error", "code": "INVALID_ARGUMENT"}')
    """), timeout=30)
    assert outcome.answered and outcome.result == {"status": "error", "code": "INVALID_ARGUMENT"}


def test_isolated_call_crashed(tmp_path: Path) -> None:
    outcome = run_command(_script(tmp_path, "import os; os.abort()"), timeout=30)
    assert (outcome.status, outcome.signal) == ("crashed", "SIGABRT")
    assert "crashed (signal SIGABRT)" in outcome.describe()


def test_isolated_call_hung(tmp_path: Path) -> None:
    outcome = run_command(_script(tmp_path, "import time; time.sleep(60)"), timeout=1)
    assert outcome.status == "hung"


def test_python_error_in_the_child_is_the_suites_problem(tmp_path: Path) -> None:
    with pytest.raises(ChildHarnessError):
        run_command(_script(tmp_path, "raise ValueError('suite bug')"), timeout=30)


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="the fork server needs fork()")
def test_in_a_worker_with_a_fork_server_the_children_are_its_copies_and_end_the_same(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from types import SimpleNamespace

    from pjrt_cts.runner.worker import forkserver

    monkeypatch.syspath_prepend(str(FAKE_CHILD.parent))  # `-m fake_child` importable in the server's copies
    parents = tmp_path / "parents.txt"
    monkeypatch.setenv("FAKE_CHILD_PARENTS", str(parents))

    def module_command(inputs_file: Path, start: int, fd: int) -> list[str]:
        return [sys.executable, "-m", "fake_child", str(inputs_file), str(start), str(fd)]

    forkserver.start(SimpleNamespace(items=[]))  # type: ignore[arg-type]  # a stand-in session
    server = forkserver.server()
    assert server is not None
    try:
        batch = inputs(b"bad", b"CRASH me", b"COMPILE", b"bad again")
        summary = run_inputs(batch, module_command, tmp_path / "saved", input_timeout=5.0, startup_timeout=30.0,
                             reproduce=lambda path: [sys.executable, "-m", "fake_child", "--reproduce", str(path)],
                             may_fork=True)
    finally:
        forkserver.stop()
    assert [(r.index, r.status) for r in sorted(summary.results, key=lambda r: r.index)] == [
        (100, "error"), (101, "crash"), (102, "compiled"), (103, "error")]
    (crash,) = summary.findings
    assert (crash.status, crash.signal, crash.reproduces_alone) == ("crash", "SIGABRT", True)
    assert "Check failed: CRASH input" in crash.stderr_tail and "Fatal Python error: Aborted" in crash.stderr_tail
    # Two batch children and the crash's run alone, each a copy of the server (a hang's end: test_forkserver.py).
    assert parents.read_text().split() == [str(server.pid)] * 3
