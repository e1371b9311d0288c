"""`pjrt-cts triage`: the defects of any run, and a draft expectations file that waives them by name.

The table is recomputed from the records (pjrt_cts.judgment.defects): a run of a plugin by path, without a profile, gets
the same named defects as a profiled one. The draft waives each named defect with one `defect = ...` entry and
each unclassified finding with one per-test entry whose cause pins the observed failure (the mismatch's counts,
index and values, the error's text; a crash's signal and the PJRT function it died in; a hang's function), so a
later build that fails differently is not waived. A finding no cause can pin (a hang outside any PJRT call, a
message of nothing but generic words) gets a comment instead of an entry.

Every entry is written `draft = true` with a placeholder reason: triage guesses, a person decides. A run judged
with a draft entry is never CONFORMANT (pjrt_cts.judgment.verdict: INCOMPLETE, "expectations file has N draft
waivers") until someone writes each reason and removes the mark.
"""
from __future__ import annotations

import dataclasses
import re
from typing import Any

from pjrt_cts.judgment.defects import (UNCLASSIFIED, attribute, attribute_blocked, catalogue_by_id, defect_table,
                                      observations)
from pjrt_cts.judgment.defects.evidence import generic_match
from pjrt_cts.judgment.outcomes import Outcome
from pjrt_cts.schema import Observation, Results, TestRecord

_PINNED_MISMATCH = re.compile(r"(\d+ of \d+ elements differ|first mismatch at index \[[^\]]*\]: actual [^,]+, expected \S+)")
_WAIVABLE = frozenset({Outcome.FAIL, Outcome.CRASH, Outcome.TIMEOUT, Outcome.ERROR, Outcome.FLAKY})
# The line of a crash's stderr that says what failed (a CHECK, an uncaught exception).
_CRASH_LINE = re.compile(r"(Check failed: [^\n]{1,160}|what\(\): [^\n]{1,160}|terminate called [^\n]{1,120})")
DRAFT_REASON = "DRAFT: write what the defect is and why it is accepted for this plugin, then delete the draft line"


def diagnosed_records(results: Results) -> list[TestRecord]:
    """The run's records, each with its `defect` recomputed with this catalogue (it may name more defects than
    the one the run had); a blocked record is its root cause's."""
    return attribute_blocked(dataclasses.replace(record, defect=attribute(record)) for record in results.tests)


def triage_table(results: Results) -> list[dict[str, Any]]:
    return defect_table(diagnosed_records(results))


def attributed_share(rows: list[dict[str, Any]]) -> tuple[int, int]:
    """(findings attributed to a named defect, all findings)."""
    total = sum(row["tests"] for row in rows)
    named = sum(row["tests"] for row in rows if row["id"] != UNCLASSIFIED)
    return named, total


def format_table(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "no findings: every test PASSed (or was NOT_SUPPORTED / SKIP / WARNING)"
    lines = []
    for row in rows:
        kinds = ", ".join(f"{count} {outcome}" for outcome, count in sorted(row["outcomes"].items()))
        status = "BAD" if row["bad"] else "waived" if row["waived"] else "shared with XLA"
        lines.append(f"{row['id']}  [{row['scope']}, {status}]  {row['tests']} test(s): {kinds}")
        lines.append(f"    {row['title']}")
        if row.get("rule"):
            lines.append(f"    breaks: {row['rule']}" + (f" ({row['section']})" if row.get("section") else ""))
        lines.append(f"    smallest reproduction: {row['command']}")
    named, total = attributed_share(rows)
    lines.append(f"{len(rows)} defect(s); {named} of {total} findings ({100 * named / total:.1f}%) attributed to a named defect")
    return "\n".join(lines)


def draft_expectations(results: Results, plugin: str) -> str:
    """A TOML expectations file waiving every defect the run shows (not the shared deviations: they need no
    waiver) -- a draft for a vendor onboarding a plugin: every entry `draft = true` until reviewed."""
    records = diagnosed_records(results)
    waivable = [r for r in records if r.actual_outcome in _WAIVABLE]
    rows = {row["id"]: row for row in defect_table(waivable)}
    out = [f"# Expectations drafted by `pjrt-cts triage --write-expectations` for {plugin}.",
           "# Every entry is a DRAFT (`draft = true`): a run judged with one is never CONFORMANT. Review each: a",
           "# waiver accepts a defect, it does not fix it; write its reason and remove `draft = true`. A waived",
           "# mandatory test still keeps the plugin from that level (docs/levels.md).", ""]
    known = catalogue_by_id()
    by_test = {defect_id for defect_id in rows if defect_id == UNCLASSIFIED or not known[defect_id].waivable}
    for defect_id, row in rows.items():
        if defect_id in by_test:  # unclassified, or named for triage only: waived test by test
            continue
        found = f"triage found: {row['title']} ({row['tests']} tests, e.g. {row['example']})"
        out += ["[[expectation]]", f"defect = {_toml(defect_id)}", f"reason = {_toml(f'{DRAFT_REASON}; {found}')}",
                "draft = true"]
        if row["outcomes"].get(Outcome.FLAKY.value):  # it answered differently on a rerun: waived only as such
            out.append("intermittent = true  # FLAKY in this run: the defect does not show on every run")
        out.append("")
    for record in waivable:
        if record.defect in by_test:
            out += _per_test_entry(record)
    return "\n".join(out)


def _per_test_entry(record: TestRecord) -> list[str]:
    """The draft entry of one unclassified finding (its failing observation for a FLAKY one), or a comment saying
    why none can pin it."""
    seen = Observation(record.actual_outcome, record.message, record.duration, "")
    intermittent = seen.outcome is Outcome.FLAKY
    if intermittent:  # waive the failing one of its two observations
        failing = [obs for obs in observations(record) if obs.outcome in _WAIVABLE - {Outcome.FLAKY}]
        if not failing:
            return []
        seen = failing[0]
    cause = pinned_cause(seen.outcome, seen.message, record.details)
    if cause is None or generic_match(record.id, seen.outcome, re.compile(cause, re.DOTALL)) is not None:
        return [f"# {record.id}: {seen.outcome.value} with nothing to pin (no PJRT function, signal or message of its",
                "# own): no waiver can tell it from another failure of the test; fix it or investigate", ""]
    out = ["[[expectation]]", f"id = {_toml(record.id)}", f"outcome = {_toml(seen.outcome.value)}",
           f"cause = {_toml(cause)}"]
    if intermittent:
        out.append("intermittent = true")
    return out + [f"reason = {_toml(DRAFT_REASON + '; triage found: an unclassified finding')}", "draft = true", ""]


def pinned_cause(outcome: Outcome, message: str, details: dict[str, Any]) -> str | None:
    """A regular expression that matches this failure and not the generic failures of its test: a crash's signal
    and PJRT function (and its CHECK line), a hang's PJRT function, else the mismatch's counts and first differing
    element or the message's first line. None when there is nothing to pin."""
    if outcome in (Outcome.CRASH, Outcome.TIMEOUT):
        function = details.get("function")
        if outcome is Outcome.TIMEOUT:
            return re.escape(f"timeout in {function}") if function else None
        signal = details.get("signal") or next(iter(re.findall(r"\bSIG[A-Z]{3,}\b", message)), None)
        if not signal:
            return None
        parts = [re.escape(f"killed by {signal}" + (f" in {function}" if function else ""))]
        line = _CRASH_LINE.search(message)
        return ".*".join(parts + ([re.escape(line.group(1))] if line else []))
    pinned = _PINNED_MISMATCH.findall(message)
    if pinned:
        return ".*".join(re.escape(part) for part in pinned)
    first = message.strip().splitlines()[0] if message.strip() else ""
    return re.escape(first[:200]) if first else None


def _toml(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'
