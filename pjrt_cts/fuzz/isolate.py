"""Run a risky plugin call in a child Python process and classify how it ended.

The child is a self-contained script (saved first, so it doubles as the reproduction file). It
reports what the plugin answered on one stdout line `PJRT_CTS_RESULT {json}`; the parent sees a
clean answer, a crash (signal / abnormal exit) or a hang (killed after the timeout). A child that first
makes a valid call of the same function (a robustness control) reports that on a `PJRT_CTS_CONTROL {json}` line.

`run_command(..., may_fork=True)` for `python -m MODULE ARGS`, where MODULE.main(ARGS) is what `-m` runs: in a
`pjrt-cts run` worker the child is then a copy of the worker's fork server (a process that has imported
everything and never loaded the plugin: pjrt_cts/runner/worker/forkserver.py), set up as that command's process would
be, instead of a fresh interpreter (which starts and imports numpy again for each risky call: docs/bench.md).
Elsewhere, or when the server is gone, it is the fresh interpreter. The fuzz harness starts its children through
`spawn_module` the same way.
"""
from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Mapping, Protocol, Sequence

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


class SpawnedChild(Protocol):
    """A child another process started for this one (a worker's fork server): its pid, its end, a way to kill it."""

    pid: int

    def wait(self, timeout: float | None = None) -> int:
        """Exit status as subprocess gives it; TimeoutError if not ended in time; ChildProcessError if lost."""

    def kill(self) -> None:
        """SIGKILL to it, as Popen.kill."""


def kill_session(proc: subprocess.Popen | SpawnedChild) -> None:
    """SIGKILL to the child's own session (what the plugin started goes too), or to the child where it has none."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()


# (module, args, environment, {child descriptor: file path to write, or a descriptor of ours to hand it}, cwd)
# -> the started child, or None when it cannot start one (the caller starts a fresh interpreter).
ChildSpawner = Callable[[str, Sequence[str], Mapping[str, str], Mapping[int, "str | int"], "str | None"],
                        "SpawnedChild | None"]
_child_spawner: ChildSpawner | None = None


def use_child_spawner(spawner: ChildSpawner | None) -> None:
    """Where `may_fork` children come from in this process (a worker's fork server), or None for fresh
    interpreters."""
    global _child_spawner
    _child_spawner = spawner


def spawn_module(argv: Sequence[str], *, env: Mapping[str, str], outputs: Mapping[int, str | int],
                 cwd: str | os.PathLike | None = None) -> SpawnedChild | None:
    """`argv` (`python -m MODULE ARGS`) as a copy of this worker's fork server (module docstring), or None where
    there is none or `argv` is not of that form."""
    spawner = _child_spawner
    if spawner is None or len(argv) < 3 or argv[0] != sys.executable or argv[1] != "-m":
        return None
    return spawner(str(argv[2]), [str(arg) for arg in argv[3:]], dict(env), dict(outputs),
                   None if cwd is None else str(cwd))


def run_command(argv: Sequence[str], *, timeout: float, env: Mapping[str, str] | None = None,
                cwd: str | os.PathLike | None = None, may_fork: bool = False) -> ChildOutcome:
    """Run `argv`; classify answered / crashed / hung. A Python traceback without an answer is a
    ChildHarnessError (the suite's bug, not the plugin's). `may_fork`: `argv` is `python -m MODULE ARGS` and may
    run as a copy of the worker's fork server (module docstring)."""
    began = time.monotonic()
    ended = _run_forked(argv, timeout=timeout, env=env, cwd=cwd) if may_fork else None
    if ended is not None:
        returncode, hung, stdout_bytes, stderr_bytes = ended
    else:
        returncode, hung, stdout_bytes, stderr_bytes = _run_fresh(argv, timeout=timeout, env=env, cwd=cwd)
    seconds = time.monotonic() - began
    stdout = stdout_bytes.decode(errors="replace")
    stderr_tail = stderr_bytes.decode(errors="replace")[-STDERR_TAIL_CHARS:]
    result = parse_result(stdout)
    control = parse_result(stdout, CONTROL_PREFIX)
    if hung:
        return ChildOutcome("hung", None, None, result, stderr_tail, seconds, control)
    if returncode == 0 and result is not None:
        return ChildOutcome("answered", 0, None, result, stderr_tail, seconds, control)
    if returncode > 0 and "Traceback (most recent call last)" in stderr_tail and result is None:
        raise ChildHarnessError(f"child {list(argv)[-1]} failed in Python (exit {returncode}):\n{stderr_tail[-2000:]}")
    return ChildOutcome("crashed", returncode, signal_name(returncode), result, stderr_tail, seconds, control)


def _run_fresh(argv: Sequence[str], *, timeout: float, env: Mapping[str, str] | None,
               cwd: str | os.PathLike | None) -> tuple[int, bool, bytes, bytes]:
    """(exit status, hung, stdout, stderr) of `argv` in a new interpreter, in a session of its own."""
    proc = subprocess.Popen(list(argv), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=dict(env) if env is not None else None, cwd=cwd, start_new_session=True)
    try:
        stdout_bytes, stderr_bytes = proc.communicate(timeout=timeout)
        hung = False
    except subprocess.TimeoutExpired:
        kill_session(proc)
        stdout_bytes, stderr_bytes = proc.communicate()
        hung = True
    except BaseException:
        kill_session(proc)
        proc.wait()
        raise
    return proc.returncode, hung, stdout_bytes, stderr_bytes


def _run_forked(argv: Sequence[str], *, timeout: float, env: Mapping[str, str] | None,
                cwd: str | os.PathLike | None) -> tuple[int, bool, bytes, bytes] | None:
    """(exit status, hung, stdout, stderr) of `python -m MODULE ARGS` forked (spawn_module), or None where it
    cannot be (the caller starts a fresh interpreter)."""
    with tempfile.TemporaryDirectory(prefix="pjrt-cts-child-") as directory:
        stdout_path, stderr_path = Path(directory) / "stdout", Path(directory) / "stderr"
        child = spawn_module(argv, env=dict(os.environ if env is None else env),
                             outputs={1: str(stdout_path), 2: str(stderr_path)}, cwd=cwd)
        if child is None:
            return None
        hung = False
        try:
            try:
                returncode = child.wait(timeout)
            except TimeoutError:
                hung = True
                kill_session(child)
                returncode = child.wait(30.0)
        except (TimeoutError, ChildProcessError):
            return None
        stdout = stdout_path.read_bytes() if stdout_path.exists() else b""
        stderr = stderr_path.read_bytes() if stderr_path.exists() else b""
    return returncode, hung, stdout, stderr


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
