"""Comparing two runs: per-test outcome changes, classified, plus coverage, level and defect movement.

Rules (also in docs/levels.md, "Gate rules"):
- good outcomes are PASS, SHARED_DEVIATION, NOT_SUPPORTED, XFAIL, WARNING, SKIP; bad ones are
  outcomes.BAD_OUTCOMES. A test is *covered* when it PASSes or is a SHARED_DEVIATION (both meet a level).
- newly waived: a test is XFAIL now and was not (whatever it was, or absent). A new waiver is never a fix,
  nor a regression: the expectations file accepted it, and the gate's waiver budgets bound it.
- new crash: a test now CRASHes or TIMEOUTs that did not before (whatever it was, even FAIL).
- new failure: good -> bad (other than a new crash).
- deselected: a finding (bad, or XFAIL) -> SKIP: the failure is not fixed, it no longer runs (a SKIP entry of the
  expectations file, -k, --id).
- feature dropped: a finding -> NOT_SUPPORTED: the failure is not fixed, the feature is gone.
- coverage loss: covered -> NOT_SUPPORTED or SKIP, or a covered test of the old run missing now.
- new test failing: a test absent from the old run has a bad outcome.
These six are regressions. Fix: bad -> good other than XFAIL, SKIP or NOT_SUPPORTED, or WARNING -> PASS. Spec fix:
SHARED_DEVIATION -> PASS. Coverage gain: NOT_SUPPORTED, SKIP or XFAIL -> covered. New shared deviation:
PASS -> SHARED_DEVIATION (informational: XLA's own answer, it still meets the levels). Everything else
(added, removed, new warning, bad -> other bad) is informational.

Defects (pjrt_cts.judgment.defects.defect_table of each run) are compared by id: introduced, fixed or unchanged.
"""
from __future__ import annotations

import enum
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from pjrt_cts.judgment.defects import defect_table
from pjrt_cts.judgment.outcomes import BAD_OUTCOMES, Outcome
from pjrt_cts.report.coverage import build_matrix
from pjrt_cts.judgment.results import outcome_counts
from pjrt_cts.schema import Results
from pjrt_cts.judgment.verdict import judge_results

HANG_OR_DEATH = frozenset({Outcome.CRASH, Outcome.TIMEOUT})
FINDINGS = BAD_OUTCOMES | {Outcome.XFAIL}  # a failure, waived or not
COVERED = frozenset({Outcome.PASS, Outcome.SHARED_DEVIATION})  # meets a level's contract by running
NOT_COVERED = frozenset({Outcome.NOT_SUPPORTED, Outcome.SKIP, Outcome.XFAIL})


class ChangeKind(str, enum.Enum):
    # Declaration order is the listing order: regressions, then new waivers, then progress, then the rest.
    NEW_CRASH = "new crash"
    NEW_FAILURE = "new failure"
    DESELECTED = "deselected"
    FEATURE_DROPPED = "feature dropped"
    COVERAGE_LOSS = "coverage loss"
    NEW_TEST_FAILING = "new test failing"
    NEWLY_WAIVED = "newly waived"
    FIX = "fix"
    SPEC_FIX = "spec fix"
    COVERAGE_GAIN = "coverage gain"
    NEW_SHARED_DEVIATION = "new shared deviation"
    NEW_WARNING = "new warning"
    ADDED = "added"
    REMOVED = "removed"
    CHANGED = "changed"

    @property
    def is_regression(self) -> bool:
        return self in REGRESSION_KINDS


REGRESSION_KINDS = frozenset(
    {ChangeKind.NEW_CRASH, ChangeKind.NEW_FAILURE, ChangeKind.DESELECTED, ChangeKind.FEATURE_DROPPED,
     ChangeKind.COVERAGE_LOSS, ChangeKind.NEW_TEST_FAILING}
)
KIND_ORDER = list(ChangeKind)
PROGRESS_KINDS = (ChangeKind.FIX, ChangeKind.SPEC_FIX, ChangeKind.COVERAGE_GAIN)


def classify(old: Outcome | None, new: Outcome | None) -> ChangeKind | None:
    """The kind of change from `old` to `new` (None = absent from that run); None when unchanged."""
    if old == new:
        return None
    if new is None:
        return ChangeKind.COVERAGE_LOSS if old in COVERED else ChangeKind.REMOVED
    if new is Outcome.XFAIL:  # before the fix rule: a failure that got a waiver was not fixed
        return ChangeKind.NEWLY_WAIVED
    if old is None:
        return ChangeKind.NEW_TEST_FAILING if new in BAD_OUTCOMES else ChangeKind.ADDED
    if new in HANG_OR_DEATH and old not in HANG_OR_DEATH:
        return ChangeKind.NEW_CRASH
    if new in BAD_OUTCOMES and old not in BAD_OUTCOMES:
        return ChangeKind.NEW_FAILURE
    if old in FINDINGS and new is Outcome.SKIP:  # before the fix rule: a failure that no longer runs is not fixed
        return ChangeKind.DESELECTED
    if old in FINDINGS and new is Outcome.NOT_SUPPORTED:
        return ChangeKind.FEATURE_DROPPED
    if old in BAD_OUTCOMES and new not in BAD_OUTCOMES:
        return ChangeKind.FIX
    if old is Outcome.PASS and new is Outcome.SHARED_DEVIATION:
        return ChangeKind.NEW_SHARED_DEVIATION
    if old is Outcome.SHARED_DEVIATION and new is Outcome.PASS:
        return ChangeKind.SPEC_FIX
    if old in COVERED and new in NOT_COVERED:
        return ChangeKind.COVERAGE_LOSS
    if new in COVERED and old in NOT_COVERED:
        return ChangeKind.COVERAGE_GAIN
    if new is Outcome.PASS and old is Outcome.WARNING:
        return ChangeKind.FIX
    if new is Outcome.WARNING:
        return ChangeKind.NEW_WARNING
    return ChangeKind.CHANGED


@dataclass(frozen=True)
class Change:
    test_id: str
    old: Outcome | None
    new: Outcome | None
    kind: ChangeKind
    message: str  # the new run's message (or the old one's for a vanished test)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.test_id,
            "old": self.old.value if self.old else None,
            "new": self.new.value if self.new else None,
            "kind": self.kind.value,
            "regression": self.kind.is_regression,
            "message": self.message,
        }


@dataclass
class RunStats:
    tests: int
    counts: Counter[Outcome]
    verdict: str
    level: str | None  # awarded: a CONFORMANT run's only (pjrt_cts.judgment.verdict)
    covered_pairs: int  # (op, dtype) pairs of the execute layer with a PASS
    plugin_sha256: str
    waived_defects: list[dict[str, Any]] = field(default_factory=list)  # [{defect, tests}] over the XFAIL
    shared_defects: int = 0  # distinct defects of the SHARED_DEVIATION tests
    spec_exact: bool | None = None  # every spec.* test PASSed; None: no spec case ran
    contract_level: str | None = None  # the highest level contract met, whatever the verdict (never printed as a level)

    @classmethod
    def of(cls, results: Results) -> RunStats:
        tests = results.tests
        judged = judge_results(results)
        return cls(
            tests=len(tests),
            counts=outcome_counts(tests),
            verdict=judged.verdict,
            level=judged.level,
            covered_pairs=build_matrix(tests).covered_pairs,
            plugin_sha256=str((results.plugin or {}).get("sha256") or ""),
            waived_defects=list(judged.waived_defects),
            shared_defects=judged.shared["defects"],
            spec_exact=judged.spec_exact,
            contract_level=judged.contract_level,
        )

    @property
    def bad(self) -> int:
        return sum(count for outcome, count in self.counts.items() if outcome in BAD_OUTCOMES)

    @property
    def waived_tests(self) -> int:
        return self.counts.get(Outcome.XFAIL, 0)

    @property
    def shared_tests(self) -> int:
        return self.counts.get(Outcome.SHARED_DEVIATION, 0)

    @property
    def spec_mark(self) -> str:
        return "—" if self.spec_exact is None else "✓" if self.spec_exact else "✗"

    def to_dict(self) -> dict[str, Any]:
        return {
            "tests": self.tests,
            "counts": {outcome.value: count for outcome, count in sorted(self.counts.items())},
            "bad": self.bad,
            "verdict": self.verdict,
            "level": self.level,
            "covered_pairs": self.covered_pairs,
            "plugin_sha256": self.plugin_sha256,
            "waived_defects": self.waived_defects,
            "waived_tests": self.waived_tests,
            "shared": {"defects": self.shared_defects, "tests": self.shared_tests},
            "spec_exact": self.spec_exact,
        }


INTRODUCED, FIXED, UNCHANGED = "introduced", "fixed", "unchanged"
DEFECT_STATUS_ORDER = (INTRODUCED, FIXED, UNCHANGED)
_DEFECT_COUNTS = ("tests", "bad", "waived", "shared")


@dataclass(frozen=True)
class DefectChange:
    """One defect (pjrt_cts.judgment.defects id) of either run: its findings in the old and the new run."""

    defect: str
    title: str
    scope: str
    status: str  # introduced | fixed | unchanged (present in both runs; its test counts may differ)
    old: dict[str, int] | None  # {tests, bad, waived, shared}; None: no finding of it in the old run
    new: dict[str, int] | None

    def to_dict(self) -> dict[str, Any]:
        return {"defect": self.defect, "title": self.title, "scope": self.scope, "status": self.status,
                "old": self.old, "new": self.new}


def diff_defects(old: Results, new: Results) -> list[DefectChange]:
    """The defects of both runs by id: introduced (only in `new`), fixed (only in `old`), unchanged (both)."""
    old_rows = {row["id"]: row for row in defect_table(old.tests)}
    new_rows = {row["id"]: row for row in defect_table(new.tests)}
    changes = []
    for defect_id in set(old_rows) | set(new_rows):
        before, after = old_rows.get(defect_id), new_rows.get(defect_id)
        described = after or before or {}
        status = UNCHANGED if before and after else INTRODUCED if after else FIXED
        changes.append(DefectChange(defect_id, str(described.get("title") or ""), str(described.get("scope") or ""),
                                    status, _defect_counts(before), _defect_counts(after)))
    changes.sort(key=lambda c: (DEFECT_STATUS_ORDER.index(c.status), -max((c.new or c.old or {}).get("tests", 0),
                                                                           (c.old or {}).get("tests", 0)), c.defect))
    return changes


def _defect_counts(row: dict[str, Any] | None) -> dict[str, int] | None:
    return None if row is None else {key: int(row.get(key) or 0) for key in _DEFECT_COUNTS}


@dataclass
class RunDiff:
    old: RunStats
    new: RunStats
    changes: list[Change] = field(default_factory=list)
    defects: list[DefectChange] = field(default_factory=list)

    def defects_of_status(self, status: str) -> list[DefectChange]:
        return [change for change in self.defects if change.status == status]

    def of_kind(self, *kinds: ChangeKind) -> list[Change]:
        return [change for change in self.changes if change.kind in kinds]

    @property
    def regressions(self) -> list[Change]:
        return [change for change in self.changes if change.kind.is_regression]

    @property
    def kind_counts(self) -> Counter[ChangeKind]:
        return Counter(change.kind for change in self.changes)

    def to_dict(self) -> dict[str, Any]:
        return {
            "old": self.old.to_dict(),
            "new": self.new.to_dict(),
            "kind_counts": {kind.value: self.kind_counts.get(kind, 0) for kind in KIND_ORDER},
            "changes": [change.to_dict() for change in self.changes],
            "defects": [change.to_dict() for change in self.defects],
        }


def diff_runs(old: Results, new: Results) -> RunDiff:
    old_tests, new_tests = old.by_id(), new.by_id()
    changes = []
    for test_id in sorted(set(old_tests) | set(new_tests)):
        old_test, new_test = old_tests.get(test_id), new_tests.get(test_id)
        old_outcome = old_test.outcome if old_test else None
        new_outcome = new_test.outcome if new_test else None
        kind = classify(old_outcome, new_outcome)
        if kind is None:
            continue
        message = "missing from this run" if new_test is None else new_test.message
        changes.append(Change(test_id, old_outcome, new_outcome, kind, message))
    changes.sort(key=lambda c: (KIND_ORDER.index(c.kind), c.new.severity if c.new else 99, c.test_id))
    return RunDiff(old=RunStats.of(old), new=RunStats.of(new), changes=changes, defects=diff_defects(old, new))


def table_cell(text: object, width: int | None = 140, markdown: bool = False) -> str:
    """One table cell: single line, bounded to `width` (None: whole); in Markdown, no table breakers."""
    line = " ".join(str(text).split())
    if width is not None and len(line) > width:
        line = line[: width - 1] + "…"
    return line.replace("|", "\\|") if markdown else line


def changes_table(changes: list[Change], tablefmt: str, limit: int | None = None) -> str:
    from tabulate import tabulate

    shown = changes if limit is None else changes[:limit]
    markdown = tablefmt == "github"
    code = "`" if markdown else ""
    rows = [
        [
            f"{code}{table_cell(change.test_id, 200, markdown)}{code}",
            change.old.value if change.old else "—",
            change.new.value if change.new else "—",
            change.kind.value,
            table_cell(change.message, 120 if markdown else 80, markdown),
        ]
        for change in shown
    ]
    table = tabulate(rows, headers=["test", "old", "new", "change", "message"], tablefmt=tablefmt,
                     disable_numparse=True)
    if limit is not None and len(changes) > limit:
        table += f"\n\n… and {len(changes) - limit} more (see `pjrt-cts diff`)."
    return table


def stats_rows(diff: RunDiff) -> list[list[str]]:
    old, new = diff.old, diff.new

    def delta(a: int, b: int) -> str:
        return f"{b - a:+d}" if b != a else ""

    rows = [
        ["tests", str(old.tests), str(new.tests), delta(old.tests, new.tests)],
        ["PASS", str(old.counts.get(Outcome.PASS, 0)), str(new.counts.get(Outcome.PASS, 0)),
         delta(old.counts.get(Outcome.PASS, 0), new.counts.get(Outcome.PASS, 0))],
        ["bad outcomes", str(old.bad), str(new.bad), delta(old.bad, new.bad)],
        ["NOT_SUPPORTED", str(old.counts.get(Outcome.NOT_SUPPORTED, 0)), str(new.counts.get(Outcome.NOT_SUPPORTED, 0)),
         delta(old.counts.get(Outcome.NOT_SUPPORTED, 0), new.counts.get(Outcome.NOT_SUPPORTED, 0))],
        ["waived defects", str(len(old.waived_defects)), str(len(new.waived_defects)),
         delta(len(old.waived_defects), len(new.waived_defects))],
        ["waived tests (XFAIL)", str(old.waived_tests), str(new.waived_tests), delta(old.waived_tests, new.waived_tests)],
        ["shared with XLA (SHARED_DEVIATION)", str(old.shared_tests), str(new.shared_tests),
         delta(old.shared_tests, new.shared_tests)],
        ["op×dtype pairs passing", str(old.covered_pairs), str(new.covered_pairs),
         delta(old.covered_pairs, new.covered_pairs)],
        ["verdict", old.verdict, new.verdict, ""],
        ["level", old.level or "none", new.level or "none", ""],
        ["spec mark", old.spec_mark, new.spec_mark, ""],
    ]
    if old.plugin_sha256 != new.plugin_sha256:
        rows.append(["plugin sha256", old.plugin_sha256[:12] or "?", new.plugin_sha256[:12] or "?", "changed"])
    return rows


def defect_summary(diff: RunDiff) -> str:
    """`1 introduced, 2 fixed, 5 unchanged`."""
    counts = Counter(change.status for change in diff.defects)
    return ", ".join(f"{counts[s]} {s}" for s in DEFECT_STATUS_ORDER if counts.get(s)) or "none"


def defects_table(changes: list[DefectChange], tablefmt: str, limit: int | None = None) -> str:
    """One row per defect: its id, scope, its findings in each run (tests: bad / waived / shared) and status."""
    from tabulate import tabulate

    shown = changes if limit is None else changes[:limit]
    markdown = tablefmt == "github"
    code = "`" if markdown else ""
    rows = [[f"{code}{change.defect}{code}", change.status, change.scope, _defect_cell(change.old),
             _defect_cell(change.new), table_cell(change.title, 80, markdown)] for change in shown]
    table = tabulate(rows, headers=["defect", "status", "scope", "old tests", "new tests", "title"],
                     tablefmt=tablefmt, disable_numparse=True)
    if limit is not None and len(changes) > limit:
        table += f"\n\n… and {len(changes) - limit} more (see `pjrt-cts diff`)."
    return table


def _defect_cell(counts: dict[str, int] | None) -> str:
    """`12 (2 bad, 10 waived)`; `—` for a run without findings of the defect."""
    if counts is None:
        return "—"
    kinds = ", ".join(f"{counts[kind]} {kind}" for kind in ("bad", "waived", "shared") if counts.get(kind))
    return f"{counts['tests']} ({kinds})" if kinds else str(counts["tests"])


def format_diff(diff: RunDiff, tablefmt: str = "simple") -> str:
    from tabulate import tabulate

    counts = diff.kind_counts
    parts = [
        tabulate(stats_rows(diff), headers=["", "old", "new", "Δ"], tablefmt=tablefmt, disable_numparse=True),
        "",
        "changes: " + (", ".join(f"{counts[k]} {k.value}" for k in KIND_ORDER if counts.get(k)) or "none"),
        "defects: " + defect_summary(diff),
    ]
    if diff.changes:
        parts += ["", changes_table(diff.changes, tablefmt)]
    if diff.defects:
        parts += ["", defects_table(diff.defects, tablefmt)]
    return "\n".join(parts) + "\n"
