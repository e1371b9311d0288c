"""Events layer helpers: a thread-safe recorder for PJRT_Event_OnReady callbacks, and created events."""
from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from pjrt_cts.testing import unsupported_if_unimplemented

CALLBACK_TIMEOUT_S = 5.0


class OnReadyRecorder:
    """Collects (code, message) per callback invocation ("OK" for a NULL error); bounded waits."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.calls: list[tuple[str, str]] = []
        self.threads: list[int] = []

    def __call__(self, error: Any) -> None:
        with self._lock:
            self.calls.append(("OK", "") if error is None else (error.code, error.message))
            self.threads.append(threading.get_ident())

    @property
    def count(self) -> int:
        with self._lock:
            return len(self.calls)

    def wait_for(self, count: int, timeout: float = CALLBACK_TIMEOUT_S) -> int:
        return self.wait_for_each([self], count, timeout)[0]

    @staticmethod
    def wait_for_each(recorders: list[OnReadyRecorder], count: int, timeout: float = CALLBACK_TIMEOUT_S) -> list[int]:
        """Each recorder's calls once every one has `count` (or the timeout passed), then a grace that catches a late
        duplicate: one grace for all of them, not one after each (32 recorders waited 1.6 s for nothing)."""
        deadline = time.monotonic() + timeout
        while any(recorder.count < count for recorder in recorders) and time.monotonic() < deadline:
            time.sleep(0.005)
        time.sleep(0.05)  # catch a late duplicate
        return [recorder.count for recorder in recorders]


@pytest.fixture
def recorder() -> OnReadyRecorder:
    return OnReadyRecorder()


@pytest.fixture
def recorders() -> Any:
    return OnReadyRecorder


@pytest.fixture
def created_event(plugin: Any) -> Any:
    """A PJRT_Event_Create event (0.89+), not yet set. Tests using it declare `requires("Event_Create", "Event_Set")`."""
    from pjrt_cts.runtime import Event

    with unsupported_if_unimplemented("PJRT_Event_Create"):
        event = Event.create(plugin)
    yield event
    if not event.closed:
        if not event.is_ready():  # never leave an unset event behind: its waiters would hang
            event.set()
        event.close()
