"""Probe a plugin in a child process (pjrt_cts.runner.probe_child) and make sense of how the child ended.

Used by `pjrt-cts info`, `pjrt-cts plugins` and the run's preflight: the plugin is never loaded into the
calling process, so a plugin that aborts, segfaults or hangs costs one child and one line of text. The
child's stdout and stderr (the plugin's logging, a native backtrace) go to a temporary file whose tail is
kept; the child narrates each PJRT call and what it learned on a pipe, so after a death the parent knows
the PJRT function in progress and everything learned before it.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import select
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from pjrt_cts.runner import crashlog
from pjrt_cts.runner.probe_child import DESCRIBE_STEPS, STEPS

DEFAULT_STEP_TIMEOUT = 120.0
TAIL_LINES = 50
_TAIL_BYTES = 1 << 20
_REASON_CHARS = 240
# Lines of a native or Python backtrace, or boilerplate around one: never "the plugin's last word".
_NOISE_LINE = re.compile(
    r"""^\s*(?:
        ---\s|\#\d+\s|\d+:\s+0x|0x[0-9a-f]+\s|at\s|File\s"|\[bt\]|\*\*\*|
        backtrace:?$|stack\s?trace:?$|info:$|Aborted|Segmentation\sfault|
        (?:Current\sthread|Thread)\s0x|Fatal\sPython\serror|Python\sruntime\sstate|Extension\smodules:|
        \[pjrt-cts\]|Traceback\s\(most\srecent\scall\slast\)
    )""",
    re.VERBOSE | re.IGNORECASE,
)


@dataclass
class StepRecord:
    step: str
    status: str  # ok | error | not_reached | crash | timeout | not_run
    seconds: float = 0.0
    error: dict[str, Any] | None = None  # PJRT error {function, code, message} or {message}


@dataclass
class Death:
    """The child died (signal, abort, exit) or hung during a step."""

    step: str
    kind: str  # "crash" | "timeout"
    function: str | None  # the PJRT function in progress (None: between calls)
    last_returned: str | None  # the last PJRT function that returned
    signal: str | None
    exit_status: int | None
    timeout_s: float | None
    reason: str  # the plugin's last meaningful stderr line ("" if it printed nothing)
    stderr_tail: list[str] = field(default_factory=list)
    reached_plugin: bool = True  # False: the child died before it started loading the plugin (not the plugin's doing)

    @property
    def where(self) -> str:
        if self.function:
            return self.function
        if self.last_returned:
            return f"the {self.step} step, after {self.last_returned} returned"
        return f"the {self.step} step"

    @property
    def what(self) -> str:
        """'PJRT_Client_Create: killed by SIGABRT' / 'PJRT_Plugin_Initialize: no answer within 5s'."""
        if self.kind == "timeout":
            return f"{self.where}: no answer within {self.timeout_s:g}s (killed)"
        if self.signal:
            return f"{self.where}: killed by {self.signal}"
        return f"{self.where}: exited with status {self.exit_status}"

    def one_line(self) -> str:
        return self.what + (f": {self.reason}" if self.reason else " (nothing on stderr)")

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["summary"] = self.one_line()
        return data


@dataclass
class ProbeResult:
    path: str
    identity: dict[str, Any]
    steps: list[StepRecord]
    death: Death | None = None
    load_error: str | None = None  # not a loadable plugin (PluginLoadError text)
    seconds: float = 0.0

    def step(self, name: str) -> StepRecord | None:
        return next((record for record in self.steps if record.step == name), None)

    def identity_card(self) -> dict[str, Any]:
        """The identity card with how the probe ended: `failure` (one line and details) when it died."""
        card = dict(self.identity)
        card["probe_steps"] = [asdict(record) for record in self.steps]
        if self.death is not None:
            card["failure"] = self.death.as_dict()
        return card


def empty_identity(path: str, create_options: Mapping[str, Any]) -> dict[str, Any]:
    """The identity card's keys (results.json "plugin"; docs/ARCHITECTURE.md), before anything is learned."""
    return {
        "path": str(path), "sha256": None, "api_version": None, "api_major": None, "api_minor": None,
        "struct_size": None, "num_slots": None, "slots_present": None, "missing_slots": [], "extensions": [], "extension_functions": [],
        "attributes": {}, "create_options": dict(create_options), "platform_name": None, "platform_version": None,
        "process_index": None, "devices": [], "client_error": None,
    }


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def probe_plugin(
    path: str | os.PathLike,
    create_options: Mapping[str, Any] | None = None,
    *,
    steps: Iterable[str] = STEPS,
    step_timeout: float = DEFAULT_STEP_TIMEOUT,
    env: Mapping[str, str] | None = None,
) -> ProbeResult:
    """Load `path` in a child and run `steps` (probe_child.STEPS order); each step may take `step_timeout`."""
    options = dict(create_options or {})
    wanted = [step for step in STEPS if step in set(steps)]
    began = time.monotonic()
    reader, writer = os.pipe()
    child_env = dict(os.environ if env is None else env)
    root = str(Path(__file__).resolve().parents[2])
    child_env["PYTHONPATH"] = os.pathsep.join(p for p in (root, child_env.get("PYTHONPATH", "")) if p)
    command = [sys.executable, "-m", "pjrt_cts.runner.probe_child", "--events-fd", str(writer),
               "--plugin", str(path), "--options", json.dumps(options), "--steps", ",".join(wanted)]
    with tempfile.TemporaryFile() as output:
        try:
            proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=output, stderr=output,
                                    pass_fds=(writer,), env=child_env)
        finally:
            os.close(writer)
        with os.fdopen(reader, "rb", buffering=0) as events:
            listener = _Listener(str(path), options, wanted)
            timed_out = _follow(proc, events, listener, step_timeout)
        returncode = proc.wait()
        tail = _tail(output)
    result = listener.result(returncode, timed_out, step_timeout, tail)
    result.seconds = time.monotonic() - began
    return result


def plugin_reason(lines: list[str]) -> str:
    """The plugin's last meaningful stderr line: backtrace frames and crash boilerplate left out."""
    for line in reversed(lines):
        text = line.strip()
        if text and not _NOISE_LINE.match(text):
            return " ".join(text.split())[:_REASON_CHARS]
    return ""


# ---- internals ---------------------------------------------------------------------------------


class _Listener:
    """Folds the child's events into steps, identity, the function in progress."""

    def __init__(self, path: str, options: dict[str, Any], steps: list[str]) -> None:
        self.identity = empty_identity(path, options)
        self.steps = {step: StepRecord(step, "not_run") for step in steps}
        self.order = steps
        self.current: str | None = None
        self.current_began = 0.0
        self.in_progress: list[str] = []
        self.last_returned: str | None = None
        self.reached_plugin = False
        self.load_error: str | None = None
        self.done = False

    def feed(self, event: dict[str, Any]) -> None:
        now = time.monotonic()
        if "enter" in event:
            self.in_progress.append(str(event["enter"]))
            self.reached_plugin = True
        elif "leave" in event:
            if self.in_progress:
                self.in_progress.pop()
            self.last_returned = str(event["leave"])
        elif "learned" in event and isinstance(event["learned"], dict):
            self.identity.update(event["learned"])
        elif "load_error" in event:
            self.load_error = str(event["load_error"])
        elif event.get("done"):
            self.done = True
        elif "step" in event:
            record = self.steps.setdefault(str(event["step"]), StepRecord(str(event["step"]), "not_run"))
            status = str(event.get("status"))
            if status == "started":
                self.current, self.current_began = record.step, now
                self.in_progress, self.last_returned = [], None
                return
            record.status = status
            record.seconds = round(now - self.current_began, 4) if self.current == record.step else 0.0
            record.error = event.get("error") or ({"message": event["reason"]} if event.get("reason") else None)
            if status == "error" and record.step == "client":
                self.identity["client_error"] = record.error
            if status == "error" and record.step == "attributes":
                self.identity["attributes_error"] = record.error
            self.current = None

    def result(self, returncode: int, timed_out: bool, step_timeout: float, tail: list[str]) -> ProbeResult:
        steps = [self.steps[name] for name in self.order if name in self.steps]
        death = None
        if timed_out or not (self.done or self.load_error):
            step = self.current or next((r.step for r in steps if r.status == "not_run"), "exit")
            signal_name, words = crashlog.describe_death(returncode, crashlog.LogSegment(started=True, lines=tail))
            death = Death(
                step=step, kind="timeout" if timed_out else "crash",
                function=self.in_progress[-1] if self.in_progress else None, last_returned=self.last_returned,
                signal=None if timed_out else signal_name, exit_status=returncode,
                timeout_s=step_timeout if timed_out else None, reason=plugin_reason(tail), stderr_tail=tail,
                reached_plugin=self.reached_plugin,
            )
            if step in self.steps:
                record = self.steps[step]
                record.status = death.kind
                record.seconds = round(time.monotonic() - self.current_began, 4) if self.current == step else 0.0
                record.error = {"message": death.one_line()}
        return ProbeResult(path=str(self.identity["path"]), identity=self.identity, steps=steps, death=death,
                           load_error=self.load_error)


# Python start-up and the runtime's imports (numpy, ml_dtypes) before the child's first event: seconds on a loaded
# host, which must not count against a plugin step's allowance (probe_child imports them before its first step).
STARTUP_SECONDS = 60.0


def _follow(proc: subprocess.Popen[bytes], events: Any, listener: _Listener, step_timeout: float) -> bool:
    """Read events until the child ends; kill it when one step outlives `step_timeout`. True if killed."""
    pending = b""
    deadline_key: str | None = None
    heard = False  # the child's first event: before it, the time is the suite's own start-up, not a plugin step's
    deadline = time.monotonic() + max(step_timeout, STARTUP_SECONDS)
    fd = events.fileno()
    while True:
        if heard and listener.current != deadline_key:  # a new step started (or ended): a fresh allowance
            deadline_key = listener.current
            deadline = time.monotonic() + step_timeout
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            proc.kill()
            return True
        readable, _, _ = select.select([fd], [], [], min(remaining, 0.25))
        if not readable:
            if proc.poll() is not None:
                # It exited; whatever it wrote is already in the pipe (a grandchild may hold the pipe open).
                readable = [fd] if select.select([fd], [], [], 0)[0] else []
                if not readable:
                    return False
            else:
                continue
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return False
        pending += chunk
        *lines, pending = pending.split(b"\n")
        if lines and not heard:
            heard = True
            deadline_key = None  # the first step's allowance starts now
        for line in lines:
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(event, dict):
                listener.feed(event)


def _tail(output: Any) -> list[str]:
    output.flush()
    size = output.seek(0, os.SEEK_END)
    output.seek(max(0, size - _TAIL_BYTES))
    lines = output.read().decode("utf-8", "replace").splitlines()
    return [line.rstrip() for line in lines if line.strip()][-TAIL_LINES:]


__all__ = ["DESCRIBE_STEPS", "STEPS", "Death", "ProbeResult", "StepRecord", "empty_identity", "file_sha256",
           "plugin_reason", "probe_plugin"]
