"""Live progress: one rewritten line on a TTY, plain periodic lines otherwise; notable results as lines."""
from __future__ import annotations

import threading
import time
from collections import Counter
from typing import TextIO

from pjrt_cts.judgment.outcomes import Outcome
from pjrt_cts.schema import TestRecord

_NOTABLE = {Outcome.FAIL, Outcome.CRASH, Outcome.TIMEOUT, Outcome.ERROR, Outcome.XPASS, Outcome.FLAKY}
_ORDER = [o.value for o in Outcome]
_PLAIN_INTERVAL_SECONDS = 10.0


class Progress:
    def __init__(self, stream: TextIO, *, tty: bool | None = None, enabled: bool = True) -> None:
        self.stream = stream
        self.tty = stream.isatty() if tty is None else tty
        self.enabled = enabled
        self.total: int | None = None
        self.done = 0
        self.counts: Counter[str] = Counter()
        self.began = time.monotonic()
        self._last_plain = 0.0
        self._line_width = 0
        self._last_plain_line = ""
        self._lock = threading.RLock()  # the clock ticker thread renders too
        self._ticker: threading.Thread | None = None
        self._stopped = threading.Event()

    def set_total(self, total: int) -> None:
        with self._lock:
            self.total = total
            self._render(force=True)
        if self.enabled and self.tty and self._ticker is None:
            self._ticker = threading.Thread(target=self._tick, name="pjrt-cts-progress", daemon=True)
            self._ticker.start()

    def add(self, record: TestRecord) -> None:
        with self._lock:
            self.done += 1
            self.counts[record.outcome.value] += 1
            outcome = record.outcome
            if outcome in _NOTABLE:
                first_line = record.message.strip().splitlines()[:1]
                self.note(f"{outcome.value:<8} {record.id}" + (f"  -- {first_line[0][:160]}" if first_line else ""))
            self._render()

    def note(self, line: str) -> None:
        if not self.enabled:
            return
        with self._lock:
            self._clear()
            self.stream.write(line + "\n")
            self._render(force=True)

    def finish(self) -> None:
        self._stopped.set()
        if self.enabled:
            with self._lock:
                self._clear()
                self.stream.flush()

    def _tick(self) -> None:
        """Keep the clock moving on a TTY while a long test runs."""
        while not self._stopped.wait(1.0):
            with self._lock:
                self._render()

    def status_line(self) -> str:
        elapsed = int(time.monotonic() - self.began)
        total = "?" if self.total is None else str(self.total)
        counts = " ".join(f"{name} {self.counts[name]}" for name in _ORDER if self.counts[name])
        return f"[{self.done}/{total}] {counts}  {elapsed // 60:02d}:{elapsed % 60:02d}".rstrip()

    def _render(self, force: bool = False) -> None:
        if not self.enabled:
            return
        line = self.status_line()
        if self.tty:
            self.stream.write("\r" + line.ljust(self._line_width))
            self._line_width = len(line)
            self.stream.flush()
            return
        now = time.monotonic()
        finished = self.total is not None and self.done >= self.total
        due = (force and self.done == 0) or finished or now - self._last_plain >= _PLAIN_INTERVAL_SECONDS
        state = line.rsplit("  ", 1)[0]  # without the clock
        if due and state != self._last_plain_line:
            self._last_plain = now
            self._last_plain_line = state
            self.stream.write("progress " + line + "\n")
            self.stream.flush()

    def _clear(self) -> None:
        if self.tty and self._line_width:
            self.stream.write("\r" + " " * self._line_width + "\r")
            self._line_width = 0
