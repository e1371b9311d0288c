"""The payloads of a PJRT_Error (PJRT_Error_ForEachPayload, 0.99+), read for every error the runtime converts.

Frameworks read them on every error they turn into a status (the C API client through which JAX loads a plugin
calls ForEachPayload whenever the slot is there, and aborts the process if it returns an error), so the runtime
does too: `Plugin.consume_error` reads them twice and keeps them on the PjrtError (`payloads`), or says on it why
they could not be read (`payload_problem`): ForEachPayload returned an error, its visitor saw a NULL pointer with
a size, an implausible size, a user argument other than the one passed or a key twice, or the two readings
differ. Each problem is also counted here for the process (`problem_count` / `problems_since`), so that a test
during which any error's payloads were unreadable can be told (pjrt_cts.testing.error_payloads).

Cost: two ForEachPayload calls per error (a few microseconds with no payloads); nothing when the slot is absent.
"""
from __future__ import annotations

import ctypes
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from pjrt_cts.abi import structs
from pjrt_cts.abi.callbacks import PayloadVisitor

if TYPE_CHECKING:
    from pjrt_cts.runtime.plugin import Plugin

# Larger keys or values are taken for garbage (not read): a payload is a type URL and a serialized message.
MAX_KEY_BYTES = 1 << 16
MAX_VALUE_BYTES = 1 << 26
# The user_arg of the two readings: distinct, non-NULL, recognisable in a dump.
USER_ARGS = (0x5EED_0001, 0x5EED_0002)
_KEPT_PROBLEMS = 64  # the most recent problems kept for messages


@dataclass(frozen=True)
class PayloadVisit:
    """One call of the visitor: what it was given (key and value copied), and what was wrong with it ('' if
    nothing)."""

    key: bytes
    value: bytes
    user_arg: int
    problem: str = ""


@dataclass(frozen=True)
class PayloadReading:
    """One PJRT_Error_ForEachPayload call: the visits in order, and the (code, message) it returned, if any."""

    visits: tuple[PayloadVisit, ...]
    error: tuple[str, str] | None

    @property
    def payloads(self) -> dict[bytes, bytes]:
        return {visit.key: visit.value for visit in self.visits if not visit.problem}


_thread = threading.local()  # .visits: the list the visitor of this thread's current reading appends to


def _visit(key: int | None, key_size: int, value: int | None, value_size: int, user_arg: int | None) -> None:
    visits: list[PayloadVisit] | None = getattr(_thread, "visits", None)
    if visits is None:  # called outside a reading of this thread (late, or from another thread): nowhere to record
        return
    problem = ""
    if key_size > MAX_KEY_BYTES or value_size > MAX_VALUE_BYTES:
        problem = f"implausible sizes (key {key_size} bytes, value {value_size} bytes)"
    elif (key_size and not key) or (value_size and not value):
        problem = f"a NULL pointer with a size (key {key or 0:#x}/{key_size}, value {value or 0:#x}/{value_size})"
    data = (b"", b"") if problem else (ctypes.string_at(int(key or 0), key_size) if key_size else b"",
                                       ctypes.string_at(int(value or 0), value_size) if value_size else b"")
    visits.append(PayloadVisit(data[0], data[1], int(user_arg or 0), problem))


_VISITOR = PayloadVisitor(_visit)  # one trampoline for the process: the plugin may keep the pointer
VISITOR_ADDRESS = int(ctypes.cast(_VISITOR, ctypes.c_void_p).value or 0)


def for_each_payload(plugin: "Plugin", error: int, user_arg: int, *, visitor: int | None = VISITOR_ADDRESS) -> PayloadReading:
    """One PJRT_Error_ForEachPayload call on the (not yet destroyed) `error` with the runtime's visitor (or the
    raw `visitor` pointer given, e.g. NULL). An error it returns is inspected and destroyed here, never read for
    payloads itself."""
    visits: list[PayloadVisit] = []
    outer = getattr(_thread, "visits", None)  # a reading inside a visitor (never expected) must not lose the outer one
    _thread.visits = visits
    try:
        args = structs.PJRT_Error_ForEachPayload_Args(error=error, visitor=visitor, user_arg=user_arg)
        nested = plugin.function("Error_ForEachPayload")(ctypes.addressof(args))
    finally:
        _thread.visits = outer
    returned = None
    if nested:
        code_value, message = plugin.inspect_error(nested)
        plugin.destroy_error(nested)
        returned = (plugin.error_code_name(code_value), message)
    return PayloadReading(tuple(visits), returned)


def read_payloads(plugin: "Plugin", error: int, function: str) -> tuple[dict[bytes, bytes], str | None]:
    """(payloads, problem) of `error`, an error `function` returned: two readings with distinct user arguments,
    which must succeed, pass each visit valid pointers and its own user argument, and agree."""
    readings = [for_each_payload(plugin, error, user_arg) for user_arg in USER_ARGS]
    problem = readings_problem(readings, USER_ARGS)
    if problem is not None:
        problem = f"PJRT_Error_ForEachPayload on the error of {function}: {problem}"
        _record(problem)
    return readings[0].payloads, problem


def readings_problem(readings: Sequence[PayloadReading], user_args: Sequence[int]) -> str | None:
    """What is wrong with readings of one error made with `user_args` (None: nothing): a reading that returned an
    error, a visit with a bad pointer or size, another user_arg, a key twice, or readings that differ."""
    for user_arg, reading in zip(user_args, readings):
        if reading.error is not None:
            return f"returned {reading.error[0]}: {reading.error[1]}"
        for visit in reading.visits:
            if visit.problem:
                return f"its visitor was called with {visit.problem}"
            if visit.user_arg != user_arg:
                return f"its visitor was called with user_arg {visit.user_arg:#x}, not the {user_arg:#x} passed"
        keys = [visit.key for visit in reading.visits]
        if len(set(keys)) != len(keys):
            return f"its visitor was called with the same key twice: {keys}"
    first = [(v.key, v.value) for v in readings[0].visits]
    for reading in readings[1:]:
        again = [(v.key, v.value) for v in reading.visits]
        if again != first:
            return f"calls on one error visited different payloads: {first} then {again}"
    return None


_lock = threading.Lock()
_problem_count = 0
_recent: list[tuple[int, str]] = []


def _record(problem: str) -> None:
    global _problem_count
    with _lock:
        _problem_count += 1
        _recent.append((_problem_count, problem))
        del _recent[:-_KEPT_PROBLEMS]


def problem_count() -> int:
    """Payload problems this process has met so far."""
    return _problem_count


def problems_since(count: int) -> list[str]:
    """The problems met after `problem_count()` returned `count` (the most recent ones, if there were many)."""
    with _lock:
        return [problem for number, problem in _recent if number > count]
