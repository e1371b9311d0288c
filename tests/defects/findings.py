"""Records of findings as the suite writes them, for the diagnosis's and the waivers' tests: a golden case's wrong
values through the real compare (its message and `details["mismatch"]` evidence), a crash or hang of a worker as
the runner words it, a PjrtError."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from pjrt_cts.golden.tolerance import EXACT, Tolerance
from pjrt_cts.judgment.defects.evidence import crash_message, timeout_message
from pjrt_cts.judgment.outcomes import Outcome
from pjrt_cts.schema import TestRecord
from pjrt_cts.testing.programs import mismatch_message

GOLDEN = "execute.golden_cases.test_case_matches_reference"


def record(test_id: str, outcome: str, message: str = "", **details: Any) -> TestRecord:
    return TestRecord(id=test_id, nodeid=test_id, layer=test_id.split(".", 1)[0], outcome=Outcome(outcome),
                      message=message, details=dict(details))


def wrong_values(test_id: str, actual: Sequence[Any], expected: Sequence[Any], dtype: Any = np.float32,
                 tolerance: Tolerance = EXACT, outcome: str = "FAIL") -> TestRecord:
    """`test_id` FAILing with `actual` where `expected` was (one output of `dtype`), as the golden test words it."""
    got, want = np.asarray(actual, dtype=dtype), np.asarray(expected, dtype=dtype)
    return outputs_differ(test_id, [got], [want], tolerance, outcome)


def outputs_differ(test_id: str, actual: list[np.ndarray], expected: list[np.ndarray], tolerance: Tolerance = EXACT,
                   outcome: str = "FAIL") -> TestRecord:
    case = test_id[test_id.index("[") + 1:-1] if "[" in test_id else "case"
    message, details = mismatch_message(f"PJRT_LoadedExecutable_Execute of golden case {case} (as its own program)",
                                        actual, expected, lambda _dtype: tolerance)
    assert message is not None, "the values given do not differ"
    return record(test_id, outcome, f"AssertionError: {message}", **details)


def crashed(test_id: str, signal: str, function: str | None, stderr: str = "") -> TestRecord:
    return record(test_id, "CRASH", crash_message(signal, function, stderr), signal=signal, function=function)


def hung(test_id: str, function: str | None) -> TestRecord:
    return record(test_id, "TIMEOUT", timeout_message(function), signal=None, function=function)


def rejected(test_id: str, function: str, code: str, text: str) -> TestRecord:
    return record(test_id, "FAIL", f"PjrtError: {function} failed: {code}: {text}")
