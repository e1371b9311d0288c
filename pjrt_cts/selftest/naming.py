"""Whether a mutant run's diagnosis named the defect the mutant injects (issue 27: findings become named defects).

Every record of a run carries `defect` (pjrt_cts.judgment.defects.diagnosis): the catalogued id its finding is attributed
to, "unclassified", or None (no finding). A mutant whose catalogue entry `names` a defect id is *named* when
that id is the attribution its catching tests (the records that moved the verdict) carry most often, ties
counting for it: it is then the top defect a triage of those findings shows. One mutant's catching tests may
also meet deviations the plugin already had (e.g. an f64 case whose values are both flushed and rounded), so a
few records attributed elsewhere do not make the naming wrong; most of them do.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable

from pjrt_cts.judgment.defects import FINDING_OUTCOMES, UNCLASSIFIED
from pjrt_cts.schema import TestRecord

NO_FINDING = "no finding"  # a catching record the diagnosis has nothing to say about (e.g. NOT_SUPPORTED)


@dataclass(frozen=True)
class Naming:
    named: bool
    attributions: dict[str, int] = field(default_factory=dict)  # defect id -> catching tests attributed to it
    explanation: str = ""

    def summary(self, expected: str) -> str:
        """`yes (12/12)`, `no (unclassified 10, f64-computed-in-f32 2)`, or `no (...why)`."""
        if not self.attributions:
            return f"no ({self.explanation})"
        total = sum(self.attributions.values())
        if self.named:
            return f"yes ({self.attributions[expected]}/{total})"
        return "no (" + ", ".join(f"{defect_id} {count}" for defect_id, count in self.ranked()) + ")"

    def ranked(self) -> list[tuple[str, int]]:
        return sorted(self.attributions.items(), key=lambda item: (-item[1], item[0]))


def naming(expected: str, catching_records: Iterable[TestRecord]) -> Naming:
    """Whether the diagnosis of `catching_records` names `expected` (see the module docstring)."""
    records = list(catching_records)
    if not records:
        return Naming(False, explanation="no test moved the verdict: no finding to name")
    # A finding the runner diagnosed has a `defect` (UNCLASSIFIED at least); one without was never diagnosed.
    if not any(record.defect is not None or record.outcome not in FINDING_OUTCOMES for record in records):
        return Naming(False, explanation="the run's records carry no diagnosis (no `defect` field)")
    counts = Counter(_attribution(record) for record in records)
    top = max(counts.values())
    named = counts.get(expected, 0) == top
    explanation = "" if named else (
        f"the diagnosis attributed the catching tests to {', '.join(f'{d} ({n})' for d, n in counts.most_common(3))}, "
        f"not mostly to {expected}")
    return Naming(named, dict(counts), explanation)


def _attribution(record: TestRecord) -> str:
    defect = record.defect
    if defect is None:
        return NO_FINDING
    return str(defect) or UNCLASSIFIED
