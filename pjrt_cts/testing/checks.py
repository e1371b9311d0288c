"""Clause-style checks the suites share. Each failure names the PJRT function, the error code and message.

Helpers set `__tracebackhide__` so that a failure points at the test line that called them.
"""
from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from pjrt_cts.outcomes import HardeningFinding
from pjrt_cts.testing.requirements import first_line, unsupported_if_unimplemented


def assert_same(actual: Any, expected: Any, what: str) -> None:
    """Bit-for-bit equal values (NaN equal to NaN): the contract, then max abs/rel error and first differing index."""
    __tracebackhide__ = True
    from pjrt_cts.golden import EXACT, compare

    mismatch = compare(np.asarray(actual), np.asarray(expected), EXACT)
    assert mismatch is None, f"{what}: {mismatch}"


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
