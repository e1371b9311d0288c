"""Run a risky plugin call in a child Python process and classify how it ended.

The child is a self-contained script (saved first, so it doubles as the reproduction file). It
reports what the plugin answered on one stdout line `PJRT_CTS_RESULT {json}`; the parent sees a
clean answer, a crash (signal / abnormal exit) or a hang (killed after the timeout). A child that first
makes a valid call of the same function (a robustness control) reports that on a `PJRT_CTS_CONTROL {json}` line.
"""
from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Mapping, Sequence

RESULT_PREFIX = "PJRT_CTS_RESULT "
CONTROL_PREFIX = "PJRT_CTS_CONTROL "
STDERR_TAIL_CHARS = 4000


class ChildHarnessError(RuntimeError):
    """The child failed in the suite's own code (a Python traceback, not the plugin)."""


@dataclasses.dataclass(frozen=True)
class ChildOutcome:
    status: str  # "answered" | "crashed" | "hung"
    returncode: int | None
    signal: str | None
    result: dict[str, Any] | None  # the PJRT_CTS_RESULT payload when answered
    stderr_tail: str
    seconds: float
    control: dict[str, Any] | None = None  # the PJRT_CTS_CONTROL payload, when the child ran a control first

    @property
    def answered(self) -> bool:
        return self.status == "answered"

    def describe(self) -> str:
        if self.status == "hung":
            return f"hung (killed after {self.seconds:.1f}s)"
        if self.status == "crashed":
            how = f"signal {self.signal}" if self.signal else f"exit status {self.returncode}"
            last = last_words(self.stderr_tail)
            return f"crashed ({how})" + (f": {last}" if last else "")
        return f"answered {self.result}"


def last_words(text: str) -> str:
    """The plugin's own last words: a fatal log line if any, else the last line Python did not write."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    for line in reversed(lines):
        if (line.startswith(("F0", "F1", "LLVM ERROR", "what():", "terminate called")) or "Check failed" in line
                or "FATAL" in line or "double free" in line):
            return line[:300]
    skip = ("Fatal Python error", "Current thread", "Thread 0x", "File ", "<no Python", "Extension modules",
            "Stack (most recent", "I0000", "WARNING: All log messages")
    for line in reversed(lines):
        if not line.startswith(skip):
            return line[:300]
    return ""


def signal_name(returncode: int) -> str | None:
    if returncode >= 0:
        return None
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"SIG{-returncode}"


def result_line(payload: Mapping[str, Any], prefix: str = RESULT_PREFIX) -> str:
    return prefix + json.dumps(dict(payload), default=str)


def parse_result(stdout: str, prefix: str = RESULT_PREFIX) -> dict[str, Any] | None:
    for line in reversed(stdout.splitlines()):
        if line.startswith(prefix):
            try:
                return dict(json.loads(line[len(prefix):]))
            except json.JSONDecodeError:
                return None
    return None


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # the child's own session: only what we started
    except (ProcessLookupError, PermissionError):
        proc.kill()


def run_command(argv: Sequence[str], *, timeout: float, env: Mapping[str, str] | None = None,
                cwd: str | os.PathLike | None = None) -> ChildOutcome:
    """Run `argv`; classify answered / crashed / hung. A Python traceback without an answer is a
    ChildHarnessError (the suite's bug, not the plugin's)."""
    began = time.monotonic()
    proc = subprocess.Popen(list(argv), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=dict(env) if env is not None else None, cwd=cwd, start_new_session=True)
    try:
        stdout_bytes, stderr_bytes = proc.communicate(timeout=timeout)
        hung = False
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        stdout_bytes, stderr_bytes = proc.communicate()
        hung = True
    except BaseException:
        _kill_group(proc)
        proc.wait()
        raise
    seconds = time.monotonic() - began
    stdout = stdout_bytes.decode(errors="replace")
    stderr_tail = stderr_bytes.decode(errors="replace")[-STDERR_TAIL_CHARS:]
    result = parse_result(stdout)
    control = parse_result(stdout, CONTROL_PREFIX)
    if hung:
        return ChildOutcome("hung", None, None, result, stderr_tail, seconds, control)
    returncode = proc.returncode
    if returncode == 0 and result is not None:
        return ChildOutcome("answered", 0, None, result, stderr_tail, seconds, control)
    if returncode > 0 and "Traceback (most recent call last)" in stderr_tail and result is None:
        raise ChildHarnessError(f"child {list(argv)[-1]} failed in Python (exit {returncode}):\n{stderr_tail[-2000:]}")
    return ChildOutcome("crashed", returncode, signal_name(returncode), result, stderr_tail, seconds, control)


def child_environment(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """This process's environment, with pjrt_cts importable in the child."""
    env = dict(os.environ)
    package_root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH", "")) if p)
    env.setdefault("PYTHONFAULTHANDLER", "1")
    env.update(extra or {})
    return env


def run_script(script: Path, *, timeout: float, env: Mapping[str, str] | None = None) -> ChildOutcome:
    """Run a saved Python script (a reproduction file) with this interpreter."""
    return run_command([sys.executable, str(script)], timeout=timeout, env=child_environment(env))
