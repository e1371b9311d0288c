"""Readiness of buffers whose data arrives later (transfer managers, aliases, control dependencies, raw-copy
futures): bounded waits, so that a plugin that never completes one fails a test instead of hanging it.

- `settled_error(event, what)`: the event's error once it is ready (None: it completed OK); fails when it does not
  become ready within READY_BOUND_S;
- `assert_pending(buffer, what)`: the buffer is not ready yet (its data cannot have arrived);
- `assert_buffer_error(buffer, code, message, what)`: the buffer became ready carrying that error.

PYTEST_DONT_REWRITE: its asserts stay as written (tests/house/test_asserts_as_written.py says why).
"""
from __future__ import annotations

from typing import Any

READY_BOUND_S = 30.0  # far above any transfer these tests make; a plugin that needs longer never completes it
PENDING_GRACE_S = 0.2  # how long a pending buffer is watched for turning ready on its own


def settled_error(event: Any, what: str) -> Any:
    """The PjrtError `event` completed with (None for OK), after a bounded wait; `what` names the event."""
    __tracebackhide__ = True
    assert event.ready_within(READY_BOUND_S), f"{what} did not become ready within {READY_BOUND_S:g} s"
    return event.error()


def buffer_error(buffer: Any, what: str) -> Any:
    """The error PJRT_Buffer_ReadyEvent of `buffer` completes with (None for OK), after a bounded wait."""
    __tracebackhide__ = True
    event = buffer.ready_event()
    try:
        return settled_error(event, f"PJRT_Buffer_ReadyEvent of {what}")
    finally:
        event.close()


def assert_pending(buffer: Any, what: str) -> None:
    """`buffer` is not ready, and does not turn ready within PENDING_GRACE_S on its own."""
    __tracebackhide__ = True
    event = buffer.ready_event()
    try:
        assert not event.ready_within(PENDING_GRACE_S), (
            f"PJRT_Buffer_ReadyEvent of {what} is ready, though its data cannot have arrived yet")
    finally:
        event.close()


def assert_buffer_error(buffer: Any, code: str, message: str, what: str) -> None:
    """`buffer` becomes ready with an error of `code` whose message contains `message`."""
    __tracebackhide__ = True
    error = buffer_error(buffer, what)
    assert error is not None, f"PJRT_Buffer_ReadyEvent of {what} completed OK; it should carry {code}: {message}"
    assert error.code == code and message in error.message, (
        f"PJRT_Buffer_ReadyEvent of {what} should carry {code}: {message!r}, but carries {error.code}: {error.message!r}")
