"""Per-worker stderr logs: test start/end markers, the tail a crashed test left, how a process died.

Every worker (and the fresh subprocesses of isolated tests) writes fd 1 and fd 2 to
out/logs/<worker>.log; the worker brackets each test with marker lines, so the controller can tell
which test was running when the process died and attach what the plugin printed.
"""
from __future__ import annotations

import re
import signal
from dataclasses import dataclass
from pathlib import Path

START = "[pjrt-cts] >>> start "
END = "[pjrt-cts] <<< end "
TAIL_LINES = 50
_READ_BYTES = 1 << 20

# The worker arms faulthandler for TIMER_SLACK x a test's timeout (pjrt_cts.runner.worker.timing.TestTimer).
TIMER_SLACK = 1.25
_TIMEOUT_LINE = re.compile(r"^Timeout \((?P<h>\d+):(?P<m>\d\d):(?P<s>\d\d(?:\.\d+)?)\)!")
# faulthandler frames of the test harness itself (pytest, pluggy, xdist, execnet): noise in a tail.
_HARNESS_FRAME = re.compile(r'^\s+File "(?:[^"]*/(?:_pytest|pluggy|xdist|execnet|pytest)/[^"]*|<frozen runpy>|<string>)", line')
_FATAL_LINE = re.compile(r"^Fatal Python error: (?P<what>.+?)\s*$")
_THREAD_HEADER = re.compile(r"^(?:Current thread|Thread) 0x[0-9a-f]+ \(most recent call first\):$")
# A frame of a slot call (pjrt_cts.runtime.named_calls names each after its PJRT function).
_PJRT_FRAME = re.compile(r'^\s+File "[^"]*", line \d+ in (?P<function>PJRT_[A-Za-z0-9_]+)\s*$')
# faulthandler's words -> signal; used when the exit status itself is not known.
_FATAL_SIGNALS = {
    "Segmentation fault": "SIGSEGV",
    "Aborted": "SIGABRT",
    "Bus error": "SIGBUS",
    "Floating-point exception": "SIGFPE",
    "Floating point exception": "SIGFPE",
    "Illegal instruction": "SIGILL",
}


def start_marker(nodeid: str) -> bytes:
    return f"\n{START}{nodeid}\n".encode("utf-8", "replace")


def end_marker(nodeid: str) -> bytes:
    return f"{END}{nodeid}\n".encode("utf-8", "replace")


@dataclass
class LogSegment:
    started: bool  # the test's start marker is the last marker in the log (it was running)
    lines: list[str]  # what was printed since its start marker (or the log's end if never started)
    running: str | None = None  # nodeid of the test in progress when the log ends, if any

    @property
    def timed_out(self) -> bool:
        return any(_TIMEOUT_LINE.match(line) for line in self.lines)

    @property
    def timeout_seconds(self) -> float | None:
        """The timeout of the test that ran out of time: faulthandler's armed span over TIMER_SLACK."""
        for line in self.lines:
            match = _TIMEOUT_LINE.match(line)
            if match:
                return round((int(match["h"]) * 3600 + int(match["m"]) * 60 + float(match["s"])) / TIMER_SLACK, 3)
        return None

    @property
    def fatal_error(self) -> str | None:
        for line in reversed(self.lines):
            match = _FATAL_LINE.match(line)
            if match:
                return match["what"]
        return None

    @property
    def pjrt_function(self) -> str | None:
        """The PJRT function the process was in when faulthandler dumped its stacks (a crash, or a timeout): the
        innermost slot-call frame, the crashing thread's first (`Current thread`), else the first thread's that has
        one; None when no thread was in a PJRT call (or nothing was dumped)."""
        first: str | None = None
        current = False
        for line in self.lines:
            if _THREAD_HEADER.match(line):
                current = line.startswith("Current thread")
                continue
            match = _PJRT_FRAME.match(line)
            if match is None:
                continue
            if current:
                return match["function"]
            first = first or match["function"]
        return first

    def tail(self, count: int = TAIL_LINES) -> list[str]:
        return self.lines[-count:]


def read_segment(log_path: Path, nodeid: str) -> LogSegment:
    try:
        with open(log_path, "rb") as handle:
            handle.seek(0, 2)
            size = handle.tell()
            handle.seek(max(0, size - _READ_BYTES))
            text = handle.read().decode("utf-8", "replace")
    except OSError:
        return LogSegment(started=False, lines=[])
    lines = text.splitlines()
    last_marker = None
    for index in range(len(lines) - 1, -1, -1):
        if lines[index].startswith((START, END)):
            last_marker = index
            break
    running = lines[last_marker][len(START):] if last_marker is not None and lines[last_marker].startswith(START) else None
    started = running == nodeid
    begin = last_marker + 1 if started and last_marker is not None else max(0, len(lines) - TAIL_LINES)
    body = [line for line in lines[begin:]
            if line.strip() and not line.startswith((START, END)) and not _HARNESS_FRAME.match(line)]
    # A thread header whose frames were all harness frames says nothing.
    body = [line for index, line in enumerate(body)
            if not (_THREAD_HEADER.match(line) and (index + 1 == len(body) or not body[index + 1].startswith("  ")))]
    return LogSegment(started=started, lines=body, running=running)


def describe_death(returncode: int | None, segment: LogSegment) -> tuple[str | None, str]:
    """(signal name or None, words) for a process that died: 'killed by SIGSEGV', 'exited with status 3'."""
    if returncode is not None and returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return name, f"killed by {name}"
    fatal = segment.fatal_error
    if fatal and fatal in _FATAL_SIGNALS:
        name = _FATAL_SIGNALS[fatal]
        return name, f"killed by {name} ({fatal})"
    if returncode is not None:
        return None, f"exited with status {returncode}"
    return None, "died (exit status unknown)"


def where(segment: LogSegment) -> str:
    """` in PJRT_Client_Compile`: the PJRT function a death happened in, for its headline ("" when unknown)."""
    function = segment.pjrt_function
    return f" in {function}" if function else ""


def crash_message(headline: str, segment: LogSegment) -> str:
    tail = segment.tail()
    if not tail:
        return headline + " (nothing on stderr)"
    return headline + f"\n--- last {len(tail)} lines of stderr ---\n" + "\n".join(tail)
