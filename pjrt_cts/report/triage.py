"""`pjrt-cts triage`: the defects of any run, and a draft expectations file that waives them by name.

The table is recomputed from the records (pjrt_cts.judgment.defects): a run of a plugin by path, without a profile, gets
the same named defects as a profiled one. The draft waives each named defect with one `defect = ...` entry and
each unclassified finding with one per-test entry whose cause pins the observed failure (the mismatch's index
and values, or the error's text), so a later build that fails differently is not waived.
"""
from __future__ import annotations

import dataclasses
import re
from typing import Any

from pjrt_cts.judgment.defects import UNCLASSIFIED, attribute, attribute_blocked, defect_table, observations
from pjrt_cts.judgment.outcomes import Outcome
from pjrt_cts.schema import Results, TestRecord

_PINNED_MISMATCH = re.compile(r"(\d+ of \d+ elements differ|first mismatch at index \[[^\]]*\]: actual [^,]+, expected \S+)")
_WAIVABLE = frozenset({Outcome.FAIL, Outcome.CRASH, Outcome.TIMEOUT, Outcome.ERROR, Outcome.FLAKY})


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
    waiver) -- a draft for a vendor onboarding a plugin, to be reviewed entry by entry."""
    records = diagnosed_records(results)
    waivable = [r for r in records if r.actual_outcome in _WAIVABLE]
    rows = {row["id"]: row for row in defect_table(waivable)}
    out = [f"# Expectations drafted by `pjrt-cts triage --write-expectations` for {plugin}.",
           "# Review every entry: a waiver accepts a defect, it does not fix it; a waived mandatory test still",
           "# keeps the plugin from that level (docs/levels.md).", ""]
    for defect_id, row in rows.items():
        if defect_id == UNCLASSIFIED:
            continue
        reason = f"{row['title']} ({row['tests']} tests, e.g. {row['example']})"
        out += ["[[expectation]]", f"defect = {_toml(defect_id)}", f"reason = {_toml(reason)}"]
        if row["outcomes"].get(Outcome.FLAKY.value):  # it answered differently on a rerun: waived only as such
            out.append("intermittent = true  # FLAKY in this run: the defect does not show on every run")
        out.append("")
    for record in waivable:
        if record.defect != UNCLASSIFIED:
            continue
        outcome, message = record.actual_outcome, record.message
        intermittent = outcome is Outcome.FLAKY
        if intermittent:  # waive the failing one of its two observations
            failing = [seen for seen in observations(record) if seen.outcome in _WAIVABLE - {Outcome.FLAKY}]
            if not failing:
                continue
            outcome, message = failing[0].outcome, failing[0].message
        out += ["[[expectation]]", f"id = {_toml(record.id)}", f"outcome = {_toml(outcome.value)}"]
        if outcome is not Outcome.TIMEOUT:
            out.append(f"cause = {_toml(pinned_cause(message))}")
        if intermittent:
            out.append("intermittent = true")
        out += [f"reason = {_toml('unclassified finding: describe the defect')}", ""]
    return "\n".join(out)


def pinned_cause(message: str) -> str:
    """A regular expression that matches this failure and not the generic message of its kind: the mismatch's
    counts and first differing element, else the message's first line."""
    pinned = _PINNED_MISMATCH.findall(message)
    if pinned:
        return ".*".join(re.escape(part) for part in pinned)
    first = message.strip().splitlines()[0] if message.strip() else ""
    return re.escape(first[:200])


def _toml(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'
