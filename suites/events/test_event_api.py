"""PJRT_Event: IsReady / Await / Error / OnReady, and caller-created events (Event_Create / Event_Set, 0.89+).

Contract: OnReady's callback runs exactly once (also when registered after the event became ready) and owns
the PJRT_Error it gets; Event_Error and Event_Await hand out errors the caller owns, independent of each other;
a created event is not ready until Set, and Set's code and message are what every observer sees.
"""
from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from pjrt_cts.runtime import ErrorCode
from pjrt_cts.runtime import PjrtError
from pjrt_cts.testing import requires

ERROR_CODES = ["CANCELLED", "INVALID_ARGUMENT", "NOT_FOUND", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
               "INTERNAL", "UNAVAILABLE", "DATA_LOSS"]


def _await_error(event) -> PjrtError | None:
    try:
        event.wait()
    except PjrtError as error:
        return error
    return None


def test_buffer_ready_event_is_ready_without_error(client, device) -> None:
    buffer = client.buffer_from_numpy(np.arange(4, dtype=np.float32), device)
    event = buffer.ready_event()
    error = _await_error(event)
    assert error is None, f"PJRT_Event_Await of a transferred buffer's ready event returned {error.code}: {error.message}"
    assert event.is_ready(), "PJRT_Event_IsReady is false after PJRT_Event_Await returned"
    assert event.error() is None, "PJRT_Event_Error of a successful ready event returned an error"
    event.close()


def test_on_ready_registered_after_ready_fires_once(client, device, recorder) -> None:
    buffer = client.buffer_from_numpy(np.arange(4, dtype=np.float32), device)
    event = buffer.ready_event()
    event.wait()
    event.on_ready(recorder)
    assert recorder.wait_for(1) == 1, (
        f"PJRT_Event_OnReady on an already-ready event: callback ran {recorder.count} times, expected exactly once"
    )
    assert recorder.calls[0] == ("OK", ""), f"OnReady callback of a successful event got error {recorder.calls[0]}"
    event.close()


@requires("Event_Create", "Event_Set")
def test_created_event_is_not_ready_until_set(created_event) -> None:
    assert not created_event.is_ready(), "PJRT_Event_IsReady is true for a PJRT_Event_Create event that was never set"
    created_event.set()
    assert created_event.is_ready(), "PJRT_Event_IsReady is false after PJRT_Event_Set"
    assert created_event.error() is None, "PJRT_Event_Error after PJRT_Event_Set(OK) returned an error"
    assert _await_error(created_event) is None, "PJRT_Event_Await after PJRT_Event_Set(OK) returned an error"


@requires("Event_Create", "Event_Set")
def test_on_ready_registered_before_set_fires_once_after_set(created_event, recorder) -> None:
    created_event.on_ready(recorder)
    time.sleep(0.05)
    assert recorder.count == 0, "PJRT_Event_OnReady callback ran before the event was set"
    created_event.set()
    assert recorder.wait_for(1) == 1, f"OnReady callback ran {recorder.count} times after PJRT_Event_Set, expected exactly once"
    assert recorder.calls[0] == ("OK", ""), f"OnReady callback after Set(OK) got error {recorder.calls[0]}"


@pytest.mark.parametrize("code", ERROR_CODES)
@requires("Event_Create", "Event_Set")
def test_set_error_reaches_every_observer(created_event, recorder, code) -> None:
    message = f"pjrt-cts injected {code.lower()}"
    created_event.on_ready(recorder)
    created_event.set(ErrorCode[code], message)
    assert recorder.wait_for(1) == 1, f"OnReady callback ran {recorder.count} times after PJRT_Event_Set({code}), expected once"
    assert recorder.calls[0] == (code, message), (
        f"OnReady callback got {recorder.calls[0]} after PJRT_Event_Set({code}, {message!r})"
    )
    for attempt in range(2):  # each PJRT_Event_Error result is a separate, caller-owned error
        error = created_event.error()
        assert error is not None and (error.code, error.message) == (code, message), (
            f"PJRT_Event_Error call {attempt + 1} after Set({code}, {message!r}) returned "
            f"{None if error is None else (error.code, error.message)}"
        )
    error = _await_error(created_event)
    assert error is not None and (error.code, error.message) == (code, message), (
        f"PJRT_Event_Await after Set({code}, {message!r}) returned {None if error is None else (error.code, error.message)}"
    )


@requires("Event_Create", "Event_Set")
def test_many_on_ready_callbacks_each_fire_once(created_event, recorders) -> None:
    before = [recorders() for _ in range(16)]
    for recorder in before:
        created_event.on_ready(recorder)
    created_event.set(ErrorCode.INTERNAL, "shared failure")
    after = [recorders() for _ in range(16)]
    for recorder in after:
        created_event.on_ready(recorder)
    counts = recorders.wait_for_each(before + after, 1)
    assert counts == [1] * 32, f"32 OnReady callbacks (16 before, 16 after Set) ran {counts} times, expected once each"
    seen = {recorder.calls[0] for recorder in before + after}
    assert seen == {("INTERNAL", "shared failure")}, f"OnReady callbacks saw different errors: {sorted(seen)}"


@requires("Event_Create", "Event_Set")
def test_await_returns_when_set_from_another_thread(created_event) -> None:
    outcome: list[object] = []
    waiter = threading.Thread(target=lambda: outcome.append(_await_error(created_event)), daemon=True)
    waiter.start()
    time.sleep(0.1)
    assert waiter.is_alive(), "PJRT_Event_Await returned before the created event was set"
    created_event.set(ErrorCode.ABORTED, "set from the main thread")
    waiter.join(5.0)
    assert not waiter.is_alive(), "PJRT_Event_Await did not return within 5 s of PJRT_Event_Set from another thread"
    error = outcome[0]
    assert isinstance(error, PjrtError) and error.code == "ABORTED", f"PJRT_Event_Await returned {error!r}, expected ABORTED"


@pytest.mark.isolated
@requires("Event_Create", "Event_Set")
def test_on_ready_callback_may_call_back_into_the_api(created_event) -> None:
    """Frameworks query PJRT from OnReady callbacks: the plugin must not hold a lock that deadlocks that."""
    seen: list[bool] = []
    done = threading.Event()

    def callback(error) -> None:
        seen.append(created_event.is_ready())
        done.set()

    created_event.on_ready(callback)
    setter = threading.Thread(target=created_event.set, daemon=True)
    setter.start()
    assert done.wait(5.0), "OnReady callback calling PJRT_Event_IsReady did not finish within 5 s (deadlock?)"
    setter.join(5.0)
    assert not setter.is_alive(), "PJRT_Event_Set did not return within 5 s while its OnReady callback called into PJRT"
    assert seen == [True], f"PJRT_Event_IsReady inside the OnReady callback returned {seen}, expected [True]"
