"""Each test's PJRT calls, on its record (`api_calls`): which functions its processes called and what they returned.

The counting is the runtime's (pjrt_cts.runtime.callcount); this module says where and when. Each worker counts in
a directory of its own, `<log dir>/calls/<worker>-<pid>/`, and so does every process it starts (the children that
run isolated tests and reruns, and the processes tests start: robustness cases, multi-process nodes), each in a
table of its own. A test's teardown report carries what was counted in its process during the test, with the
tables of the processes that ended meanwhile. A process that died under a test leaves its table to whoever makes
the test's record: the worker, for an isolated test's child (isolation.death_reports), the controller, for a worker
(Controller._crash_result); the function it was inside shows as NEVER_RETURNED.

Beside the calls, a record names with 0 calls the functions its test looked for and did not reach: a missing slot
or a NULL extension function it tried to call (the MissingFunction its phase raised), a slot its `requires(...)`
declares that it never called (it stopped before: NOT_SUPPORTED, a failed prerequisite). Where no test of a run
reached a function, those records say why (pjrt_cts.judgment.api_coverage).
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from pjrt_cts.runtime import MissingFunction, callcount
from pjrt_cts.schema import Tally, merge_tallies

LOOKED_FOR_KEY = pytest.StashKey[set[str]]()  # functions a test's phases found missing


def worker_directory(log_dir: Path, worker_id: str, pid: int) -> Path:
    """Where worker `worker_id` (process `pid`) and the processes it starts count their calls."""
    return log_dir / "calls" / f"{worker_id}-{pid}"


def start_counting(log_dir: Path, worker_id: str) -> None:
    """In a worker: count its calls and those of every process it starts (they inherit the directory)."""
    callcount.install(worker_directory(log_dir, worker_id, os.getpid()))


def stop_counting() -> None:
    """At a worker's end: its directory goes, with the tables of processes that ended after its last test."""
    where = callcount.directory()
    if where is not None:
        _remove(where)


def dead_worker_calls(log_dir: Path, worker_id: str, pid: int) -> dict[str, Tally]:
    """What a worker that died counted since its last test ended (the test it died in), and the processes it started
    that ended meanwhile; its directory goes."""
    where = worker_directory(log_dir, worker_id, pid)
    found = ended_calls(where)
    _remove(where)
    return found


def _remove(where: Path) -> None:
    shutil.rmtree(where, ignore_errors=True)
    try:
        where.parent.rmdir()  # the run's `calls` directory, once the last worker has ended
    except OSError:
        pass


def counting() -> bool:
    return callcount.directory() is not None


def note_missing(item: pytest.Item, exc: BaseException) -> None:
    """A phase of `item` raised MissingFunction: it looked for that function and found none."""
    if isinstance(exc, MissingFunction) and exc.function:
        item.stash.setdefault(LOOKED_FOR_KEY, set()).add(function_name(exc.function))


def function_name(function: str) -> str:
    """`PJRT_Client_Compile` -> `Client_Compile` (as slots are counted); extension functions keep their name."""
    return function[len("PJRT_"):] if function.startswith("PJRT_") else function


def test_calls(item: pytest.Item) -> dict[str, Tally]:
    """At the end of `item` (its teardown report): what its process counted since the previous test ended, the
    tables of the processes that ended meanwhile, and the functions it looked for (0 calls where not reached)."""
    from pjrt_cts.testing.requirements import requirements_of

    looked_for = {name: Tally(0) for name in (*requirements_of(item).slots, *item.stash.get(LOOKED_FOR_KEY, ()))}
    return merge_tallies(looked_for, _tallies(callcount.take()), ended_calls())


def ended_calls(directory: Path | None = None) -> dict[str, Tally]:
    """What the processes of `directory` (default: this process's) that have ended counted; their tables are
    consumed."""
    where = directory or callcount.directory()
    return merge_tallies(*(_tallies(counts) for counts in callcount.read_ended(where))) if where else {}


def _tallies(counts: callcount.Counts) -> dict[str, Tally]:
    return {name: Tally(calls, failed, codes) for name, (calls, failed, codes) in counts.items()}
