"""The one outcome vocabulary and test-id scheme shared by suites, runner, report and gate."""
from __future__ import annotations

import enum
import functools
import re
from typing import Any


class Outcome(str, enum.Enum):
    PASS = "PASS"
    FAIL = "FAIL"
    CRASH = "CRASH"  # the test's process died (signal, abort, exit)
    TIMEOUT = "TIMEOUT"  # killed after the per-test timeout
    NOT_SUPPORTED = "NOT_SUPPORTED"  # plugin lacks the slot / answered UNIMPLEMENTED / too few devices
    WARNING = "WARNING"  # works, but a hardening finding (e.g. crash on input the contract does not cover)
    SKIP = "SKIP"  # excluded by the user
    XFAIL = "XFAIL"  # failed as the expectations file says
    XPASS = "XPASS"  # expected to fail, but passed
    ERROR = "ERROR"  # the suite's own bug (fixture error, collection error)
    # The plugin returned XLA's value (or rejected the program as XLA does) where XLA itself deviates from the
    # StableHLO spec: the semantics JAX users get today. Not bad, meets a level's contract; costs the spec mark.
    SHARED_DEVIATION = "SHARED_DEVIATION"
    # The test was run twice (pjrt_cts.runner.confirmation) and the plugin answered differently: a conformant
    # plugin is deterministic. The record keeps both observations.
    FLAKY = "FLAKY"

    @property
    def is_bad(self) -> bool:
        """Outcomes that make a run non-conformant (exit code 1)."""
        return self in BAD_OUTCOMES


BAD_OUTCOMES = frozenset({Outcome.FAIL, Outcome.CRASH, Outcome.TIMEOUT, Outcome.XPASS, Outcome.ERROR, Outcome.FLAKY})


def outcome_of(test: dict[str, Any]) -> Outcome:
    """A result record's outcome; an unknown string is the suite's own problem, i.e. ERROR."""
    try:
        return Outcome(test.get("outcome"))
    except ValueError:
        return Outcome.ERROR

LAYERS = (
    "abi",
    "client",
    "transfer",
    "compile",
    "execute",
    "executable",
    "events",
    "donation",
    "multidevice",
    "dlpack",
    "versioning",
    "robustness",
    "multiprocess",
    "framework_jax",
    "framework_torch",
)


class FeatureNotSupported(Exception):
    """Raised by a test when the plugin legitimately lacks what the test checks; carries the plugin's reason and
    the kind of evidence (UNSUPPORTED_KINDS): only an UNIMPLEMENTED answer at run time can differ between runs or
    between cases of one op, so only that kind is confirmed and checked for consistency (pjrt_cts.runner)."""

    def __init__(self, reason: str, kind: str = "unimplemented", subject: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.kind = kind
        self.subject = subject  # what is missing, where a rule needs it: the element type's name (`f8e4m3fn`)


# What a NOT_SUPPORTED rests on (a record's details["unsupported_by"]).
UNSUPPORTED_KINDS = ("unimplemented", "slot", "devices", "memory_kind", "element_type", "feature", "no_device",
                     "declared")


class SharedDeviation(Exception):
    """Raised by a test when the plugin deviates from the spec exactly as XLA does (Outcome.SHARED_DEVIATION); the
    test records which deviation it recognised in its details (`deviation`, read by pjrt_cts.defects)."""


class HardeningFinding(Exception):
    """Raised by a test for a finding the C API contract does not forbid (reported as WARNING, not FAIL)."""


_NODEID = re.compile(r"^(?:.*/)?suites/(?P<layer>[^/]+)/(?:(?P<sub>.+)/)?test_(?P<area>[^/]+)\.py::(?P<rest>.+)$")


def test_id_from_nodeid(nodeid: str) -> str:
    """`suites/client/test_devices.py::test_lookup[3]` -> `client.devices.test_lookup[3]`.

    Ids are stable: expectation files and CI baselines name them. Class-scoped tests keep the
    class as one more dotted component.
    """
    match = _NODEID.match(nodeid.replace("\\", "/"))
    if not match:
        return nodeid
    rest = match["rest"].replace("::", ".")
    parts = [match["layer"]]
    if match["sub"]:
        parts.extend(match["sub"].split("/"))
    parts.append(match["area"])
    return ".".join(parts) + "." + rest


def layer_of(test_id: str) -> str:
    return test_id.split(".", 1)[0]


def id_matches(test_id: str, pattern: str) -> bool:
    """Whole-id match of the id pattern syntax used by expectation files and level contracts: `*` is any run
    of characters, `?` one character, everything else literal (`[` and `]` delimit parameters in ids)."""
    return _compiled_pattern(pattern).fullmatch(test_id) is not None


@functools.lru_cache(maxsize=4096)
def _compiled_pattern(pattern: str) -> re.Pattern[str]:
    return re.compile("".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern), re.DOTALL)
