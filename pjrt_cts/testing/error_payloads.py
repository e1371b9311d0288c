"""Every error a test provokes must have readable payloads (PJRT_Error_ForEachPayload).

The runtime reads the payloads of every PJRT_Error it converts (pjrt_cts.runtime.payloads), as the C API client of
JAX and PyTorch/XLA does for every error it turns into a status, where an error from ForEachPayload aborts the
process. suites/conftest.py wraps each test's call phase in `payloads_readable`: when the payloads of an error
the test provoked could not be read, the test FAILs naming PJRT_Error_ForEachPayload, whatever it asserted
(a rejection test that got its rejection, a NOT_SUPPORTED from an UNIMPLEMENTED answer): a framework would have
died on that error. suites/abi/test_error_payloads.py holds the direct tests of the function.
"""
from __future__ import annotations

import contextlib
from typing import Iterator

from pjrt_cts.testing.requirements import first_line

_SHOWN = 3  # problems named in one failure


@contextlib.contextmanager
def payloads_readable() -> Iterator[None]:
    """Fail (AssertionError) if an error converted inside had payloads PJRT_Error_ForEachPayload could not read."""
    __tracebackhide__ = True
    from pjrt_cts.runtime import payloads

    before = payloads.problem_count()
    ended_with: BaseException | None = None
    try:
        yield
    except BaseException as exc:  # noqa: BLE001 - re-raised below unless a payload problem takes precedence
        ended_with = exc
    problems = payloads.problems_since(before)
    if problems:
        shown = "; ".join(problems[:_SHOWN]) + (f" (and {len(problems) - _SHOWN} more)" if len(problems) > _SHOWN else "")
        also = f" (the test itself ended with {type(ended_with).__name__}: {first_line(str(ended_with))})" if ended_with else ""
        raise AssertionError(f"{shown}: a framework converting this error would abort (the C API client treats a "
                             f"failed PJRT_Error_ForEachPayload as fatal){also}") from ended_with
    if ended_with is not None:
        raise ended_with
