"""The one outcome vocabulary and test-id scheme shared by suites, runner, report and gate."""
from __future__ import annotations

import enum
import functools
import re
from collections.abc import Iterable


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
    # The test was run twice (pjrt_cts.runner.controller.confirmation) and the plugin answered differently: a conformant
    # plugin is deterministic. The record keeps both observations.
    FLAKY = "FLAKY"

    @property
    def is_bad(self) -> bool:
        """Outcomes that make a run non-conformant (exit code 1)."""
        return self in BAD_OUTCOMES

    @property
    def severity(self) -> int:
        """Its rank in SEVERITY_ORDER (0: the worst): picks a cell's colour and orders findings."""
        return _SEVERITY_RANK[self]

    @property
    def colour(self) -> str:
        """The report's colour for it."""
        return _PRESENTATION[self][0]

    @property
    def help(self) -> str:
        """One line that says what it means (the report's legend)."""
        return _PRESENTATION[self][1]

    @property
    def junit_kind(self) -> str | None:
        """The JUnit element a testcase of this outcome carries (`failure`, `error`, `skipped`), None for a pass."""
        return _PRESENTATION[self][2]


BAD_OUTCOMES = frozenset({Outcome.FAIL, Outcome.CRASH, Outcome.TIMEOUT, Outcome.XPASS, Outcome.ERROR, Outcome.FLAKY})

# Worst first: the order used to pick a cell's colour and to list findings.
SEVERITY_ORDER: tuple[Outcome, ...] = (
    Outcome.CRASH,
    Outcome.TIMEOUT,
    Outcome.FLAKY,
    Outcome.FAIL,
    Outcome.ERROR,
    Outcome.XPASS,
    Outcome.WARNING,
    Outcome.XFAIL,
    Outcome.SHARED_DEVIATION,
    Outcome.NOT_SUPPORTED,
    Outcome.SKIP,
    Outcome.PASS,
)
# The report's summary-table column order: the good news, then the bad, then the neutral.
DISPLAY_ORDER: tuple[Outcome, ...] = (
    Outcome.PASS,
    Outcome.SHARED_DEVIATION,
    Outcome.FAIL,
    Outcome.FLAKY,
    Outcome.CRASH,
    Outcome.TIMEOUT,
    Outcome.ERROR,
    Outcome.XPASS,
    Outcome.WARNING,
    Outcome.XFAIL,
    Outcome.NOT_SUPPORTED,
    Outcome.SKIP,
)
# (colour, legend, JUnit element). A SHARED_DEVIATION is a passed testcase in JUnit: it meets the levels.
_PRESENTATION: dict[Outcome, tuple[str, str, str | None]] = {
    Outcome.PASS: ("#2da44e", "behaves as the PJRT C API specifies", None),
    # teal: good (meets the levels), yet not the spec's answer
    Outcome.SHARED_DEVIATION: ("#1b7c83", "deviates from the spec as XLA does (shared)", None),
    Outcome.FAIL: ("#d1242f", "assertion failed: wrong result or wrong error", "failure"),
    Outcome.CRASH: ("#82071e", "the test's process died (signal, abort, exit)", "error"),
    Outcome.FLAKY: ("#fb8f44", "run twice, the plugin answered differently (both observations recorded)", "failure"),
    Outcome.TIMEOUT: ("#e16f24", "killed after the per-test timeout", "error"),
    Outcome.ERROR: ("#8250df", "the suite's own bug (fixture or collection error)", "error"),
    Outcome.XPASS: ("#bf3989", "expected to fail by the expectations file, but passed", "failure"),
    Outcome.WARNING: ("#d4a72c", "works, with a hardening finding", None),
    Outcome.XFAIL: ("#6e7781", "failed as the expectations file says (waived)", "skipped"),
    Outcome.NOT_SUPPORTED: ("#afb8c1", "the plugin legitimately lacks the feature", "skipped"),
    Outcome.SKIP: ("#d8dee4", "excluded by the user", "skipped"),
}
# Every outcome, in the order the report's stylesheet defines their colours.
STYLE_ORDER: tuple[Outcome, ...] = tuple(_PRESENTATION)
_SEVERITY_RANK = {outcome: rank for rank, outcome in enumerate(SEVERITY_ORDER)}


def worst(outcomes: Iterable[Outcome]) -> Outcome | None:
    return min(outcomes, key=lambda outcome: outcome.severity, default=None)

LAYERS = (
    "abi",
    "client",
    "transfer",
    "compile",
    "aot",
    "execute",
    "executable",
    "events",
    "donation",
    "multidevice",
    "dlpack",
    "extensions",
    "versioning",
    "robustness",
    "multiprocess",
    "framework_jax",
    "framework_torch",
)


class FeatureNotSupported(Exception):
    """Raised by a test when the plugin legitimately lacks what the test checks; carries the plugin's reason and
    the kind of evidence (UNSUPPORTED_KINDS): only an answer at run time (UNIMPLEMENTED, or an error the plugin's own
    declaration was to explain) can differ between runs or between cases of one op, so only those kinds are confirmed
    and checked for consistency (pjrt_cts.runner)."""

    def __init__(self, reason: str, kind: str = "unimplemented", subject: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.kind = kind
        self.subject = subject  # what is missing, where a rule needs it: the element type's name (`f8e4m3fn`)


# What a NOT_SUPPORTED rests on (a record's details["unsupported_by"]); "reported": what the plugin says about itself
# decided what applies (its platform name, where no profile says which it must be); "topology": the plugin creates no
# topology without a device (the aot layer: PJRT_TopologyDescription_Create answered UNIMPLEMENTED or the profile's
# no-device code, or lacks the slot), which aot.topology.test_topologies_are_created_without_a_device reports.
UNSUPPORTED_KINDS = ("unimplemented", "slot", "extension", "devices", "memory_kind", "element_type", "feature",
                     "no_device", "declared", "reported", "topology")


class SharedDeviation(Exception):
    """Raised by a test when the plugin deviates from the spec exactly as XLA does (Outcome.SHARED_DEVIATION); the
    test records which deviation it recognised in its details (`deviation`, read by pjrt_cts.judgment.defects)."""


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
    """The layer a test id belongs to (its first component: `client` of `client.devices.test_lookup[3]`)."""
    return test_id.split(".", 1)[0]


def id_matches(test_id: str, pattern: str) -> bool:
    """Whole-id match of the id pattern syntax used by expectation files and level contracts: `*` is any run
    of characters, `?` one character, everything else literal (`[` and `]` delimit parameters in ids)."""
    return _compiled_pattern(pattern).fullmatch(test_id) is not None


def id_prefix_may_match(prefix: str, pattern: str) -> bool:
    """Whether some test id that starts with `prefix` can match `pattern` (same syntax as `id_matches`): the
    pattern's literal characters agree with `prefix` up to its first `*` or up to the prefix's end. Exact: past a
    `*` the rest of the prefix and any suffix can be absorbed."""
    for position, char in enumerate(pattern):
        if char == "*":
            return True
        if position == len(prefix):
            return True
        if char != "?" and char != prefix[position]:
            return False
    return len(pattern) >= len(prefix)


def module_id_prefix(path: str) -> str | None:
    """The id prefix every test of the suite module at `path` shares (`suites/client/test_devices.py` ->
    `client.devices.`); None for a path that is not a suite test module."""
    nodeid = path.replace("\\", "/") + "::_"
    test_id = test_id_from_nodeid(nodeid)
    return None if test_id == nodeid else test_id[:-1]


class IdPatterns:
    """Many id patterns matched as one (`--id` lists, the mandatory ids: thousands): exact ids by a set lookup,
    the wildcard ones by one compiled alternation, instead of one regex call per pattern and test."""

    def __init__(self, patterns: Iterable[str]) -> None:
        self.patterns = tuple(dict.fromkeys(patterns))
        self._exact = frozenset(p for p in self.patterns if "*" not in p and "?" not in p)
        wild = [_pattern_regex(p) for p in self.patterns if p not in self._exact]
        self._wild = re.compile("(?:" + "|".join(wild) + ")", re.DOTALL) if wild else None

    def __bool__(self) -> bool:
        return bool(self.patterns)

    def matches(self, test_id: str) -> bool:
        return test_id in self._exact or (self._wild is not None and self._wild.fullmatch(test_id) is not None)

    def may_match_prefix(self, prefix: str) -> bool:
        """Some id starting with `prefix` can match one of the patterns (`id_prefix_may_match`)."""
        return any(id_prefix_may_match(prefix, pattern) for pattern in self.patterns)


def _pattern_regex(pattern: str) -> str:
    return "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)


@functools.lru_cache(maxsize=4096)
def _compiled_pattern(pattern: str) -> re.Pattern[str]:
    return re.compile(_pattern_regex(pattern), re.DOTALL)
