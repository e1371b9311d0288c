"""Crash-isolating fuzz harness: feed inputs to a child process, restart it after a crash or hang.

The child (by default `python -m pjrt_cts.fuzz.child run ...`) compiles each input and reports on a
pipe. When it dies or stops answering, the input it was compiling is recorded as a crash or hang,
saved for reproduction (`<name>.mlir` + `<name>.json` under the save directory) and a fresh child
continues with the next input.
"""
from __future__ import annotations

import base64
import collections
import dataclasses
import json
import os
import select
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from pjrt_cts.fuzz.isolate import (STDERR_TAIL_CHARS, SpawnedChild, child_environment, kill_session, run_command,
                                  signal_name, spawn_module)
from pjrt_cts.fuzz.mutate import Mutant

# (inputs file, position of the first input to run, fd to write result lines to) -> argv
ChildCommand = Callable[[Path, int, int], list[str]]


class FuzzHarnessError(RuntimeError):
    """The child could not even start (plugin does not load, client creation fails...)."""


@dataclasses.dataclass(frozen=True)
class InputResult:
    index: int
    status: str  # "compiled" | "error" | "crash" | "hang"
    code: str | None = None
    message: str = ""


@dataclasses.dataclass(frozen=True)
class Finding:
    """A crash or hang, with the files that reproduce it."""

    index: int
    status: str  # "crash" | "hang"
    signal: str | None
    returncode: int | None
    program: str
    mutations: tuple[str, ...]
    input_file: Path
    report_file: Path
    stderr_tail: str
    reproduces_alone: bool | None = None  # re-run alone in a fresh process: same ending? None = not checked
    hang_bound: str = ""  # for a hang: the bound it passed without an answer

    def one_line(self) -> str:
        how = self.signal or (f"exit {self.returncode}" if self.returncode is not None else
                              f"no answer {self.hang_bound}".rstrip())
        alone = {True: ", reproduces alone", False: ", only after earlier inputs of its batch", None: ""}
        return (f"input {self.index} ({self.program}: {'+'.join(self.mutations)}) -> {self.status} [{how}]"
                f"{alone[self.reproduces_alone]}, saved {self.input_file}")


@dataclasses.dataclass
class FuzzSummary:
    seed: int
    results: list[InputResult]
    findings: list[Finding]
    child_starts: int
    seconds: float
    exit_incidents: list[str] = dataclasses.field(default_factory=list)

    def counts(self) -> dict[str, int]:
        return dict(collections.Counter(result.status for result in self.results))

    def error_codes(self) -> dict[str, int]:
        return dict(collections.Counter(r.code for r in self.results if r.status == "error" and r.code))

    def as_details(self) -> dict[str, Any]:
        return {
            "seed": self.seed, "inputs": len(self.results), "outcomes": self.counts(), "error_codes": self.error_codes(),
            "child_starts": self.child_starts, "seconds": round(self.seconds, 2),
            "findings": [{"index": f.index, "status": f.status, "signal": f.signal, "input_file": str(f.input_file),
                          "report_file": str(f.report_file), "reproduces_alone": f.reproduces_alone}
                         for f in self.findings],
            "exit_incidents": self.exit_incidents,
        }


def plugin_child_command(plugin_path: str | os.PathLike, create_options: Mapping[str, Any]) -> ChildCommand:
    options_json = json.dumps(dict(create_options))

    def command(inputs_file: Path, start: int, result_fd: int) -> list[str]:
        return [sys.executable, "-m", "pjrt_cts.fuzz.child", "run", str(plugin_path), options_json, str(inputs_file),
                str(start), str(result_fd)]

    return command


def reproduce_command(plugin_path: str | os.PathLike, create_options: Mapping[str, Any], input_file: Path) -> list[str]:
    return [sys.executable, "-m", "pjrt_cts.fuzz.child", "reproduce", str(plugin_path), json.dumps(dict(create_options)),
            str(input_file)]


class LineReader:
    """Lines from a pipe, each waited for at most a given time (select, then read what is there)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = b""

    def readline(self, timeout: float) -> str | None:
        """A line; None at EOF; raises TimeoutError if nothing complete arrives within `timeout`."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            readable, _, _ = select.select([self.fd], [], [], left)
            if not readable:
                raise TimeoutError
            chunk = os.read(self.fd, 65536)
            if not chunk:
                return None
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line.decode(errors="replace")


def process_cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of process `pid`, all its threads (Linux /proc); None where not readable."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime: fields 14 and 15


class CpuBound:
    """Hang by CPU: an input whose compile has used more than `factor` x the CPU of the costliest input compiled
    before it in this run (at least `floor` CPU-seconds) without an answer is a hang, as one with no answer within the
    wall bound. Decided on the child's own CPU time, which a loaded machine does not inflate as it does wall time, so
    a plugin spinning on an input is stopped after about a second instead of the wall bound. Before any input has
    compiled there is no measure of the plugin's cost: only the wall bound applies."""

    POLL_SECONDS = 0.2

    def __init__(self, factor: float, floor: float) -> None:
        self.factor, self.floor = factor, floor
        self.costliest: float | None = None  # CPU-seconds of the costliest compiled input so far

    def limit(self) -> float | None:
        return None if self.costliest is None else max(self.floor, self.factor * self.costliest)

    def compiled(self, cpu_seconds: float) -> None:
        self.costliest = max(self.costliest or 0.0, cpu_seconds)

    def describe(self, used: float) -> str:
        return (f"after {used:.1f} CPU-s ({self.factor:g}x the {self.costliest:.2f} CPU-s of the costliest valid "
                f"compile before it, at least {self.floor:g} CPU-s)")


def _kill(proc: subprocess.Popen | SpawnedChild) -> None:
    kill_session(proc)  # its own session: only the child we started and its threads
    proc.wait()


def _tail(handle: Any) -> str:
    handle.flush()
    handle.seek(0, os.SEEK_END)
    size = handle.tell()
    handle.seek(max(0, size - STDERR_TAIL_CHARS * 2))
    return handle.read().decode(errors="replace")[-STDERR_TAIL_CHARS:]


def _next_line(reader: LineReader, pid: int, timeout: float, cpu_bound: CpuBound | None,
               cpu_at_start: float | None) -> str | None:
    """The child's next line within `timeout` seconds; with a CPU bound for the input being compiled, the child's CPU
    is checked every POLL_SECONDS as well. Raises TimeoutError, with the bound passed as its message."""
    limit = cpu_bound.limit() if cpu_bound is not None else None
    if cpu_bound is None or limit is None or cpu_at_start is None:
        return reader.readline(timeout)
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        try:
            return reader.readline(min(left, CpuBound.POLL_SECONDS))
        except TimeoutError:
            now = process_cpu_seconds(pid)
            if now is not None and now - cpu_at_start > limit:
                raise TimeoutError(cpu_bound.describe(now - cpu_at_start)) from None


def run_inputs(
    inputs: Sequence[Mutant],
    child_command: ChildCommand,
    save_dir: Path,
    *,
    input_timeout: float = 30.0,
    startup_timeout: float = 120.0,
    env: Mapping[str, str] | None = None,
    context: Mapping[str, Any] | None = None,
    reproduce: Callable[[Path], list[str]] | None = None,
    cpu_bound: CpuBound | None = None,
    may_fork: bool = False,
) -> FuzzSummary:
    """Compile every input in a child; crashes and hangs are saved under `save_dir` and skipped. A hang is no answer
    within `input_timeout` seconds, or (with `cpu_bound`) more CPU on one input than the bound allows. `may_fork`:
    the child command is `python -m MODULE ARGS`, which may run as a copy of the worker's fork server
    (pjrt_cts.fuzz.isolate), and so may each finding's run alone."""
    began = time.monotonic()
    seed = inputs[0].seed if inputs else 0
    results: list[InputResult] = []
    findings: list[Finding] = []
    incidents: list[str] = []
    position_of = {m.index: pos for pos, m in enumerate(inputs)}
    starts = 0
    with tempfile.TemporaryDirectory(prefix="pjrt-cts-fuzz-") as tmp:
        inputs_file = Path(tmp) / "inputs.jsonl"
        with open(inputs_file, "w", encoding="utf-8") as handle:
            for m in inputs:
                handle.write(json.dumps({"n": m.index, "data": base64.b64encode(m.data).decode()}) + "\n")
        position = 0
        while position < len(inputs):
            read_fd, write_fd = os.pipe()
            stderr_file = tempfile.TemporaryFile(dir=tmp)
            try:
                command = child_command(inputs_file, position, write_fd)
                proc: subprocess.Popen | SpawnedChild | None = None
                if may_fork:
                    proc = spawn_module(command, env=child_environment(env),
                                        outputs={1: os.devnull, 2: stderr_file.fileno(), write_fd: write_fd})
                if proc is None:
                    proc = subprocess.Popen(
                        command, pass_fds=(write_fd,), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                        stderr=stderr_file, env=child_environment(env), start_new_session=True,
                    )
            finally:
                os.close(write_fd)
            starts += 1
            child_first = position
            reader = LineReader(read_fd)
            ready = ended = hung = False
            hang_bound = ""
            current: int | None = None
            cpu_at_start: float | None = None  # the child's CPU when the current input started; None between inputs
            try:
                while True:
                    try:
                        line = _next_line(reader, proc.pid, input_timeout if ready else startup_timeout, cpu_bound,
                                          cpu_at_start)
                    except TimeoutError as timeout:
                        hung, hang_bound = True, str(timeout) or f"in {input_timeout:g} s"
                        _kill(proc)
                        break
                    if line is None:
                        break
                    try:
                        event = json.loads(line)
                    except json.JSONDecodeError:
                        continue
                    kind = event.get("event")
                    if kind == "ready":
                        ready = True
                    elif kind == "start":
                        current = position_of[event["n"]]
                        cpu_at_start = process_cpu_seconds(proc.pid) if cpu_bound is not None else None
                    elif kind == "done":
                        done = position_of[event["n"]]
                        status = event.get("status", "error")
                        results.append(InputResult(event["n"], status, event.get("code"), event.get("message", "")))
                        if cpu_bound is not None and status == "compiled" and cpu_at_start is not None:
                            now = process_cpu_seconds(proc.pid)
                            if now is not None:
                                cpu_bound.compiled(now - cpu_at_start)
                        position, current, cpu_at_start = done + 1, None, None
                    elif kind == "end":
                        ended = True
            finally:
                os.close(read_fd)
            returncode = proc.wait()
            tail = _tail(stderr_file)
            stderr_file.close()
            if ended:
                if returncode != 0:
                    incidents.append(f"child exited with {signal_name(returncode) or returncode} after its last input")
                break
            if not ready:
                raise FuzzHarnessError(
                    f"fuzz child did not start ({'timeout' if hung else f'exit {returncode}'}): {tail[-1500:]}"
                )
            victim = current if current is not None else position
            if victim >= len(inputs):
                incidents.append(f"child exited with {signal_name(returncode) or returncode} after its last input")
                break
            status = "hang" if hung else "crash"
            mutant = inputs[victim]
            findings.append(_save_finding(mutant, status, None if hung else returncode, tail, save_dir, context,
                                          reproduce, input_timeout, first_input=inputs[child_first].index,
                                          hang_bound=hang_bound, may_fork=may_fork))
            results.append(InputResult(mutant.index, status))
            position = victim + 1
    return FuzzSummary(seed=seed, results=results, findings=findings, child_starts=starts,
                       seconds=time.monotonic() - began, exit_incidents=incidents)


def _save_finding(mutant: Mutant, status: str, returncode: int | None, stderr_tail: str, save_dir: Path,
                  context: Mapping[str, Any] | None, reproduce: Callable[[Path], list[str]] | None,
                  input_timeout: float, first_input: int, hang_bound: str = "", may_fork: bool = False) -> Finding:
    save_dir.mkdir(parents=True, exist_ok=True)
    input_file = save_dir / f"{mutant.name}{mutant.suffix}"
    report_file = save_dir / f"{mutant.name}.json"
    input_file.write_bytes(mutant.data)
    report = {
        "classification": status, "seed": mutant.seed, "index": mutant.index, "family": mutant.family,
        "program": mutant.program,
        "mutations": list(mutant.mutations), "returncode": returncode,
        "signal": signal_name(returncode) if returncode is not None else None, "stderr_tail": stderr_tail,
        "hang_bound": hang_bound or None,
        "input_file": str(input_file), **dict(context or {}),
    }
    alone: bool | None = None
    if reproduce is not None:
        # Alone in a fresh process: the same ending means the input itself is the trigger; otherwise the
        # plugin's state after the batch's earlier inputs (first_input .. index-1 in one process) matters.
        report["reproduce"] = reproduce(input_file)
        again = run_command(report["reproduce"], timeout=input_timeout * 1.5 + 5.0, env=child_environment(),
                            may_fork=may_fork)
        alone = (again.status == "hung") if status == "hang" else (again.status == "crashed")
        report["reproduces_alone"] = alone
        report["alone_outcome"] = again.describe()[:300]
        if not alone:
            report["state_dependent"] = f"crashed after inputs {first_input}..{mutant.index - 1} ran in the same process"
    report_file.write_text(json.dumps(report, indent=1, default=str), encoding="utf-8")
    return Finding(index=mutant.index, status=status, signal=report["signal"], returncode=returncode,
                   program=mutant.program, mutations=mutant.mutations, input_file=input_file, report_file=report_file,
                   stderr_tail=stderr_tail, reproduces_alone=alone, hang_bound=hang_bound)
