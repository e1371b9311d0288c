"""Per-profile expectations (TOML): test-id patterns -> expected outcome, failure cause, reason, tracking URL.

    [[expectation]]
    id = "transfer.round_trip.test_*[f8e4m3b11fnuz-*]"   # * and ? are wildcards, [ ] literal
    outcome = "FAIL"                                       # FAIL CRASH TIMEOUT ERROR NOT_SUPPORTED WARNING SKIP
    cause = "actual .*inf.*, expected .*nan"               # regex searched in the failure message
    reason = "why"
    url = "https://..."                                    # optional
    intermittent = true                                    # optional, failing outcomes only (see below)

The first matching entry (file order) applies. In patterns `*` and `?` are wildcards; `[` and `]`
are literal, because they delimit the parameters in test ids (`test_x[f32-4]`).

An entry for a failing outcome is a *waiver*: it turns the failure into XFAIL only when the test fails
with exactly that outcome AND its message matches `cause` (required for FAIL, CRASH and ERROR), so a test
waived for one defect that starts failing differently is reported as the failure it is. A waived test that
passes is XPASS (bad: the entry is stale or matches too much) -- unless the entry says `intermittent = true`:
a defect that does not show on every run (memory corruption seen only after earlier inputs, a race) is XFAIL
when it shows and PASS when it does not, with the entry recorded on the passing test (`expected.intermittent`),
so a run's verdict does not flip with it. The failure itself is still waived only with the same outcome and cause.
"""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from pjrt_cts.outcomes import LAYERS, Outcome, id_matches

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

# An expectation of one of these turns the same failure (outcome and cause) into XFAIL and a pass into XPASS.
FAILING = frozenset({Outcome.FAIL, Outcome.CRASH, Outcome.TIMEOUT, Outcome.ERROR})
# A TIMEOUT has no message of its own to match; the others must say which failure they waive.
NEEDS_CAUSE = frozenset({Outcome.FAIL, Outcome.CRASH, Outcome.ERROR})
ALLOWED = FAILING | {Outcome.NOT_SUPPORTED, Outcome.WARNING, Outcome.SKIP}
PASSING = frozenset({Outcome.PASS, Outcome.WARNING})


class ExpectationsError(ValueError):
    """The expectations file cannot be read or has a malformed entry."""


@dataclass(frozen=True)
class Expectation:
    pattern: str
    outcome: Outcome
    reason: str
    url: str | None = None
    cause: str | None = None  # regex searched in the failure message
    intermittent: bool = False  # the failure does not show on every run: a pass is PASS, not XPASS

    def matches(self, test_id: str) -> bool:
        return id_matches(test_id, self.pattern)

    def waives(self, actual: Outcome, message: str) -> bool:
        """The same failure: the expected outcome exactly, and a message that shows the expected cause."""
        if actual is not self.outcome:
            return False
        return self.cause is None or re.search(self.cause, message or "", re.DOTALL) is not None

    def as_record(self, actual: str) -> dict[str, Any]:
        record: dict[str, Any] = {"pattern": self.pattern, "outcome": self.outcome.value, "cause": self.cause, "reason": self.reason,
                  "url": self.url, "actual": actual}
        if self.intermittent:
            record["intermittent"] = True
        return record


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
        raw = data.get("expectation", [])
        if not isinstance(raw, list):
            raise ExpectationsError(f"{path}: 'expectation' must be an array of tables ([[expectation]])")
        entries = [_parse_entry(path, index, entry) for index, entry in enumerate(raw)]
        return cls(file=path, entries=entries)

    def match(self, test_id: str) -> Expectation | None:
        for entry in self.entries:
            if entry.matches(test_id):
                return entry
        return None

    def skip_patterns(self) -> list[tuple[str, str]]:
        """(pattern, reason) of entries that say SKIP: matching tests are not run at all."""
        return [(e.pattern, e.reason) for e in self.entries if e.outcome is Outcome.SKIP]

    def unknown_patterns(self, test_ids: Iterable[str], selected_layers: Iterable[str]) -> list[str]:
        """Patterns that match no collected id; patterns naming a layer that was not run are not judged."""
        ids = list(test_ids)
        selected = set(selected_layers)
        unknown = []
        for entry in self.entries:
            layer = entry.pattern.split(".", 1)[0]
            if not _has_wildcard(layer) and layer not in selected and layer in LAYERS:
                continue
            if not any(entry.matches(test_id) for test_id in ids):
                unknown.append(entry.pattern)
        return unknown

    def describe(self, unknown: list[str], records: Iterable[dict[str, Any]] = ()) -> dict[str, Any]:
        """What results.json says about the file: unmatched patterns and, per entry, what it matched."""
        return {"file": str(self.file) if self.file else None, "unknown_patterns": unknown,
                "entries": entry_usage(self, records)}


def entry_usage(expectations: Expectations, records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per entry: how many tests it waived (XFAIL), how many of its matches passed (XPASS: over-matching or
    stale) and how many failed otherwise than it says (outcome or cause differ: not waived)."""
    rows = [{"pattern": entry.pattern, "outcome": entry.outcome.value, "cause": entry.cause, "reason": entry.reason,
             **({"intermittent": True} if entry.intermittent else {})}
            for entry in expectations.entries]
    return count_usage(rows, records)


def count_usage(entries: Iterable[dict[str, Any]], records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """`entries` (results.json expectation rows, keyed by `pattern`) with waived / passed / other_failure /
    matched counted afresh over `records` (also used by `pjrt-cts merge`, which recounts over merged records)."""
    usage = {entry["pattern"]: dict(entry, waived=0, passed=0, other_failure=0, matched=0) for entry in entries}
    for record in records:
        expected = record.get("expected") or {}
        row = usage.get(expected.get("pattern", ""))
        if row is None:
            continue
        row["matched"] += 1
        if record.get("outcome") == Outcome.XFAIL.value:
            row["waived"] += 1
        elif record.get("outcome") == Outcome.XPASS.value:
            row["passed"] += 1
        elif expected.get("mismatch"):
            row["other_failure"] += 1
    return list(usage.values())


def apply_expectation(record: dict[str, Any], expectations: Expectations) -> dict[str, Any]:
    """The record with `outcome`/`expected` set from the expectations; idempotent (uses the actual outcome)."""
    previous = record.get("expected")
    actual = Outcome(previous["actual"] if previous else record["outcome"])
    entry = expectations.match(record["id"])
    updated = dict(record)
    updated["outcome"] = actual.value
    updated["expected"] = None
    if entry is None:
        return updated
    updated["expected"] = entry.as_record(actual.value)
    if entry.outcome in FAILING:
        if entry.waives(actual, str(record.get("message") or "")):
            updated["outcome"] = Outcome.XFAIL.value
        elif actual in PASSING:
            updated["outcome"] = actual.value if entry.intermittent else Outcome.XPASS.value
        elif actual in FAILING:  # a different failure than the one waived: reported as what it is
            wanted = entry.outcome.value + (f" matching /{entry.cause}/" if entry.cause else "")
            updated["expected"]["mismatch"] = f"the expectation waives {wanted}; this is another failure ({actual.value})"
    return updated


def _has_wildcard(text: str) -> bool:
    return any(char in text for char in "*?")


def _parse_entry(path: Path, index: int, entry: Any) -> Expectation:
    where = f"{path}: expectation #{index + 1}"
    if not isinstance(entry, dict):
        raise ExpectationsError(f"{where}: must be a table")
    unknown_keys = set(entry) - {"id", "outcome", "reason", "url", "cause", "intermittent"}
    if unknown_keys:
        raise ExpectationsError(f"{where}: unknown keys {sorted(unknown_keys)}")
    pattern, outcome, reason, url = entry.get("id"), entry.get("outcome"), entry.get("reason"), entry.get("url")
    if not isinstance(pattern, str) or not pattern:
        raise ExpectationsError(f"{where}: 'id' (a test id pattern) is required")
    if not isinstance(reason, str) or not reason.strip():
        raise ExpectationsError(f"{where} ({pattern}): 'reason' is required")
    if url is not None and not isinstance(url, str):
        raise ExpectationsError(f"{where} ({pattern}): 'url' must be a string")
    try:
        expected = Outcome(str(outcome).upper())
    except ValueError:
        expected = None
    if expected not in ALLOWED:
        allowed = ", ".join(sorted(o.value for o in ALLOWED))
        raise ExpectationsError(f"{where} ({pattern}): outcome {outcome!r} is not one of {allowed}")
    cause = entry.get("cause")
    if cause is not None:
        if not isinstance(cause, str) or not cause:
            raise ExpectationsError(f"{where} ({pattern}): 'cause' must be a non-empty regular expression")
        try:
            re.compile(cause)
        except re.error as exc:
            raise ExpectationsError(f"{where} ({pattern}): 'cause' is not a regular expression: {exc}") from exc
    elif expected in NEEDS_CAUSE:
        raise ExpectationsError(f"{where} ({pattern}): a {expected.value} waiver needs 'cause' (a regular expression "
                                "searched in the failure message), so that another failure is not waived")
    intermittent = entry.get("intermittent", False)
    if not isinstance(intermittent, bool):
        raise ExpectationsError(f"{where} ({pattern}): 'intermittent' must be true or false")
    if intermittent and expected not in FAILING:
        raise ExpectationsError(f"{where} ({pattern}): 'intermittent' applies to failing outcomes only")
    return Expectation(pattern=pattern, outcome=expected, reason=reason, url=url, cause=cause,
                       intermittent=intermittent)
