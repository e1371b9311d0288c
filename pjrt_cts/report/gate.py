"""The CI release gate: fail on regressions against a committed baseline or on a missed level.

The gate fails (exit 1) when any of these holds:
- with a baseline: a regression per pjrt_cts.report.diff (new crash, new failure, coverage loss,
  new test failing), or the highest level reached dropped below the baseline's;
- without a baseline: the run is not CONFORMANT (pjrt_cts.verdict: a bad outcome, or INCOMPLETE), or it does
  not reach the required level, which defaults to Core;
- with a required level: that level (pjrt_cts.levels) is not reached;
- with a waiver budget (`--no-waivers` is a budget of 0): the run needs more waivers (XFAIL) than that.
Known failures recorded in the baseline do not fail the gate; fixing them is reported as progress.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pjrt_cts.levels import LEVELS, LevelResult, evaluate_levels, level_by_name
from pjrt_cts.outcomes import BAD_OUTCOMES
from pjrt_cts.report.diff import ChangeKind, RunDiff, RunStats, changes_table, diff_runs, stats_rows
from pjrt_cts.outcomes import outcome_of
from pjrt_cts.results import SCHEMA_VERSION
from pjrt_cts.verdict import CONFORMANT, judge_results

DEFAULT_LEVEL_WITHOUT_BASELINE = "Core"

TABLE_LIMIT = 50  # rows per Markdown table: a PR comment has a size limit


@dataclass
class GateResult:
    stats: RunStats
    diff: RunDiff | None
    required_level: str | None
    level_results: list[LevelResult]
    failures: list[str] = field(default_factory=list)
    plugin: dict[str, Any] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return not self.failures

    @property
    def exit_code(self) -> int:
        return 0 if self.passed else 1

    def to_dict(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "failures": self.failures,
            "required_level": self.required_level,
            "levels": [result.to_dict() for result in self.level_results],
            "run": self.stats.to_dict(),
            "diff": self.diff.to_dict() if self.diff else None,
        }


def evaluate_gate(
    results: dict[str, Any], baseline: dict[str, Any] | None = None, level: str | None = None,
    max_waivers: int | None = None,
) -> GateResult:
    """Raises KeyError for an unknown level name."""
    if level is None and baseline is None:
        level = DEFAULT_LEVEL_WITHOUT_BASELINE
    required = level_by_name(level).name if level else None
    level_results = evaluate_levels(results)
    judged = judge_results(results)
    stats = RunStats.of(results)
    diff = diff_runs(baseline, results) if baseline is not None else None
    failures: list[str] = []
    if diff is not None:
        regressions = diff.regressions
        if regressions:
            counts = diff.kind_counts
            kinds = ", ".join(
                f"{counts[kind]} {kind.value}"
                for kind in (ChangeKind.NEW_CRASH, ChangeKind.NEW_FAILURE, ChangeKind.COVERAGE_LOSS,
                             ChangeKind.NEW_TEST_FAILING)
                if counts.get(kind)
            )
            failures.append(f"{len(regressions)} regression(s) against the baseline ({kinds})")
        if _level_rank(diff.new.level) < _level_rank(diff.old.level):
            failures.append(f"conformance level dropped from {diff.old.level} to {diff.new.level or 'none'}")
    else:
        bad = [test for test in results.get("tests", []) if outcome_of(test) in BAD_OUTCOMES]
        if bad:
            failures.append(f"{len(bad)} test(s) with a bad outcome and no baseline to waive them")
        if not results.get("tests"):
            failures.append("the run has no test results")
        elif judged.verdict != CONFORMANT and not bad:
            failures.append(f"the run is {judged.line()}")
    if max_waivers is not None and len(judged.waivers) > max_waivers:
        failures.append(f"the run needs {len(judged.waivers)} waiver(s) (XFAIL), the budget is {max_waivers}: "
                        + ", ".join(str(w["id"]) for w in judged.waivers[:3]) + (" ..." if len(judged.waivers) > 3 else ""))
    if required:
        result = next(r for r in level_results if r.level.name == required)
        if not result.reached:
            failures.append(f"required level {required} not reached: " + "; ".join(result.reasons))
    return GateResult(stats, diff, required, level_results, failures, dict(results.get("plugin") or {}))


def _level_rank(name: str | None) -> int:
    names = [level.name for level in LEVELS]
    return names.index(name) + 1 if name in names else 0


def slim_baseline(results: dict[str, Any]) -> dict[str, Any]:
    """What a repository commits as its baseline: ids and outcomes only, so diffs stay readable."""
    plugin = results.get("plugin") or {}
    return {
        "schema_version": results.get("schema_version", SCHEMA_VERSION),
        "tool": results.get("tool") or {},
        "plugin": {key: plugin.get(key) for key in ("path", "sha256", "api_version", "platform_name") if key in plugin},
        "tests": sorted(
            ({"id": test["id"], "layer": test.get("layer"), "outcome": outcome_of(test).value}
             for test in results.get("tests", []) if "id" in test),
            key=lambda test: test["id"],
        ),
    }


def gate_markdown(gate: GateResult, report_url: str | None = None) -> str:
    """A Markdown summary for a PR comment or $GITHUB_STEP_SUMMARY."""
    from tabulate import tabulate

    icon = "✅" if gate.passed else "❌"
    plugin = gate.plugin
    name = plugin.get("platform_name") or Path(str(plugin.get("path") or "plugin")).name
    lines = [f"## {icon} PJRT conformance gate: {'passed' if gate.passed else 'failed'}", ""]
    facts = [f"plugin **{name}**"]
    if plugin.get("api_version"):
        facts.append(f"PJRT C API {plugin['api_version']}")
    if plugin.get("sha256"):
        facts.append(f"sha256 `{str(plugin['sha256'])[:12]}`")
    facts.append(f"verdict **{gate.stats.verdict}**")
    required = f" (required: {gate.required_level})" if gate.required_level else ""
    facts.append(f"level **{gate.stats.level or 'none'}**{required}")
    lines += [" · ".join(facts), ""]
    if gate.failures:
        lines += ["**Why the gate failed**", ""] + [f"- {failure}" for failure in gate.failures] + [""]
    if gate.diff is not None:
        lines += [tabulate(stats_rows(gate.diff), headers=["", "baseline", "this run", "Δ"], tablefmt="github",
                           disable_numparse=True), ""]
        regressions = gate.diff.regressions
        fixes = gate.diff.of_kind(ChangeKind.FIX, ChangeKind.COVERAGE_GAIN)
        other = [c for c in gate.diff.changes if c not in regressions and c not in fixes]
        if regressions:
            lines += [f"### Regressions ({len(regressions)})", "",
                      changes_table(regressions, "github", TABLE_LIMIT), ""]
        if fixes:
            lines += [f"### Fixes ({len(fixes)})", "", changes_table(fixes, "github", TABLE_LIMIT), ""]
        if other:
            lines += [f"<details><summary>Other changes ({len(other)})</summary>", "",
                      changes_table(other, "github", TABLE_LIMIT), "", "</details>", ""]
        if not gate.diff.changes:
            lines += ["No outcome changed against the baseline.", ""]
    else:
        counts = gate.stats.counts
        rows = [[outcome.value, str(count)] for outcome, count in sorted(counts.items(), key=lambda i: i[0].value)]
        lines += [tabulate(rows, headers=["outcome", "tests"], tablefmt="github", disable_numparse=True), ""]
    level_rows = [[r.level.name, "✅ reached" if r.reached else "❌ " + _cell_text("; ".join(r.reasons))]
                  for r in gate.level_results]
    lines += ["<details><summary>Conformance levels</summary>", "",
              tabulate(level_rows, headers=["level", "status"], tablefmt="github", disable_numparse=True), "",
              "</details>", ""]
    if report_url:
        lines += [f"Full report: {report_url}", ""]
    return "\n".join(lines)


def _cell_text(text: str, width: int = 200) -> str:
    text = " ".join(text.split()).replace("|", "\\|")
    return text if len(text) <= width else text[: width - 1] + "…"
