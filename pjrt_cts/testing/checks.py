"""Clause-style checks the suites share. Each failure names the PJRT function, the error code and message.

- `expect_rejection`: the call must fail (a control, the same call with valid arguments, must succeed);
- `refuse_or_succeed`: the call may fail with a code that says so, or succeed with a right result;
- `optional_input`: an input the plugin need not support.

Comparisons of arrays are in pjrt_cts.testing.arrays.

Helpers set `__tracebackhide__` so that a failure points at the test line that called them.

PYTEST_DONT_REWRITE: its asserts stay as written (tests/house/test_asserts_as_written.py says why).
"""
from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence, TypeVar

from pjrt_cts.judgment.outcomes import HardeningFinding
from pjrt_cts.testing.requirements import first_line, unsupported_if_unimplemented

if TYPE_CHECKING:
    from pjrt_cts.runtime import PjrtError

Result = TypeVar("Result")


def expect_rejection(call: Callable[[], Any], *, control: Callable[[], Any], function: str,
                     codes: Sequence[str] = ("INVALID_ARGUMENT",), tolerated: Sequence[str] = (),
                     what: str = "the input") -> Any:
    """`call` (bad arguments) must fail with a PJRT error that says why, and `control` (the same call with
    valid arguments) must succeed; returns the PjrtError.

    A code in `codes` passes; a code in `tolerated` is a WARNING (rejected, but the code does not tell the
    caller it was their fault); another code, an empty message or success fails. A failing control fails
    the test: a plugin that rejects every call proves nothing by rejecting this one.
    """
    __tracebackhide__ = True
    from pjrt_cts.runtime import PjrtError

    wanted = " or ".join(codes)
    try:
        _release(call())
    except PjrtError as error:
        rejection = error
    else:
        raise AssertionError(f"{function} should reject {what} with {wanted}, but succeeded")
    assert rejection.message.strip(), (
        f"{function} should explain why it rejects {what}, but its {rejection.code} error has an empty message")
    if rejection.code not in codes and rejection.code not in tolerated:
        raise AssertionError(f"{function} should reject {what} with {wanted}, but failed with {rejection.code}: "
                             f"{first_line(rejection.message)}")
    _check_control(control, function, what, rejection)
    if rejection.code not in codes:
        raise HardeningFinding(f"{function} rejects {what} with {rejection.code} instead of {wanted}: "
                               f"{first_line(rejection.message)}")
    return rejection


def refuse_or_succeed(call: Callable[[], Result], *, check: Callable[[Result], None], function: str,
                      codes: Sequence[str] | None = ("INVALID_ARGUMENT",),
                      on_refusal: Callable[[PjrtError], None] | None = None,
                      what: str = "") -> Result | None:
    """A clause that lets the plugin refuse `call` or do it right ("may fail with X; if it succeeds, the result
    must be ..."). Returns `call`'s result after a success (the caller decides how long it lives), None after a
    clean refusal.

    - A clean refusal is a PjrtError with a code in `codes` (None: any code; empty: the call must succeed);
      `on_refusal(error)` then checks what the clause asks of a refusal (e.g. a control: the same call with
      valid arguments works, or the error carries the cause).
    - Another code fails, naming `function` (and `what`, which follows it: "on a column-major view"), the code
      and the message.
    - A success hands `call`'s result to `check`: its failure (an assertion, or a HardeningFinding for a success
      the clause only tolerates) is the test's.
    - Other exceptions pass through: an UNIMPLEMENTED that `unsupported_if_unimplemented` inside `call` turned
      into NOT_SUPPORTED stays NOT_SUPPORTED.
    """
    __tracebackhide__ = True
    from pjrt_cts.runtime import PjrtError

    try:
        result = call()
    except PjrtError as error:
        refusal = error
    else:
        check(result)
        return result
    if codes is not None and refusal.code not in codes:
        allowed = f"may fail only with {' or '.join(codes)}" if codes else "should succeed"
        raise AssertionError(f"{' '.join(filter(None, (function, what)))} {allowed}, but failed with {refusal.code}: "
                             f"{refusal.message}")
    if on_refusal is not None:
        on_refusal(refusal)
    return None


@contextlib.contextmanager
def optional_input(function: str, what: str) -> Iterator[None]:
    """A header-listed input a plugin need not support (a program format, a Strides layout).

    UNIMPLEMENTED is NOT_SUPPORTED. INVALID_ARGUMENT is a WARNING: the input is valid, and the code that says
    "not supported" is UNIMPLEMENTED. Any other error propagates (a FAIL).
    """
    __tracebackhide__ = True
    from pjrt_cts.runtime import PjrtError

    with unsupported_if_unimplemented(function):
        try:
            yield
        except PjrtError as error:
            if error.function == function and error.code == "INVALID_ARGUMENT":
                raise HardeningFinding(f"{function} rejects {what} with INVALID_ARGUMENT instead of UNIMPLEMENTED: "
                                       f"{first_line(error.message)}") from None
            raise


def _check_control(control: Callable[[], Any], function: str, what: str, rejection: Any) -> None:
    __tracebackhide__ = True
    from pjrt_cts.runtime import PjrtError

    try:
        _release(control())
    except PjrtError as error:
        raise AssertionError(
            f"{function} rejected {what} ({rejection.code}), but the control, the same call with valid arguments, "
            f"failed too with {error.function}: {error.code}: {first_line(error.message)}: the rejection shows nothing"
        ) from None


def _release(result: Any) -> None:
    """Close what a call returned (an executable, a buffer, a list of output buffers)."""
    items = result if isinstance(result, (list, tuple)) else [result]
    for item in items:
        if isinstance(item, (list, tuple)):
            _release(item)
            continue
        close = getattr(item, "close", None)
        if callable(close):
            close()
