"""The diagnosis: each finding of a run attributed to a named defect of the catalogue, or to "unclassified".

Findings are the records whose outcome is bad (FAIL, CRASH, TIMEOUT, ERROR, XPASS), waived (XFAIL) or a
deviation shared with XLA (SHARED_DEVIATION). The attribution is a pure function of the record (its id, actual
outcome, message and the deviation the test recomputed), so every consumer recomputes the same table: the
runner before it applies the expectations (a waiver can name a defect), `pjrt-cts triage` over any results file.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Iterable

from pjrt_cts.judgment.defects.catalogue import UNCLASSIFIED, Defect, catalogue_by_id, load_catalogue
from pjrt_cts.judgment.outcomes import Outcome
from pjrt_cts.schema import Observation, TestRecord

FINDING_OUTCOMES = frozenset({Outcome.FAIL, Outcome.CRASH, Outcome.TIMEOUT, Outcome.ERROR, Outcome.XPASS,
                              Outcome.XFAIL, Outcome.SHARED_DEVIATION, Outcome.FLAKY})
# An expected failure is diagnosed by what actually happened.
_DIAGNOSED_AS = frozenset({Outcome.FAIL, Outcome.CRASH, Outcome.TIMEOUT, Outcome.ERROR, Outcome.SHARED_DEVIATION})


def attribute(record: TestRecord) -> str | None:
    """The defect id of `record`'s finding, UNCLASSIFIED when no defect explains it, None when it is no finding."""
    actual = record.actual_outcome
    if actual is Outcome.FLAKY:
        return _attribute_flaky(record)
    if actual not in _DIAGNOSED_AS:
        return None
    if record.details.get("blocked_by"):
        # It never ran (another finding blocked it): nothing it would have tested is observed, so no rule of the
        # catalogue, all of which describe what a test saw, applies to it.
        return UNCLASSIFIED
    deviation = record.details.get("deviation")
    known = catalogue_by_id()
    if isinstance(deviation, str) and deviation in known:
        return deviation
    for defect in load_catalogue():
        if any(rule.matches(record.id, actual, record.message, record.details) for rule in defect.match):
            return defect.id
    return UNCLASSIFIED


def attribute_blocked(records: Iterable[TestRecord]) -> list[TestRecord]:
    """`records` with each blocked one (`details.blocked_by`: it never ran) attributed to the defect of the finding that
    blocked it, where that finding is among them: one root cause is one defect, however many tests it kept from
    running (a plugin that cannot be loaded, a client that cannot be created)."""
    records = list(records)
    by_id = {record.id: record for record in records}
    out = []
    for record in records:
        cause = by_id.get(str(record.details.get("blocked_by") or ""))
        if cause is not None and cause is not record and cause.defect and record.defect == UNCLASSIFIED:
            record = dataclasses.replace(record, defect=cause.defect)
        out.append(record)
    return out


def _attribute_flaky(record: TestRecord) -> str:
    """A FLAKY record (two different observations, pjrt_cts.runner.controller.confirmation) is the defect either observation
    shows, the first one's first."""
    others = {key: value for key, value in record.details.items() if key != "observations"}
    for seen in observations(record):
        as_seen = dataclasses.replace(record, outcome=seen.outcome, message=seen.message, details=others,
                                      expected=None)
        defect = attribute(as_seen)
        if defect not in (None, UNCLASSIFIED):
            return str(defect)
    return UNCLASSIFIED


def observations(record: TestRecord) -> list[Observation]:
    """The two observations a FLAKY record keeps in `details.observations` (pjrt_cts.runner.controller.confirmation)."""
    return [Observation.from_json(seen) for seen in record.details.get("observations") or []
            if isinstance(seen, dict)]


def defect_of(record: TestRecord) -> str:
    """The defect a finding was attributed to by the runner (its `defect`), or attributed now (results files
    written before the diagnosis existed)."""
    return str(record.defect or attribute(record) or UNCLASSIFIED)


def defect_table(records: Iterable[TestRecord]) -> list[dict[str, Any]]:
    """One row per defect with findings in `records`: the catalogue's description, the records it covers by
    final outcome, how many are waived / shared with XLA / bad, an example and a reproduction command (the
    example's `repro`; `pjrt-cts run PLUGIN --id ID` for a record without one, PLUGIN standing for its path).
    Ordered: bad first, then waived, then shared; within, by number of tests."""
    known = catalogue_by_id()
    rows: dict[str, dict[str, Any]] = {}
    for record in records:
        outcome = record.outcome
        if outcome not in FINDING_OUTCOMES:
            continue
        defect_id = defect_of(record)
        row = rows.get(defect_id)
        if row is None:
            row = rows[defect_id] = _row(known.get(defect_id), defect_id)
        row["tests"] += 1
        row["outcomes"][outcome.value] = row["outcomes"].get(outcome.value, 0) + 1
        if outcome is Outcome.XFAIL:
            row["waived"] += 1
        elif outcome is Outcome.SHARED_DEVIATION:
            row["shared"] += 1
        else:
            row["bad"] += 1
        if row["example"] is None or _simpler(record.id, row["example"]):
            row["example"] = record.id
            row["repro"] = record.repro
    for row in rows.values():  # the example's own line names the run's plugin, profile and options
        row["command"] = row["repro"] or f"pjrt-cts run PLUGIN --id '{row['example']}'"
    return sorted(rows.values(), key=lambda r: (0 if r["bad"] else 1 if r["waived"] else 2, -r["tests"], r["id"]))


def _row(defect: Defect | None, defect_id: str) -> dict[str, Any]:
    described = defect.to_dict() if defect is not None else {
        "id": defect_id, "title": "findings no catalogued defect explains", "scope": "unknown", "rule": "",
        "section": "", "upstream": "", "explanation": ""}
    return dict(described, tests=0, outcomes={}, waived=0, shared=0, bad=0, example=None, repro="")


def _simpler(candidate: str, current: str) -> bool:
    """The smallest reproduction: the shortest id (fewest attributes), then the first in order."""
    return (len(candidate), candidate) < (len(current), current)
