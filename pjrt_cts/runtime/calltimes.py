"""Opt-in accounting of the time spent inside PJRT calls, for benchmarks/bench_run_overhead.py.

With `PJRT_CTS_CALL_TIMES=DIR` in the environment, every process that imports the runtime adds a call hook
(pjrt_cts.runtime.hooks) that wraps each slot function it obtains through `Plugin.function` in a timer, and the
process writes `DIR/calltimes-<pid>.json`: calls and seconds per PJRT function (for the functions that compile,
CPU_ACCOUNTED, also the process's CPU seconds during them), whether it was a pytest-xdist worker, and how long it
lived. It writes at exit and, while it makes calls, every WRITE_EVERY_SECONDS: a process the plugin kills (a worker a
crashing test takes down) leaves all but its last seconds. Without the variable no hook is added (no cost). Time of
calls made concurrently from several threads adds up, as CPU-side plugin work does. The CPU seconds are the whole
process's (every thread) while the call ran, and those of the child processes the call ran and waited for: a plugin
compiles with threads of its own, and XLA:GPU runs `ptxas` as a child process per compiled module (on CUDA a large
share of a compile's CPU: docs/bench.md).

An environment variable, not the run context: it must reach every process that loads a plugin (the preflight
probe, reproduction-script children), including those that read no run context, and the runtime imports
nothing of the project but the ABI.
"""
from __future__ import annotations

import atexit
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

from pjrt_cts.runtime.hooks import WrappingHook, add_call_hook


ENV = "PJRT_CTS_CALL_TIMES"

# Reentrant: a garbage collection can run a handle's finalizer (which calls a Destroy slot, itself timed) on this
# thread inside any allocation, and a plain Lock then deadlocks the process (seen as a worker hanging "in
# PJRT_LoadedExecutable_Destroy" during CUDA bench runs). A timed call allocates nothing while it holds the lock;
# `timed` (a new entry) and `snapshot` (every WRITE_EVERY_SECONDS and at exit) do, and rely on the reentrancy.
_lock = threading.RLock()
_totals: dict[str, list[float]] = {}  # function -> [calls, seconds, process CPU seconds]
_started = time.monotonic()
_exit_registered = False
WRITE_EVERY_SECONDS = 2.0
# The process CPU a call costs is read for the calls that compile alone: the figure the benchmark reports (a plugin's
# compile threads, XLA:GPU's ptxas children). Reading it costs ~9 µs a call (the process's CPU clock and its
# children's, before and after), ~4 CPU-s over a default run's ~440,000 other calls: added to the very run measured.
CPU_ACCOUNTED = frozenset({"Client_Compile", "Compile", "Executable_DeserializeAndLoad"})
_last_write = time.perf_counter()  # the calls' clock: `timed` compares its end time
_forked = False  # a copy of another process made by fork(): a worker's fork server child (reruns, isolated tests)
_stands_in = False  # a fork server child standing in for a fresh `python -m` child (count_as_fresh_child)


def _after_fork_in_child() -> None:
    """A forked process accounts its own calls from its own start (the parent writes the parent's). In place: each
    timed function holds its entry. A new lock: one another thread held at the fork stays held in the copy."""
    global _lock, _started, _forked, _last_write
    _lock = threading.RLock()
    for entry in _totals.values():
        entry[:] = [0, 0.0, 0.0]
    _started, _forked = time.monotonic(), True
    _last_write = time.perf_counter()


os.register_at_fork(after_in_child=_after_fork_in_child)


def count_as_fresh_child() -> None:
    """This forked process stands in for a fresh `python -m` child of its worker (runner/worker/forkserver.py runs the
    children of risky calls so: robustness cases, fuzz children): its figures count as that child's would, not as
    the worker's own."""
    global _stands_in
    _stands_in = True


try:
    from resource import RUSAGE_CHILDREN, getrusage

    def _children_cpu() -> float:
        usage = getrusage(RUSAGE_CHILDREN)
        return usage.ru_utime + usage.ru_stime
except ImportError:  # not POSIX: the runtime still imports, and only the process's own CPU is counted
    def _children_cpu() -> float:
        return 0.0


def _process_cpu() -> float:
    """This process's CPU seconds (every thread) and its waited-for children's."""
    return time.process_time() + _children_cpu()


def enabled() -> bool:
    return bool(os.environ.get(ENV))


class TimingHook(WrappingHook):
    """Hands out each slot function wrapped in a timer, one wrapper per function (made at its first lookup)."""

    def wrap(self, name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        return timed(name, function)


HOOK = TimingHook()


def install_if_requested() -> None:
    """Add the timing hook when PJRT_CTS_CALL_TIMES asks for it (pjrt_cts.runtime.plugin does, on import)."""
    if enabled():
        add_call_hook(HOOK)


def timed(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """`function` (a ctypes slot callable) with its calls counted and timed under `name`."""
    _register_exit()
    with _lock:
        entry = _totals.setdefault(name, [0, 0.0, 0.0])  # created here, not per call (see _lock)

    accounted = name in CPU_ACCOUNTED

    def call(*args: Any) -> Any:
        start = time.perf_counter()
        cpu = _process_cpu() if accounted else 0.0
        try:
            return function(*args)
        finally:
            end = time.perf_counter()
            cpu_spent = _process_cpu() - cpu if accounted else 0.0
            with _lock:
                entry[0] += 1
                entry[1] += end - start
                entry[2] += cpu_spent
            if end - _last_write >= WRITE_EVERY_SECONDS:
                _write_periodically()

    return call


def _write_periodically() -> None:
    """Write now, and not again for WRITE_EVERY_SECONDS (set first: a call timed while writing does not write)."""
    global _last_write
    _last_write = time.perf_counter()
    write_now()


def snapshot() -> dict[str, Any]:
    with _lock:
        functions = {name: {"calls": int(calls), "seconds": round(seconds, 6), "cpu_seconds": round(cpu, 6)}
                     for name, (calls, seconds, cpu) in dict(_totals).items() if calls}  # a copy: a finalizer may add a name
    # Children a worker starts (isolated tests, fuzz and robustness scripts) inherit PYTEST_XDIST_WORKER; only
    # the worker itself talks to the controller through execnet. A process forked from the worker keeps its label
    # (it runs the worker's own tests: reruns, isolated tests) and says it was forked; one that stands in for a
    # child (count_as_fresh_child) is counted as that child.
    worker = os.environ.get("PYTEST_XDIST_WORKER") if "execnet" in sys.modules and not _stands_in else None
    return {"pid": os.getpid(), "worker": worker, "forked": _forked, "argv0": sys.argv[0] if sys.argv else "",
            "process_seconds": round(time.monotonic() - _started, 3),
            "process_cpu_seconds": round(time.process_time(), 3),  # every thread, since the start (or the fork)
            "functions": functions}


def write_now() -> None:
    """Write this process's figures (at exit, and every WRITE_EVERY_SECONDS while it makes calls; a process that
    leaves without Python's exit handlers, as the fork server's children do through the C library's exit, calls it
    itself). Whole files only: written aside, then renamed over the last one, so a process that dies meanwhile
    leaves its previous figures."""
    directory = os.environ.get(ENV)
    if not directory or not _totals:
        return
    try:
        path = Path(directory)
        path.mkdir(parents=True, exist_ok=True)
        target = path / f"calltimes-{os.getpid()}.json"
        partial = path / f".calltimes-{os.getpid()}-{threading.get_ident()}.json.partial"  # two threads may write at once
        partial.write_text(json.dumps(snapshot()), encoding="utf-8")
        os.replace(partial, target)
    except OSError:
        pass  # accounting must never change how a run ends


def _register_exit() -> None:
    global _exit_registered
    with _lock:
        if not _exit_registered:
            atexit.register(write_now)
            _exit_registered = True
