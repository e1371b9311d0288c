"""Judge mutant runs against the passthrough baseline: caught / missed per defect, and the score."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from pjrt_cts.proxy.catalogue import Defect
from pjrt_cts.selftest.suite_run import SuiteRunResult

# A mutant is caught by a test that ends in one of these where the passthrough proxy was fine.
# ERROR is left out on purpose: it means the suite itself broke (fixture/collection), not a finding.
CATCHING_OUTCOMES = frozenset({"FAIL", "CRASH", "TIMEOUT", "XPASS"})
BASELINE_FINE = frozenset({"PASS", "WARNING", "NOT_SUPPORTED"})

CAUGHT, MISSED, TOLERATED, FALSE_ALARM, RUN_ERROR = "caught", "missed", "tolerated", "false-alarm", "run-error"


def id_pattern_regex(pattern: str) -> re.Pattern[str]:
    """The runner's id pattern syntax: `*` and `?` are wildcards, `[` and `]` are literal."""
    return re.compile("".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern) + r"\Z")


def matches_any(test_id: str, patterns: tuple[str, ...] | list[str]) -> bool:
    return any(id_pattern_regex(p).match(test_id) for p in patterns)


@dataclass
class DefectVerdict:
    defect: Defect
    status: str  # caught | missed | tolerated | false-alarm | run-error
    catching_tests: list[str] = field(default_factory=list)  # test ids that noticed the mutant
    expected_hits: list[str] = field(default_factory=list)  # catching tests the catalogue expected
    outcomes: dict[str, str] = field(default_factory=dict)  # catching test id -> mutant outcome
    messages: dict[str, str] = field(default_factory=dict)
    tests_run: int = 0
    wall_seconds: float = 0.0
    run_timed_out: bool = False
    explanation: str = ""

    @property
    def correct(self) -> bool:
        """The suite did the right thing: caught a real defect, or accepted an in-tolerance one."""
        return self.status in (CAUGHT, TOLERATED)

    def to_json(self) -> dict[str, Any]:
        return {
            "defect": self.defect.name, "layer": self.defect.layer, "description": self.defect.description,
            "expect": self.defect.expect, "status": self.status, "correct": self.correct,
            "catching_tests": self.catching_tests, "expected_catchers": list(self.defect.catchers),
            "expected_hits": self.expected_hits, "outcomes": self.outcomes,
            "messages": {k: v for k, v in self.messages.items() if k in self.catching_tests[:5]},
            "tests_run": self.tests_run, "wall_seconds": round(self.wall_seconds, 2),
            "run_timed_out": self.run_timed_out, "explanation": self.explanation,
        }


def judge(defect: Defect, mutant: SuiteRunResult, baseline: dict[str, str], present_layers: list[str]) -> DefectVerdict:
    """Compare one mutant's outcomes with the passthrough baseline."""
    verdict = DefectVerdict(defect, MISSED, wall_seconds=mutant.wall_seconds, run_timed_out=mutant.timed_out)
    ran = mutant.selected()
    verdict.tests_run = len(ran)
    if mutant.error and not ran:
        verdict.status = RUN_ERROR
        verdict.explanation = mutant.error
        return verdict
    catching = sorted(test_id for test_id, outcome in ran.items()
                      if outcome in CATCHING_OUTCOMES and baseline.get(test_id, "PASS") in BASELINE_FINE)
    verdict.catching_tests = catching
    verdict.outcomes = {test_id: ran[test_id] for test_id in catching}
    verdict.messages = {test_id: mutant.messages.get(test_id, "") for test_id in catching}
    verdict.expected_hits = [test_id for test_id in catching if matches_any(test_id, defect.catchers)]
    if defect.expect == "tolerated":
        verdict.status = FALSE_ALARM if catching else TOLERATED
        verdict.explanation = ("suite too strict: these tests reject a deviation inside the documented tolerance"
                               if catching else defect.note)
        return verdict
    if catching:
        verdict.status = CAUGHT
        if not verdict.expected_hits:
            verdict.explanation = "caught, but not by the tests the catalogue names (update the catalogue)"
        return verdict
    verdict.status = MISSED
    verdict.explanation = explain_miss(defect, ran, present_layers)
    return verdict


def explain_miss(defect: Defect, ran: dict[str, str], present_layers: list[str]) -> str:
    missing_layers = [layer for layer in defect.layers if layer not in present_layers]
    expected_run = [test_id for test_id in ran if matches_any(test_id, defect.catchers)]
    parts = []
    if missing_layers:
        parts.append(f"layer(s) {', '.join(missing_layers)} have no suites yet")
    if not expected_run:
        parts.append("none of the expected catching tests exists in this suite")
    else:
        not_bad = sorted({ran[test_id] for test_id in expected_run})
        parts.append(f"{len(expected_run)} expected catching test(s) ran and ended {'/'.join(not_bad)}")
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


def mutation_score(verdicts: list[DefectVerdict]) -> float:
    return sum(v.correct for v in verdicts) / len(verdicts) if verdicts else 0.0

