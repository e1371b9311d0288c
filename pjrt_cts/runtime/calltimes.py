"""Opt-in accounting of the time spent inside PJRT calls, for benchmarks/bench_run_overhead.py.

With `PJRT_CTS_CALL_TIMES=DIR` in the environment, every slot function a process obtains through
`Plugin.function` is wrapped in a timer, and at exit the process writes `DIR/calltimes-<pid>.json`:
calls and seconds per PJRT function, whether it was a pytest-xdist worker, and how long it lived.
Without the variable nothing is wrapped (no cost). Time of calls made concurrently from several
threads adds up, as CPU-side plugin work does.
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

ENV = "PJRT_CTS_CALL_TIMES"

# Reentrant, and nothing allocated while it is held: a garbage collection can run a handle's finalizer (which calls
# a Destroy slot, itself timed) on this thread inside any allocation, and a plain Lock then deadlocks the process
# (seen as a worker hanging "in PJRT_LoadedExecutable_Destroy" during CUDA bench runs).
_lock = threading.RLock()
_totals: dict[str, list[float]] = {}  # function -> [calls, seconds]
_started = time.monotonic()
_exit_registered = False


def enabled() -> bool:
    return bool(os.environ.get(ENV))


def timed(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """`function` (a ctypes slot callable) with its calls counted and timed under `name`."""
    _register_exit()
    with _lock:
        entry = _totals.setdefault(name, [0, 0.0])  # created here, not per call (see _lock)

    def call(*args: Any) -> Any:
        start = time.perf_counter()
        try:
            return function(*args)
        finally:
            elapsed = time.perf_counter() - start
            with _lock:
                entry[0] += 1
                entry[1] += elapsed

    return call


def snapshot() -> dict[str, Any]:
    with _lock:
        functions = {name: {"calls": int(calls), "seconds": round(seconds, 6)}
                     for name, (calls, seconds) in dict(_totals).items() if calls}  # a copy: a finalizer may add a name
    # Children a worker starts (isolated tests, fuzz and robustness scripts) inherit PYTEST_XDIST_WORKER; only
    # the worker itself talks to the controller through execnet.
    worker = os.environ.get("PYTEST_XDIST_WORKER") if "execnet" in sys.modules else None
    return {"pid": os.getpid(), "worker": worker, "argv0": sys.argv[0] if sys.argv else "",
            "process_seconds": round(time.monotonic() - _started, 3), "functions": functions}


def _write() -> None:
    directory = os.environ.get(ENV)
    if not directory or not _totals:
        return
    try:
        path = Path(directory)
        path.mkdir(parents=True, exist_ok=True)
        (path / f"calltimes-{os.getpid()}.json").write_text(json.dumps(snapshot()), encoding="utf-8")
    except OSError:
        pass  # accounting must never change how a run ends


def _register_exit() -> None:
    global _exit_registered
    with _lock:
        if not _exit_registered:
            atexit.register(_write)
            _exit_registered = True
