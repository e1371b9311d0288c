"""The evidence a finding carries for the catalogue's rules (catalogue.py), and the generic failures that no rule and
no per-test cause of an expectations file may match.

A record's evidence:

- its message: a rule or a cause may pin a regular expression in it;
- `details["mismatch"]` of a wrong value (written by pjrt_cts.golden.compare for every mismatching output of the
  result): `kinds`, the kind of every differing element's actual and expected value as `actual:expected` over
  ELEMENT_KINDS (`0:subnormal`: a zero where a subnormal was expected; `1:nan`: one where NaN was), `reordered` (the
  actual output holds the expected values, bit for bit, in another order), `uniform` (every differing element holds
  one value: all zeros, one garbage constant), `scale` (max |actual| of the differing elements over max |expected|),
  `max_rel_err`, `differing` and `elements` (counts), `indices_sha256` (which elements differ);
- `details["signal"]` and `details["function"]` of a CRASH or TIMEOUT: the signal that killed the process and the
  PJRT function it crashed or hung in (pjrt_cts.runner.crashlog reads both from faulthandler's dump);
- `details["deviation"]`: the value deviation under which the spec reference reproduced the output
  (pjrt_cts.golden.spec.deviations).

`generic_failures(test_id)` are failures any test can show whatever its defect: all zeros, a garbage constant
(1e30), garbage of many values, NaN, inf, one element off; a PjrtError of each common PJRT function with each
code and a message of no particular meaning; a crash by each signal with only faulthandler's words on stderr and
no PJRT function named; a hang with no hang point; a suite error. A catalogue rule or a per-test cause that accepts
one of them pins nothing (it would waive any failure of its tests), so the file holding it is rejected when read.
"""
from __future__ import annotations

import fnmatch
import functools
import math
import random
import re
import zlib
from dataclasses import dataclass, field
from typing import Any

from pjrt_cts.judgment.outcomes import Outcome

# The kinds of an element value. Floats: nan, inf, -inf, 0, -0, subnormal (0 < |x| < the type's smallest normal),
# 1, finite (any other). Integers: 0, 1, min, max (the type's), int (any other). pred: true, false. Complex: nan or
# inf when a part is, 0 when both parts are zero, subnormal when both are zero or subnormal, else finite.
ELEMENT_KINDS: tuple[str, ...] = ("nan", "inf", "-inf", "0", "-0", "subnormal", "1", "finite", "min", "max", "int",
                                  "true", "false")
_KIND_PATTERN = re.compile(r"^(\*|" + "|".join(re.escape(kind) for kind in ELEMENT_KINDS) + r"):(\*|"
                           + "|".join(re.escape(kind) for kind in ELEMENT_KINDS) + r")$")
SIGNALS: tuple[str, ...] = ("SIGSEGV", "SIGABRT", "SIGBUS", "SIGFPE", "SIGILL", "SIGKILL", "SIGTERM")
_GOLDEN_TEST = "execute.golden_cases.test_case_matches_reference"


def kind_pair(actual: str, expected: str) -> str:
    """`0:subnormal`: a differing element's kinds, as details["mismatch"]["kinds"] lists them."""
    return f"{actual}:{expected}"


def valid_kind_pattern(pattern: str) -> bool:
    """`0:subnormal`, `1:*`, `*:nan`: a pattern a rule's `mismatch` may list."""
    return _KIND_PATTERN.match(pattern) is not None


def kinds_within(kinds: list[str], patterns: tuple[str, ...]) -> bool:
    """Every differing element's kind pair matches one of `patterns` (and there is at least one)."""
    return bool(kinds) and all(any(fnmatch.fnmatchcase(kind, pattern) for pattern in patterns) for kind in kinds)


def mismatch_of(details: dict[str, Any]) -> dict[str, Any] | None:
    """The element evidence of a wrong value (None: the record has none: no wrong value, or an older record)."""
    mismatch = details.get("mismatch")
    return mismatch if isinstance(mismatch, dict) and isinstance(mismatch.get("kinds"), list) else None


@dataclass(frozen=True)
class ValuePins:
    """What a catalogue rule requires of a wrong value's evidence (`details["mismatch"]`), every field it sets:

    `kinds`: every differing element's `actual:expected` kinds match one of these patterns (`0:subnormal`, `1:*`);
    `including`: at least one differing element's kinds match one of these (a defect whose kinds a sibling
    deviation of the same op may join: a NaN dropped by XLA's maximum beside the zeros whose sign it ignores);
    `reordered`: the actual values are the expected ones in another order (false: they are not); `uniform`: every
    differing element holds one value (false: several); `max_rel_err`: the error is at most this (an inaccuracy,
    not a wrong value); `max_scale`: no actual value beyond this many times the largest expected magnitude (no
    garbage); `max_share`: at most this share of the elements differ; `offsets`: every differing integer element
    is off by one of these (actual - expected)."""

    kinds: tuple[str, ...] = ()
    including: tuple[str, ...] = ()
    reordered: bool | None = None
    uniform: bool | None = None
    max_rel_err: float | None = None
    max_scale: float | None = None
    max_share: float | None = None
    offsets: tuple[float, ...] = ()

    def pinned(self) -> bool:
        return bool(self.kinds or self.including or self.offsets) or any(
            value is not None for value in (self.reordered, self.uniform, self.max_rel_err, self.max_scale,
                                            self.max_share))

    def shown_by(self, details: dict[str, Any]) -> bool:
        """The record's wrong value shows all of it (a record without evidence shows nothing)."""
        mismatch = mismatch_of(details)
        if mismatch is None:
            return False
        flags = (("reordered", self.reordered), ("uniform", self.uniform))
        bounds = (("max_rel_err", self.max_rel_err), ("scale", self.max_scale))
        offsets = mismatch.get("offsets")
        kinds = mismatch["kinds"]
        return ((not self.kinds or kinds_within(kinds, self.kinds))
                and (not self.including or any(kinds_within([kind], self.including) for kind in kinds))
                and all(wanted is None or bool(mismatch.get(key)) == wanted for key, wanted in flags)
                and all(bound is None or _at_most(mismatch.get(key), bound) for key, bound in bounds)
                and (self.max_share is None or _share_at_most(mismatch, self.max_share))
                and (not self.offsets or (isinstance(offsets, list) and bool(offsets)
                                          and {float(offset) for offset in offsets} <= set(self.offsets))))


def _at_most(value: Any, bound: float) -> bool:
    return isinstance(value, (int, float)) and not math.isnan(value) and value <= bound


def _share_at_most(mismatch: dict[str, Any], share: float) -> bool:
    differing, elements = mismatch.get("differing"), mismatch.get("elements")
    return isinstance(differing, int) and isinstance(elements, int) and 0 < elements and differing <= share * elements


def mismatch_text(count: int, size: int, dtype: str, tolerance: str, max_abs: float, max_rel: float,
                  first: list[int], actual: str, expected: str) -> str:
    """The one wording of a numeric mismatch (pjrt_cts.golden.compare writes it; the generic failures imitate it)."""
    return (f"{count} of {size} elements differ ({dtype}, tolerance {tolerance}): max abs err {max_abs:.6g}, "
            f"max rel err {max_rel:.6g}, first mismatch at index {first}: actual {actual}, expected {expected}")


# --------------------------------------------------------------------------------------- generic failures
@dataclass(frozen=True)
class GenericFailure:
    """A failure any test can show: what it imitates, its outcome, message and details."""

    what: str
    outcome: Outcome
    message: str
    details: dict[str, Any] = field(default_factory=dict)


# Functions whose errors tests report most (a rule or cause naming only one of them and its code pins nothing).
COMMON_FUNCTIONS: tuple[str, ...] = (
    "PJRT_Client_Create", "PJRT_Client_Compile", "PJRT_Compile", "PJRT_LoadedExecutable_Execute",
    "PJRT_Client_BufferFromHostBuffer", "PJRT_Buffer_ToHostBuffer", "PJRT_Buffer_CopyToDevice", "PJRT_Event_Await",
    "PJRT_Executable_Serialize", "PJRT_Executable_DeserializeAndLoad", "PJRT_Executable_OptimizedProgram",
    "PJRT_Executable_OutputElementTypes", "PJRT_Client_DefaultDeviceAssignment", "PJRT_Plugin_Initialize")
ERROR_CODES: tuple[str, ...] = (
    "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS",
    "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED",
    "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED")
_DTYPE_TOKEN = re.compile(r"^(pred|[su](2|4|8|16|32|64)|bf16|f(16|32|64)|f8\w+|f4\w+|f6\w+|c(64|128))$")


def _instance(pattern: str) -> str:
    """A test id the id pattern matches: each wildcard filled (a leading one with the golden test function)."""
    text = pattern
    if text.startswith("*["):
        text = _GOLDEN_TEST + text[1:]
    elif text.startswith("*"):
        text = "execute.x.test_x" + text[1:]
    return text.replace("*", "x").replace("?", "x")


def instances(patterns: tuple[str, ...] | list[str]) -> list[str]:
    return [_instance(pattern) for pattern in patterns]


def _parameter(test_id: str) -> str:
    return test_id[test_id.index("[") + 1:test_id.rindex("]")] if "[" in test_id and test_id.endswith("]") else ""


def _dtype(test_id: str) -> str:
    """The element type the id's parameter names (its last dot-separated token that is one; else f32)."""
    for token in reversed(_parameter(test_id).split(".")):
        if _DTYPE_TOKEN.match(token):
            return token
    return "f32"


@functools.lru_cache(maxsize=256)
def value_failures(test_id: str) -> list[GenericFailure]:
    """Wrong values of every kind no defect explains, worded as the test's own mismatch message."""
    dtype = _dtype(test_id)
    parameter = _parameter(test_id) or "case"
    head = (f"AssertionError: PJRT_LoadedExecutable_Execute of golden case {parameter} (as grouped program "
            f"{parameter.split('.')[0]}.pack_common_0): output 0 differs from the reference: ")
    if dtype == "pred":
        shapes = [("all false", "np.False_", "np.True_", ["false:true"], True, 1.0),
                  ("all true", "np.True_", "np.False_", ["true:false"], True, 1.0)]
    elif dtype[0] in "su":
        shapes = [("all zeros", "np.int32(0)", "np.int32(7)", ["0:int"], True, 0.0),
                  ("a garbage constant", "np.int32(123456789)", "np.int32(7)", ["int:int"], True, 1.7e7),
                  ("garbage", "np.int32(-98765)", "np.int32(7)", ["int:int", "max:int", "min:int"], False, 1.7e7),
                  ("one element off by one", "np.int32(8)", "np.int32(7)", ["int:int"], True, 1.0)]
    else:
        shapes = [("all zeros", "np.float32(0.0)", "np.float32(1.5)", ["0:finite"], True, 0.0),
                  ("a garbage constant 1e30", "np.float32(1e+30)", "np.float32(1.5)", ["finite:finite"], True, 6.7e29),
                  ("garbage", "np.float32(-3.2e+27)", "np.float32(1.5)", ["finite:finite", "subnormal:finite"],
                   False, 2.1e27),
                  ("NaN everywhere", "np.float32(nan)", "np.float32(1.5)", ["nan:finite"], True, 0.0),
                  ("inf everywhere", "np.float32(inf)", "np.float32(1.5)", ["inf:finite"], True, 0.0),
                  ("one element off by one", "np.float32(2.5)", "np.float32(1.5)", ["finite:finite"], True, 1.7)]
    failures = []
    for what, actual, expected, kinds, uniform, scale in shapes:
        count, size = (1, 12) if what.startswith("one element") else (12, 12)
        max_rel = 1.0 if "zeros" in what or "false" in what or "true" in what else 6.7e29 if "garbage" in what else 0.67
        text = mismatch_text(count, size, dtype, "exact", max_rel * 1.5, max_rel, [0], actual, expected)
        mismatch = {"outputs": [0], "differing": count, "elements": size, "kinds": kinds, "reordered": False,
                    "uniform": uniform, "scale": scale, "max_rel_err": max_rel, "indices_sha256": "0" * 16}
        failures.append(GenericFailure(what, Outcome.FAIL, head + text,
                                       {"mismatch": mismatch, "dtype": dtype, "max_rel_err": max_rel,
                                        "first_mismatch_index": [0], "num_mismatches": count}))
    return failures + _random_wordings(test_id, head, dtype)


def _random_wordings(test_id: str, head: str, dtype: str) -> list[GenericFailure]:
    """The test's mismatch message with numbers drawn at random (seeded by the id: the same every time), without
    element evidence: what a per-test cause of mere wording ('\\d+ of \\d+ elements', 'max rel err \\d') matches."""
    draw = random.Random(zlib.crc32(test_id.encode()))
    failures = []
    for _ in range(3):
        size = draw.randint(2, 4096)
        count, first = draw.randint(1, size), draw.randint(0, size - 1)
        actual, expected = draw.uniform(-100, 100), draw.uniform(-100, 100)
        text = mismatch_text(count, size, dtype, "exact", abs(actual - expected), draw.uniform(0, 10), [first],
                             f"{actual:.6g}", f"{expected:.6g}")
        failures.append(GenericFailure("wrong values, worded with random numbers", Outcome.FAIL, head + text))
    return failures


@functools.lru_cache(maxsize=1)
def _error_failures() -> list[GenericFailure]:
    failures = []
    for function in COMMON_FUNCTIONS:
        for code in ERROR_CODES:
            failures.append(GenericFailure(f"{function} fails {code}", Outcome.FAIL,
                                           f"PjrtError: {function} failed: {code}: an error of no particular meaning"))
    failures.append(GenericFailure("an assertion of no particular meaning", Outcome.FAIL, "AssertionError: failed"))
    failures.append(GenericFailure("a suite error", Outcome.ERROR, "SuiteError: error"))
    return failures


def crash_message(signal: str, function: str | None, stderr: str = "") -> str:
    """A crash of a worker as the runner words it (pjrt_cts.runner.controller.recorder), with `stderr` as its tail."""
    where = f" in {function}" if function else ""
    tail = [line for line in stderr.splitlines() if line] or [f"Fatal Python error: {signal}"]
    return (f"worker gw0 killed by {signal}{where} while running this test\n--- last {len(tail)} lines of stderr "
            "---\n" + "\n".join(tail))


def timeout_message(function: str | None) -> str:
    where = f" in {function}" if function else ""
    return f"exceeded the 120s per-test timeout{where}; worker gw0 was stopped\n--- last 1 lines of stderr ---\nTimeout"


@functools.lru_cache(maxsize=1)
def _death_failures() -> list[GenericFailure]:
    failures = [GenericFailure(f"killed by {signal}, nowhere in particular", Outcome.CRASH,
                               crash_message(signal, None), {"signal": signal, "function": None})
                for signal in SIGNALS]
    failures.append(GenericFailure("a hang, nowhere in particular", Outcome.TIMEOUT, timeout_message(None),
                                   {"signal": None, "function": None}))
    return failures


@functools.lru_cache(maxsize=1)
def test_free_failures() -> list[GenericFailure]:
    """The generic failures whose wording does not depend on the test (errors, crashes, hangs)."""
    return _error_failures() + _death_failures()


def generic_failures(test_id: str) -> list[GenericFailure]:
    """Failures test `test_id` can show whatever its defect (see the module's docstring)."""
    return value_failures(test_id) + test_free_failures()


def generic_match(test_pattern: str, outcome: Outcome, cause: re.Pattern[str]) -> GenericFailure | None:
    """The first generic failure of outcome `outcome` of a test `test_pattern` names (its wildcards filled) whose
    message `cause` matches: what a per-test cause must never match."""
    for test_id in instances([test_pattern]):
        for failure in generic_failures(test_id):
            if failure.outcome is outcome and cause.search(failure.message):
                return failure
    return None
