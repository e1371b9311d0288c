"""Per-profile expectations (TOML): known deviations -> expected outcome, reason, tracking URL.

Two kinds of entry. A *defect waiver* names a defect of the catalogue (pjrt_cts/judgment/defects/catalogue.toml) and
covers exactly the findings the diagnosis attributes to it:

    [[expectation]]
    defect = "narrow-float-compile-aborts"     # a catalogue id
    reason = "why it is accepted for this plugin"
    url = "https://..."                        # optional
    intermittent = true                        # optional: the defect does not show on every run (see below)

A *per-test entry* names one test function (layer.area.test_name written out; parameters may use wildcards):

    [[expectation]]
    id = "transfer.round_trip.test_*[f8e4m3b11fnuz-*]"   # rejected: the test function must be literal
    id = "transfer.dtypes.test_round_trip_is_bit_exact[f8e4m3b11fnuz]"
    outcome = "FAIL"                                       # FAIL CRASH TIMEOUT ERROR NOT_SUPPORTED WARNING SKIP
    cause = "actual .*inf.*, expected .*nan"               # regex searched in the failure message
    reason = "why"
    intermittent = true                                    # optional; only for an id that is one test

The first matching entry (file order) applies. In patterns `*` and `?` are wildcards; `[` and `]` are literal.

A failing entry is a *waiver*: it turns the failure into XFAIL only when the test fails with exactly that
outcome AND its message matches `cause` (required for FAIL, CRASH, TIMEOUT and ERROR), so a test waived for one
defect that starts failing differently is reported as the failure it is. A cause must pin the failure, something
the test cannot show by chance: when the file is read, each cause is tried on the generic failures of its own test
(pjrt_cts.judgment.defects.evidence.generic_failures: its mismatch message with all zeros, garbage, NaN or one
element off, "elements differ", "max abs err", a PjrtError of each common function with each code, a crash
nowhere in particular, ...) and the file is rejected when it matches one. A CRASH cause names the signal
(`SIGABRT`, with the CHECK that fails or the function it dies in), a TIMEOUT cause the hang point (the PJRT
function the runner found it hung in: `in PJRT_Event_Await`). A defect waiver waives only what its defect
describes: a record the diagnosis attributed to it, with an outcome the defect shows (its catalogue rules'). A
waived test that passes is XPASS (bad: the entry is stale or matches too much) -- unless the
entry says `intermittent = true`: a defect that does not show on every run is XFAIL when it shows and PASS when
it does not, with the entry recorded on the passing test (`expected.intermittent`); a FLAKY record (two runs of
the test answered differently, pjrt_cts.runner.controller.confirmation) is waived only by an intermittent entry whose failure
one of its observations shows. Without `intermittent`, FLAKY stays bad. A waiver never satisfies a
mandatory test of a level (pjrt_cts.judgment.levels): an expectations file cannot lift a plugin to a level.

*Drafts.* `pjrt-cts triage --write-expectations` writes each entry with `draft = true` and a placeholder reason:
an entry nobody has reviewed. A draft entry waives as written, but a run judged with one is never CONFORMANT
(INCOMPLETE: "expectations file has N draft waivers", pjrt_cts.judgment.verdict) until a person writes its reason
and removes the mark.
"""
from __future__ import annotations

import dataclasses
import hashlib
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Iterable, Literal, Sequence, Union

from msgspec import Meta, Struct

from pjrt_cts.judgment.defects import attribute, catalogue_by_id
from pjrt_cts.judgment.defects.evidence import SIGNALS, generic_match
from pjrt_cts.judgment.outcomes import LAYERS, Outcome, id_matches
from pjrt_cts.schema import Expected, TestRecord, convert_file

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

# An expectation of one of these turns the same failure (outcome and cause) into XFAIL and a pass into XPASS.
FAILING = frozenset({Outcome.FAIL, Outcome.CRASH, Outcome.TIMEOUT, Outcome.ERROR})
ALLOWED = FAILING | {Outcome.NOT_SUPPORTED, Outcome.WARNING, Outcome.SKIP}
PASSING = frozenset({Outcome.PASS, Outcome.WARNING, Outcome.SHARED_DEVIATION})
_NAMES_SIGNAL = re.compile(r"SIG[A-Z]{3,}")
_NAMES_FUNCTION = re.compile(r"PJRT_[A-Za-z]")
_TEST_FUNCTION = re.compile(r"^(?P<layer>[a-z_]+)\.[A-Za-z0-9_.]+?\.test_[A-Za-z0-9_]+(\[.*\])?$", re.DOTALL)


class ExpectationsError(ValueError):
    """The expectations file cannot be read or has a malformed entry."""


# expectations.toml as its TOML parser gives it (docs/schema/expectations.schema.json is generated from these).
class ExpectationEntry(Struct, forbid_unknown_fields=True, kw_only=True):
    """An `[[expectation]]`: a per-test entry (`id`, `outcome`, `cause`) or a defect waiver (`defect`); see the
    module's docstring."""

    id: Union[str, None] = None  # one test function, layer.area.test_name[parameters]
    defect: Union[str, None] = None  # a catalogue id
    outcome: Union[Literal["FAIL", "CRASH", "TIMEOUT", "ERROR", "NOT_SUPPORTED", "WARNING", "SKIP"], None] = None
    cause: Union[Annotated[str, Meta(min_length=1)], None] = None  # a regular expression searched in the message
    reason: Annotated[str, Meta(pattern=r"\S")]
    url: Union[str, None] = None
    intermittent: bool = False
    draft: bool = False


class ExpectationsFile(Struct, forbid_unknown_fields=True):
    """plugins/<profile>/expectations.toml: the failures a profile accepts, first matching entry first."""

    expectation: list[ExpectationEntry] = []


@dataclass(frozen=True)
class Expectation:
    pattern: str  # a test-id pattern, or "defect:<id>" for a defect waiver
    outcome: Outcome
    reason: str
    url: str | None = None
    cause: str | None = None  # regex searched in the failure message
    intermittent: bool = False  # the failure does not show on every run: a pass is PASS, not XPASS
    defect: str | None = None  # a defect waiver: the records the diagnosis attributes to this catalogue id
    defect_outcomes: frozenset[Outcome] = frozenset()  # a defect waiver: the outcomes its defect shows
    draft: bool = False  # written by triage and not reviewed yet: a run judged with it is not CONFORMANT

    def matches(self, test_id: str, defect: str | None = None) -> bool:
        if self.defect is not None:
            return defect == self.defect
        return id_matches(test_id, self.pattern)

    def waives(self, actual: Outcome, message: str) -> bool:
        """The same failure: the expected outcome exactly, and a message that shows the expected cause. A FLAKY
        record (two different answers) is waived only by an `intermittent` entry, whose failure one of them showed
        (its message names both observations)."""
        if actual is Outcome.FLAKY:
            if not self.intermittent:
                return False
            if self.defect is not None:
                return True
            return self.outcome.value in message and (
                self.cause is None or re.search(self.cause, message or "", re.DOTALL) is not None)
        if self.defect is not None:  # the diagnosis attributed it: waived as an outcome its defect shows
            return actual in FAILING & self.defect_outcomes
        if actual is not self.outcome:
            return False
        return self.cause is None or re.search(self.cause, message or "", re.DOTALL) is not None

    def as_expected(self, actual: Outcome) -> Expected:
        """What a record keeps of this entry (its `expected`)."""
        # a defect waiver expects whichever failing outcome the diagnosis attributed to its defect
        return Expected(pattern=self.pattern, outcome=actual if self.defect is not None else self.outcome,
                        cause=self.cause, reason=self.reason, url=self.url, actual=actual, defect=self.defect,
                        intermittent=self.intermittent)


@dataclass
class Expectations:
    file: Path | None = None
    entries: list[Expectation] = field(default_factory=list)

    @classmethod
    def load(cls, path: Path) -> "Expectations":
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise ExpectationsError(f"{path}: {exc}") from exc
        entries = convert_file(data, ExpectationsFile, str(path), ExpectationsError).expectation
        return cls(file=path, entries=[_parse_entry(path, index, entry) for index, entry in enumerate(entries)])

    def match(self, test_id: str, defect: str | None = None) -> Expectation | None:
        for entry in self.entries:
            if entry.matches(test_id, defect):
                return entry
        return None

    def fingerprint(self) -> str:
        """SHA-256 of the file's bytes ("" without a file): shards judged by different files do not merge."""
        return hashlib.sha256(self.file.read_bytes()).hexdigest() if self.file is not None else ""

    def drafts(self) -> int:
        """Entries marked `draft = true` (written by triage, not reviewed)."""
        return sum(entry.draft for entry in self.entries)

    def skip_patterns(self) -> list[tuple[str, str]]:
        """(pattern, reason) of entries that say SKIP: matching tests are not run at all."""
        return [(e.pattern, e.reason) for e in self.entries if e.outcome is Outcome.SKIP]

    def unknown_patterns(self, test_ids: Iterable[str], selected_layers: Iterable[str]) -> list[str]:
        """Patterns that match no collected id; patterns naming a layer that was not run are not judged."""
        ids = list(test_ids)
        selected = set(selected_layers)
        unknown = []
        for entry in self.entries:
            if entry.defect is not None:
                continue  # judged by entry_usage (a defect no record shows waives nothing)
            layer = entry.pattern.split(".", 1)[0]
            if not _has_wildcard(layer) and layer not in selected and layer in LAYERS:
                continue
            if not any(entry.matches(test_id) for test_id in ids):
                unknown.append(entry.pattern)
        return unknown

    def describe(self, unknown: list[str], records: Iterable[TestRecord] = ()) -> dict[str, Any]:
        """What results.json says about the file: unmatched patterns and, per entry, what it matched."""
        return {"file": str(self.file) if self.file else None, "sha256": self.fingerprint(),
                "unknown_patterns": unknown, "entries": entry_usage(self, records)}


def skip_reason(test_id: str, skips: Iterable[Sequence[str]]) -> str | None:
    """The record's message for a test an entry that says SKIP leaves out (`skips`: Expectations.skip_patterns()
    pairs), or None when none does."""
    for pattern, reason in skips:
        if id_matches(test_id, pattern):
            return f"skipped by the expectations file: {reason}"
    return None


def entry_usage(expectations: Expectations, records: Iterable[TestRecord]) -> list[dict[str, Any]]:
    """Per entry: how many tests it waived (XFAIL), how many of its matches passed (XPASS: over-matching or
    stale) and how many failed otherwise than it says (outcome or cause differ: not waived)."""
    rows = [{"pattern": entry.pattern, "outcome": entry.outcome.value, "cause": entry.cause, "reason": entry.reason,
             **({"intermittent": True} if entry.intermittent else {}),
             **({"defect": entry.defect} if entry.defect else {}),
             **({"draft": True} if entry.draft else {})}
            for entry in expectations.entries]
    return count_usage(rows, records)


def count_usage(entries: Iterable[dict[str, Any]], records: Iterable[TestRecord]) -> list[dict[str, Any]]:
    """`entries` (results.json expectation rows, keyed by `pattern`) with waived / passed / other_failure /
    matched counted afresh over `records` (also used by `pjrt-cts merge`, which recounts over merged records)."""
    usage = {entry["pattern"]: dict(entry, waived=0, passed=0, other_failure=0, matched=0) for entry in entries}
    for record in records:
        expected = record.expected
        row = usage.get(expected.pattern) if expected is not None else None
        if row is None or expected is None:
            continue
        row["matched"] += 1
        if record.outcome is Outcome.XFAIL:
            row["waived"] += 1
        elif record.outcome is Outcome.XPASS:
            row["passed"] += 1
        elif expected.mismatch:
            row["other_failure"] += 1
    return list(usage.values())


def apply_expectation(record: TestRecord, expectations: Expectations) -> TestRecord:
    """The record diagnosed (its `defect`, pjrt_cts.judgment.defects) and with `outcome`/`expected` set from the
    expectations; idempotent (uses the actual outcome)."""
    actual = record.actual_outcome
    updated = dataclasses.replace(record, outcome=actual, expected=None)
    updated = dataclasses.replace(updated, defect=attribute(updated))
    entry = expectations.match(record.id, updated.defect)
    if entry is not None and entry.defect is not None and actual not in FAILING | {Outcome.FLAKY}:
        entry = None  # a defect waiver covers failures only: a shared deviation of the same defect needs none
    if entry is None:
        return updated
    expected = entry.as_expected(actual)
    outcome = actual
    if entry.outcome in FAILING:
        if entry.waives(actual, record.message):
            outcome = Outcome.XFAIL
        elif actual in PASSING:
            outcome = actual if entry.intermittent else Outcome.XPASS
        elif actual in FAILING:  # a different failure than the one waived: reported as what it is
            wanted = (f"{entry.defect}'s {'/'.join(sorted(o.value for o in entry.defect_outcomes & FAILING))}"
                      if entry.defect is not None else
                      entry.outcome.value + (f" matching /{entry.cause}/" if entry.cause else ""))
            expected = dataclasses.replace(
                expected, mismatch=f"the expectation waives {wanted}; this is another failure ({actual.value})")
    return dataclasses.replace(updated, outcome=outcome, expected=expected)


def _has_wildcard(text: str) -> bool:
    return any(char in text for char in "*?")


def _parse_entry(path: Path, index: int, entry: ExpectationEntry) -> Expectation:
    where = f"{path}: expectation #{index + 1}"
    if entry.defect is not None:
        return dataclasses.replace(_parse_defect_entry(where, entry), draft=entry.draft)
    pattern = entry.id
    if not pattern:
        raise ExpectationsError(f"{where}: 'id' (a test id pattern) or 'defect' (a catalogue id) is required")
    named = _TEST_FUNCTION.match(pattern)
    if named is None or _has_wildcard(pattern.split("[", 1)[0]) or named["layer"] not in LAYERS:
        raise ExpectationsError(f"{where} ({pattern}): 'id' must name one test function (layer.area.test_name, no "
                                "wildcard before the parameters); waive a defect of many tests with 'defect = ...'")
    if entry.outcome is None:
        allowed = ", ".join(sorted(o.value for o in ALLOWED))
        raise ExpectationsError(f"{where} ({pattern}): 'outcome' (one of {allowed}) is required")
    expected = Outcome(entry.outcome)
    if entry.cause is not None:
        _check_cause(f"{where} ({pattern})", pattern, expected, entry.cause)
    elif expected in FAILING:
        raise ExpectationsError(f"{where} ({pattern}): a {expected.value} waiver needs 'cause' (a regular expression "
                                "searched in the failure message), so that another failure is not waived")
    if entry.intermittent and expected not in FAILING:
        raise ExpectationsError(f"{where} ({pattern}): 'intermittent' applies to failing outcomes only")
    if entry.intermittent and _has_wildcard(pattern):
        raise ExpectationsError(f"{where} ({pattern}): 'intermittent' applies to one test: the id may have no wildcard")
    return Expectation(pattern=pattern, outcome=expected, reason=entry.reason, url=entry.url, cause=entry.cause,
                       intermittent=entry.intermittent, draft=entry.draft)


def _check_cause(where: str, pattern: str, expected: Outcome, cause: str) -> None:
    """A cause pins what only this failure shows: never a generic failure of its own test; a CRASH's names the
    signal, a TIMEOUT's the hang point (evidence.generic_failures, the module's docstring)."""
    try:
        compiled = re.compile(cause, re.DOTALL)
    except re.error as exc:
        raise ExpectationsError(f"{where}: 'cause' is not a regular expression: {exc}") from exc
    if expected is Outcome.CRASH and not _NAMES_SIGNAL.search(cause):
        raise ExpectationsError(f"{where}: a CRASH cause names the signal it expects ({', '.join(SIGNALS[:3])}, ...) "
                                "with the CHECK that fails or the PJRT function it dies in")
    if expected is Outcome.TIMEOUT and not _NAMES_FUNCTION.search(cause):
        raise ExpectationsError(f"{where}: a TIMEOUT cause names the hang point: the PJRT function the test hangs in "
                                "as the runner records it ('in PJRT_Event_Await')")
    generic = generic_match(pattern, expected, compiled)
    if generic is not None:
        raise ExpectationsError(
            f"{where}: 'cause' /{cause}/ matches a generic {expected.value} of the test ({generic.what}: "
            f"{generic.message.splitlines()[0][:160]!r}): it would waive any such failure; pin the observed "
            "failure (which elements differ and how, the error code and message, the CHECK that fails)")


def _parse_defect_entry(where: str, entry: ExpectationEntry) -> Expectation:
    defect = entry.defect
    if entry.id is not None or entry.outcome is not None or entry.cause is not None:
        raise ExpectationsError(f"{where} ({defect}): a defect waiver takes 'defect', 'reason', 'url', "
                                "'intermittent' and 'draft' only (the diagnosis decides which tests it covers)")
    known = catalogue_by_id().get(str(defect))
    if known is None:
        raise ExpectationsError(f"{where}: 'defect' {defect!r} is not in the defect catalogue "
                                "(pjrt_cts/judgment/defects/catalogue.toml; `pjrt-cts triage --catalogue` lists it)")
    if not known.waivable:
        raise ExpectationsError(f"{where}: defect {defect!r} is named for triage only (`waivable = false` in the "
                                "catalogue: its rules pin text the plugin writes, over many tests): waive its "
                                "tests one by one with per-test entries")
    # `outcome` is not read for a defect waiver (waives() takes the failing outcomes the defect shows)
    return Expectation(pattern=f"defect:{defect}", outcome=Outcome.FAIL, reason=entry.reason, url=entry.url,
                       defect=str(defect), intermittent=entry.intermittent, defect_outcomes=known.outcomes)
