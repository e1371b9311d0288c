"""Comparing two runs: per-test outcome changes, classified, plus coverage and level movement.

Rules (also in docs/levels.md, "Gate rules"):
- good outcomes are PASS, NOT_SUPPORTED, XFAIL, WARNING, SKIP; bad ones are model.BAD_OUTCOMES.
- new crash: a test now CRASHes or TIMEOUTs that did not before (whatever it was, even FAIL).
- new failure: good -> bad (other than a new crash).
- coverage loss: PASS -> NOT_SUPPORTED, SKIP or XFAIL, or a PASS in the old run that is missing now.
- new test failing: a test absent from the old run has a bad outcome.
These four are regressions. Fix: bad -> good, or WARNING -> PASS. Coverage gain: NOT_SUPPORTED,
SKIP or XFAIL -> PASS. Everything else (added, removed, new warning, bad -> other bad) is informational.
"""
from __future__ import annotations

import enum
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from pjrt_cts.levels import highest_level
from pjrt_cts.outcomes import BAD_OUTCOMES, Outcome
from pjrt_cts.report.coverage import build_matrix
from pjrt_cts.outcomes import outcome_of
from pjrt_cts.results import outcome_counts, severity_rank, tests_by_id
from pjrt_cts.verdict import judge_results

HANG_OR_DEATH = frozenset({Outcome.CRASH, Outcome.TIMEOUT})
NOT_COVERED = frozenset({Outcome.NOT_SUPPORTED, Outcome.SKIP, Outcome.XFAIL})


class ChangeKind(str, enum.Enum):
    NEW_CRASH = "new crash"
    NEW_FAILURE = "new failure"
    COVERAGE_LOSS = "coverage loss"
    NEW_TEST_FAILING = "new test failing"
    FIX = "fix"
    COVERAGE_GAIN = "coverage gain"
    NEW_WARNING = "new warning"
    ADDED = "added"
    REMOVED = "removed"
    CHANGED = "changed"

    @property
    def is_regression(self) -> bool:
        return self in REGRESSION_KINDS


REGRESSION_KINDS = frozenset(
    {ChangeKind.NEW_CRASH, ChangeKind.NEW_FAILURE, ChangeKind.COVERAGE_LOSS, ChangeKind.NEW_TEST_FAILING}
)
KIND_ORDER = list(ChangeKind)


def classify(old: Outcome | None, new: Outcome | None) -> ChangeKind | None:
    """The kind of change from `old` to `new` (None = absent from that run); None when unchanged."""
    if old == new:
        return None
    if new is None:
        return ChangeKind.COVERAGE_LOSS if old is Outcome.PASS else ChangeKind.REMOVED
    if old is None:
        return ChangeKind.NEW_TEST_FAILING if new in BAD_OUTCOMES else ChangeKind.ADDED
    if new in HANG_OR_DEATH and old not in HANG_OR_DEATH:
        return ChangeKind.NEW_CRASH
    if new in BAD_OUTCOMES and old not in BAD_OUTCOMES:
        return ChangeKind.NEW_FAILURE
    if old in BAD_OUTCOMES and new not in BAD_OUTCOMES:
        return ChangeKind.FIX
    if old is Outcome.PASS and new in NOT_COVERED:
        return ChangeKind.COVERAGE_LOSS
    if new is Outcome.PASS and old in NOT_COVERED:
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
    level: str | None
    covered_pairs: int  # (op, dtype) pairs of the execute layer with a PASS
    plugin_sha256: str

    @classmethod
    def of(cls, results: dict[str, Any]) -> RunStats:
        tests = results.get("tests", [])
        return cls(
            tests=len(tests),
            counts=outcome_counts(tests),
            verdict=judge_results(results).verdict,
            level=highest_level(results),
            covered_pairs=build_matrix(results).covered_pairs,
            plugin_sha256=str((results.get("plugin") or {}).get("sha256") or ""),
        )

    @property
    def bad(self) -> int:
        return sum(count for outcome, count in self.counts.items() if outcome in BAD_OUTCOMES)

    def to_dict(self) -> dict[str, Any]:
        return {
            "tests": self.tests,
            "counts": {outcome.value: count for outcome, count in sorted(self.counts.items())},
            "bad": self.bad,
            "verdict": self.verdict,
            "level": self.level,
            "covered_pairs": self.covered_pairs,
            "plugin_sha256": self.plugin_sha256,
        }


@dataclass
class RunDiff:
    old: RunStats
    new: RunStats
    changes: list[Change] = field(default_factory=list)

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
        }


def diff_runs(old: dict[str, Any], new: dict[str, Any]) -> RunDiff:
    old_tests, new_tests = tests_by_id(old), tests_by_id(new)
    changes = []
    for test_id in sorted(set(old_tests) | set(new_tests)):
        old_test, new_test = old_tests.get(test_id), new_tests.get(test_id)
        old_outcome = outcome_of(old_test) if old_test else None
        new_outcome = outcome_of(new_test) if new_test else None
        kind = classify(old_outcome, new_outcome)
        if kind is None:
            continue
        source = new_test if new_test is not None else old_test or {}
        message = "missing from this run" if new_test is None else str(source.get("message") or "")
        changes.append(Change(test_id, old_outcome, new_outcome, kind, message))
    changes.sort(key=lambda c: (KIND_ORDER.index(c.kind), severity_rank(c.new) if c.new else 99, c.test_id))
    return RunDiff(old=RunStats.of(old), new=RunStats.of(new), changes=changes)


def _cell(text: str, width: int = 140, markdown: bool = False) -> str:
    """One table cell: single line, bounded; in Markdown, no table breakers."""
    line = " ".join(str(text).split())
    if len(line) > width:
        line = line[: width - 1] + "…"
    return line.replace("|", "\\|") if markdown else line


def changes_table(changes: list[Change], tablefmt: str, limit: int | None = None) -> str:
    from tabulate import tabulate

    shown = changes if limit is None else changes[:limit]
    markdown = tablefmt == "github"
    code = "`" if markdown else ""
    rows = [
        [
            f"{code}{_cell(change.test_id, 200, markdown)}{code}",
            change.old.value if change.old else "—",
            change.new.value if change.new else "—",
            change.kind.value,
            _cell(change.message, 120 if markdown else 80, markdown),
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
        ["op×dtype pairs passing", str(old.covered_pairs), str(new.covered_pairs),
         delta(old.covered_pairs, new.covered_pairs)],
        ["verdict", old.verdict, new.verdict, ""],
        ["level", old.level or "none", new.level or "none", ""],
    ]
    if old.plugin_sha256 != new.plugin_sha256:
        rows.append(["plugin sha256", old.plugin_sha256[:12] or "?", new.plugin_sha256[:12] or "?", "changed"])
    return rows


def format_diff(diff: RunDiff, tablefmt: str = "simple") -> str:
    from tabulate import tabulate

    counts = diff.kind_counts
    parts = [
        tabulate(stats_rows(diff), headers=["", "old", "new", "Δ"], tablefmt=tablefmt, disable_numparse=True),
        "",
        "changes: " + (", ".join(f"{counts[k]} {k.value}" for k in KIND_ORDER if counts.get(k)) or "none"),
    ]
    if diff.changes:
        parts += ["", changes_table(diff.changes, tablefmt)]
    return "\n".join(parts) + "\n"
