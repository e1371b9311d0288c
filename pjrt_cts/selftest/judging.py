"""Judge mutant runs by the run verdict they produce: caught / missed per defect, and the score.

A targeted mutant run re-runs only its selection. Its records are laid over the passthrough baseline's
(which also ran every mandatory test id), so a test the mutant did not re-run keeps the outcome the plugin
had without the defect, and `pjrt_cts.judgment.verdict.judge_results` gives the verdict of that combined run — the
same function that judges a real run. A defect is *caught* when that verdict is off CONFORMANT at the
level the defect breaks: NON_CONFORMANT, INCOMPLETE, or CONFORMANT only at a lower level. A defect whose
catalogue entry `names` a defect id must also be named by the run's diagnosis (pjrt_cts.selftest.naming): caught
but not named is *unnamed*, which is not judged right. A negative control (`expect = "tolerated"`) is judged right
when the verdict stays CONFORMANT at the baseline's level.

A test that is already bad on the passthrough (the passthrough is then not green, and the selftest fails)
is set aside on both sides, so that the other defects can still be judged; a defect whose level the
remaining baseline does not reach cannot be judged (run-error).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pjrt_cts.judgment.levels import MEETS_CONTRACT
from pjrt_cts.judgment.levels import all_mandatory_ids
from pjrt_cts.judgment.outcomes import BAD_OUTCOMES, Outcome, id_matches
from pjrt_cts.proxy.catalogue import LEVEL_NAMES, TOLERATED, Defect
from pjrt_cts.selftest.naming import Naming, naming
from pjrt_cts.schema import Results, TestRecord
from pjrt_cts.selftest.suite_run import SuiteRunResult
from pjrt_cts.judgment.verdict import CONFORMANT, RunVerdict, judge_results

FINDINGS = BAD_OUTCOMES | {Outcome.XFAIL}  # outcomes of a wrong behaviour, waived or not

CAUGHT, MISSED, TOLERATED_STATUS, FALSE_ALARM, RUN_ERROR = "caught", "missed", "tolerated", "false-alarm", "run-error"
UNNAMED = "unnamed"  # caught by the verdict, but the diagnosis did not name the defect the mutant injects


def matches_any(test_id: str, patterns: tuple[str, ...] | list[str]) -> bool:
    """The runner's id pattern syntax (pjrt_cts.judgment.outcomes.id_matches): `*`, `?` wildcards; brackets literal."""
    return any(id_matches(test_id, p) for p in patterns)


def level_rank(level: str | None) -> int:
    """Core 0, Full 1, Multi-device 2; -1 for no level."""
    return LEVEL_NAMES.index(level) if level in LEVEL_NAMES else -1


def reaches(verdict: RunVerdict, level: str) -> bool:
    """The run is CONFORMANT at `level` or above."""
    return verdict.verdict == CONFORMANT and level_rank(verdict.level) >= level_rank(level)


def level_reasons(verdict: RunVerdict, level: str) -> list[str]:
    """Why `level` was not reached in `verdict`."""
    return next((list(result.reasons) for result in verdict.levels if result.level.name == level), [])


def verdict_text(verdict: str | None, level: str | None) -> str:
    """`CONFORMANT · Multi-device`, `CONFORMANT · Core`, `NON_CONFORMANT`, `INCOMPLETE` (`-`: none)."""
    if verdict is None:
        return "-"
    return f"{verdict} · {level}" if verdict == CONFORMANT else verdict


def describe(verdict: RunVerdict) -> str:
    return verdict_text(verdict.verdict, verdict.level)


@dataclass
class Baseline:
    """The passthrough proxy's records (every mandatory id plus every mutant's selection) and verdicts."""

    records: dict[str, TestRecord]  # the records mutants are judged against (set-aside ones left out)
    verdict: RunVerdict  # of `records`
    passthrough_verdict: RunVerdict  # of every record of the passthrough run (CONFORMANT when it is green)
    set_aside: list[str]  # tests already bad on the passthrough
    mandatory: frozenset[str]
    plugin: dict[str, Any] | None = None  # the passthrough run's plugin card (which conditional entries bind)

    @classmethod
    def from_run(cls, run: SuiteRunResult, mandatory: list[str] | None = None) -> "Baseline":
        every = run.ran_records()
        set_aside = sorted(test_id for test_id, record in every.items() if record.outcome in BAD_OUTCOMES)
        records = {test_id: record for test_id, record in every.items() if test_id not in set_aside}
        return cls(records, judge_results(Results(tests=tuple(records.values()), plugin=run.plugin)),
                   judge_results(Results(tests=tuple(every.values()), plugin=run.plugin)), set_aside,
                   frozenset(all_mandatory_ids() if mandatory is None else mandatory), run.plugin)

    def outcome(self, test_id: str) -> Outcome | None:
        record = self.records.get(test_id)
        return None if record is None else record.outcome

    def mutant_records(self, mutant: SuiteRunResult) -> dict[str, TestRecord]:
        """The records of the tests the mutant ran, less those set aside."""
        return {test_id: record for test_id, record in mutant.ran_records().items() if test_id not in self.set_aside}

    def overlay(self, mutant: SuiteRunResult) -> Results:
        """The baseline's records with the mutant's in place of those it re-ran, judged by the mutant's plugin card
        (a mutant that drops an extension offers fewer functions: the entries that call them no longer bind)."""
        return Results(tests=tuple({**self.records, **self.mutant_records(mutant)}.values()),
                       plugin=mutant.plugin if mutant.plugin is not None else self.plugin)

    def new_findings(self, ran: dict[str, TestRecord]) -> list[str]:
        """Tests of `ran` (a mutant's records) that are findings (bad, or waived: XFAIL) where the baseline's are not."""
        return sorted(test_id for test_id, record in ran.items()
                      if record.outcome in FINDINGS and self.outcome(test_id) not in FINDINGS)

    def moves_verdict(self, test_id: str, outcome: Outcome) -> bool:
        """The mutant's outcome of `test_id` counts against the verdict where the baseline's did not."""
        before = self.outcome(test_id)
        if outcome in BAD_OUTCOMES:
            return before not in BAD_OUTCOMES
        return test_id in self.mandatory and outcome not in MEETS_CONTRACT and (before is None or before in MEETS_CONTRACT)


@dataclass
class MutantJudgement:
    """Whether one mutant's run caught its defect (`status`), and the run verdict it produced over the baseline."""

    defect: Defect
    status: str  # caught | unnamed | missed | tolerated | false-alarm | run-error
    verdict: str | None = None  # the combined run's verdict (CONFORMANT, NON_CONFORMANT, INCOMPLETE)
    level: str | None = None  # the level it reached (CONFORMANT only)
    reasons: list[str] = field(default_factory=list)  # the verdict's reasons (why not CONFORMANT)
    # tests whose mutant outcome moved the verdict (a deviation mutant the profile waives: its new waived findings)
    catching_tests: list[str] = field(default_factory=list)
    expected_hits: list[str] = field(default_factory=list)  # catching tests the catalogue expected
    outcomes: dict[str, str] = field(default_factory=dict)  # catching test id -> mutant outcome
    messages: dict[str, str] = field(default_factory=dict)
    tests_run: int = 0
    wall_seconds: float = 0.0
    run_timed_out: bool = False
    explanation: str = ""
    naming: Naming | None = None  # whether the diagnosis named defect.names (judged for caught defects that name one)

    @property
    def named(self) -> bool | None:
        """None when the defect names no defect id or its run found nothing; else whether the diagnosis named it."""
        return None if self.naming is None else self.naming.named

    @property
    def correct(self) -> bool:
        """The suite did the right thing: caught a real defect (and named it, where the catalogue says which),
        or accepted an in-tolerance one."""
        return self.status in (CAUGHT, TOLERATED_STATUS)

    @property
    def produced(self) -> str:
        """The verdict and level the mutant produced, e.g. `NON_CONFORMANT` or `CONFORMANT · Core`."""
        return verdict_text(self.verdict, self.level)

    def to_json(self) -> dict[str, Any]:
        return {
            "defect": self.defect.name, "layer": self.defect.layer, "breaks": self.defect.breaks,
            "description": self.defect.description, "expect": self.defect.expect, "status": self.status,
            "correct": self.correct, "verdict": self.verdict, "level": self.level, "reasons": self.reasons,
            "catching_tests": self.catching_tests, "expected_catchers": list(self.defect.catchers),
            "expected_hits": self.expected_hits, "outcomes": self.outcomes,
            "messages": {k: v for k, v in self.messages.items() if k in self.catching_tests[:5]},
            "tests_run": self.tests_run, "wall_seconds": round(self.wall_seconds, 2),
            "run_timed_out": self.run_timed_out, "explanation": self.explanation,
            "names": self.defect.names or None, "named": self.named,
            "attributions": None if self.naming is None else self.naming.attributions,
        }


def judge(defect: Defect, mutant: SuiteRunResult, baseline: Baseline, present_layers: list[str]) -> MutantJudgement:
    """The verdict of the mutant's records over the baseline's, and whether that catches `defect`."""
    verdict = MutantJudgement(defect, MISSED, wall_seconds=mutant.wall_seconds, run_timed_out=mutant.timed_out)
    verdict.tests_run = len(mutant.ran_records())
    ran = baseline.mutant_records(mutant)
    if mutant.error and not verdict.tests_run:
        verdict.status = RUN_ERROR
        verdict.explanation = mutant.error
        return verdict
    judgeable = (baseline.verdict.verdict == CONFORMANT if defect.expect == TOLERATED
                 else reaches(baseline.verdict, defect.breaks))
    if not judgeable:
        verdict.status = RUN_ERROR
        less = f" (less {len(baseline.set_aside)} test(s) bad on it)" if baseline.set_aside else ""
        verdict.explanation = (f"the passthrough baseline{less} is {describe(baseline.verdict)}, so a defect that "
                               f"breaks {defect.breaks} cannot be judged: " + "; ".join(baseline.verdict.reasons[:2]))
        return verdict
    combined = judge_results(baseline.overlay(mutant))
    verdict.verdict, verdict.level, verdict.reasons = combined.verdict, combined.level, list(combined.reasons)
    if combined.verdict == CONFORMANT and level_rank(combined.level) < level_rank(baseline.verdict.level):
        verdict.reasons = level_reasons(combined, LEVEL_NAMES[level_rank(combined.level) + 1])
    catching = sorted(test_id for test_id, record in ran.items()
                      if baseline.moves_verdict(test_id, record.outcome))
    verdict.catching_tests = catching
    verdict.outcomes = {test_id: ran[test_id].outcome.value for test_id in catching}
    verdict.messages = {test_id: ran[test_id].message[:300] for test_id in catching}
    verdict.expected_hits = [test_id for test_id in catching if matches_any(test_id, defect.catchers)]
    if defect.expect == TOLERATED:
        kept = combined.verdict == CONFORMANT and combined.level == baseline.verdict.level
        verdict.status = TOLERATED_STATUS if kept else FALSE_ALARM
        verdict.explanation = defect.note if kept else (
            f"suite too strict: a deviation the contract allows turned the verdict {describe(combined)} "
            f"(the passthrough is {describe(baseline.verdict)})")
        return verdict
    if defect.names:
        return _judge_named(verdict, defect, combined, ran, baseline, present_layers)
    if reaches(combined, defect.breaks):
        verdict.status = MISSED
        verdict.explanation = explain_miss(defect, combined, ran, present_layers)
        return verdict
    verdict.status = CAUGHT
    if catching and {verdict.outcomes[t] for t in catching} == {Outcome.ERROR.value}:
        verdict.explanation = "caught only through ERROR outcomes: the suite itself broke under the mutant"
    elif catching and not verdict.expected_hits:
        verdict.explanation = "caught, but not by the tests the catalogue names (update the catalogue)"
    return verdict


def _judge_named(verdict: MutantJudgement, defect: Defect, combined: RunVerdict, ran: dict[str, TestRecord],
                 baseline: Baseline, present_layers: list[str]) -> MutantJudgement:
    """A deviation mutant: caught when the verdict moved, or when the profile waives the very defect it injects
    (`defect = "<names>"` in its expectations: the findings are XFAIL and the verdict stays) and its run has new
    findings; right only when the diagnosis names the injected defect in either case."""
    moved = not reaches(combined, defect.breaks)
    found = verdict.catching_tests if moved else baseline.new_findings(ran)
    if not moved and not found:
        verdict.status = MISSED
        verdict.explanation = explain_miss(defect, combined, ran, present_layers)
        return verdict
    verdict.naming = naming(defect.names, (ran[test_id] for test_id in found))
    if not moved:  # waived findings: what the diagnosis says is all that tells this run from the passthrough
        verdict.catching_tests = found
        verdict.outcomes = {test_id: ran[test_id].outcome.value for test_id in found}
        verdict.messages = {test_id: ran[test_id].message[:300] for test_id in found}
        verdict.expected_hits = [test_id for test_id in found if matches_any(test_id, defect.catchers)]
    if not verdict.naming.named:
        verdict.status = UNNAMED if moved else MISSED
        verdict.explanation = (f"{'caught' if moved else 'new findings, all waived'}, but the diagnosis did not name "
                               f"{defect.names}: {verdict.naming.explanation}")
        return verdict
    verdict.status = CAUGHT
    if not moved:
        verdict.explanation = (f"{len(found)} new finding(s), waived: the profile waives {defect.names}, so the "
                               f"verdict stays {describe(combined)}")
    return verdict


def explain_miss(defect: Defect, combined: RunVerdict, ran: dict[str, TestRecord], present_layers: list[str]) -> str:
    missing_layers = [layer for layer in defect.layers if layer not in present_layers]
    expected_run = [test_id for test_id in ran if matches_any(test_id, defect.catchers)]
    parts = [f"the verdict stayed {describe(combined)} (breaks {defect.breaks})"]
    if missing_layers:
        parts.append(f"layer(s) {', '.join(missing_layers)} have no suites yet")
    if not expected_run:
        parts.append("none of the expected catching tests exists in this suite")
    else:
        ended = sorted({ran[test_id].outcome.value for test_id in expected_run})
        parts.append(f"{len(expected_run)} expected catching test(s) ran and ended {'/'.join(ended)}")
    if defect.note:
        parts.append(defect.note)
    return "; ".join(parts)


def proxy_differences(real: dict[str, str], passthrough: dict[str, str]) -> dict[str, tuple[str, str]]:
    """Tests whose outcome differs between the real plugin and the passthrough proxy (proxy bugs)."""
    differences = {}
    for test_id in sorted(set(real) | set(passthrough)):
        if real.get(test_id) != passthrough.get(test_id):
            differences[test_id] = (real.get(test_id, "absent"), passthrough.get(test_id, "absent"))
    return differences


def mutation_score(verdicts: list[MutantJudgement]) -> float:
    return sum(v.correct for v in verdicts) / len(verdicts) if verdicts else 0.0
