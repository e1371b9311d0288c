"""The CI release gate: fail on regressions against a committed baseline or on a missed level.

The gate fails (exit 1) when any of these holds:
- the run is INCOMPLETE (a partial selection, one shard, a --quick sample, an interrupted run, Core not met ...),
  with or without a baseline, unless `--allow-partial` and it is INCOMPLETE only because not every test ran
  (RunVerdict.only_partial; the headline then says so);
- the run's records cannot be trusted (pjrt_cts.judgment.contradictions: a record that contradicts itself), with or
  without a baseline;
- with a baseline: a regression per pjrt_cts.report.diff (new crash, new failure, a failure deselected (now SKIP)
  or its feature dropped (now NOT_SUPPORTED), coverage loss, new test failing), or the highest level contract the
  run meets dropped below the baseline's;
- without a baseline: a bad outcome, or the run does not reach the required level, which defaults to Core (not
  required of an INCOMPLETE run accepted by `--allow-partial`);
- with a required level: that level's contract (pjrt_cts.judgment.levels) is not met;
- the waiver budget: with `--no-waivers` / `--max-waivers N`, the run needs more waivers (XFAIL) than that; without
  them and without a baseline, the budget is the waivers of the profile's own expectations file (the one pjrt-cts
  ships in plugins/<profile>/): a run judged by any other file (a drafted one, `run --expectations`) fails;
- with a defect budget (`--max-waived-defects N`): its waivers cover more than N distinct defects.
Known failures recorded in the baseline do not fail the gate; fixing them is reported as progress. A test
that became XFAIL is "newly waived": listed first after the regressions, never counted as a fix.
The headline speaks in defects, shows a level only for a CONFORMANT run, and says how many waived tests the run
hides: `gate: PASS · CONFORMANT · level Full · spec ✗ (...) · 4 waived defects (98 tests) · hides 98 waived tests
(budget: the cpu profile's expectations file)`.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pjrt_cts.judgment.levels import ALL_LEVELS, LevelResult, level_by_name
from pjrt_cts.judgment.outcomes import BAD_OUTCOMES
from pjrt_cts.profiles import ProfileError, get_profile
from pjrt_cts.report.diff import (FIXED, INTRODUCED, PROGRESS_KINDS, REGRESSION_KINDS, ChangeKind, RunDiff, RunStats,
                                  changes_table, defect_summary, defects_table, diff_runs, stats_rows)
from pjrt_cts.schema import Results
from pjrt_cts.judgment.verdict import CONFORMANT, INCOMPLETE, RunVerdict, judge_results

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
    judged: RunVerdict | None = None  # the run's verdict (pjrt_cts.judgment.verdict)
    allow_partial: bool = False  # `--allow-partial`: a run INCOMPLETE only because not every test ran may pass
    waiver_budget: str = ""  # what bounds the waivers (`the cpu profile's expectations file`, `100`), "" for nothing

    @property
    def passed(self) -> bool:
        return not self.failures

    @property
    def exit_code(self) -> int:
        return 0 if self.passed else 1

    @property
    def headline(self) -> str:
        """`gate: PASS · CONFORMANT · level Full · spec ✗ (...) · 4 waived defects (98 tests) · hides 98 waived tests
        (budget: ...)`: the verdict, a level only for a CONFORMANT run, the spec mark and the waived defects shown
        whatever the verdict, and the waived tests the gate lets through."""
        verdict = self.stats.verdict
        if self.allow_partial and self.judged is not None and self.judged.only_partial:
            verdict += " (accepted: --allow-partial)"
        parts = [f"gate: {'PASS' if self.passed else 'FAIL'}", verdict]
        if self.stats.verdict == CONFORMANT and self.stats.level:
            parts.append(f"level {self.stats.level}")
        if self.judged is not None:
            parts += self.judged.marks()
        waived = self.stats.waived_tests
        if waived:
            budget = f" (budget: {self.waiver_budget})" if self.waiver_budget else ""
            parts.append(f"hides {waived} waived test{'' if waived == 1 else 's'}{budget}")
        return " · ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "headline": self.headline,
            "failures": self.failures,
            "required_level": self.required_level,
            "allow_partial": self.allow_partial,
            "waiver_budget": self.waiver_budget or None,
            "levels": [result.to_dict() for result in self.level_results],
            "run": self.stats.to_dict(),
            "diff": self.diff.to_dict() if self.diff else None,
        }


def evaluate_gate(
    results: Results, baseline: Results | None = None, level: str | None = None,
    max_waivers: int | None = None, max_waived_defects: int | None = None, allow_partial: bool = False,
) -> GateResult:
    """Raises KeyError for an unknown level name."""
    judged = judge_results(results)
    accepted_partial = allow_partial and judged.only_partial
    if level is None and baseline is None and not accepted_partial:
        level = DEFAULT_LEVEL_WITHOUT_BASELINE
    required = level_by_name(level).name if level else None
    level_results = judged.levels
    stats = RunStats.of(results)
    diff = diff_runs(baseline, results) if baseline is not None else None
    failures: list[str] = [f"the run's records cannot be trusted: {reason}" for reason in judged.untrusted]
    if judged.verdict == INCOMPLETE and not accepted_partial:
        why = ("an INCOMPLETE run passes the gate only with --allow-partial" if judged.only_partial else
               "--allow-partial accepts a run that is INCOMPLETE only because not every test ran, and this one is not")
        failures.append(f"the run is {judged.line()}; {why}")
    if diff is not None:
        failures += _regression_failures(diff)
    else:
        bad = [test for test in results.tests if test.outcome in BAD_OUTCOMES]
        if bad:
            failures.append(f"{len(bad)} test(s) with a bad outcome and no baseline to waive them")
        if not results.tests:
            failures.append("the run has no test results")
    waiver_budget, problem = _waiver_budget(results, judged, baseline is not None, max_waivers)
    if problem:
        failures.append(problem)
    waived_defects = judged.waived_defects
    if max_waived_defects is not None and len(waived_defects) > max_waived_defects:
        failures.append(f"the run's waivers cover {len(waived_defects)} defect(s), the budget is {max_waived_defects}: "
                        + ", ".join(f"{d['defect']} ({d['tests']} test(s))" for d in waived_defects[:5])
                        + (" ..." if len(waived_defects) > 5 else ""))
    if required:
        result = next(r for r in level_results if r.level.name == required)
        if not result.reached:
            failures.append(f"required level {required} not reached: " + "; ".join(result.reasons))
    return GateResult(stats, diff, required, level_results, failures, dict(results.plugin or {}), judged,
                      allow_partial, waiver_budget)


def _regression_failures(diff: RunDiff) -> list[str]:
    """The regressions against the baseline, by kind, and a drop of the level contract met."""
    failures = []
    regressions = diff.regressions
    if regressions:
        counts = diff.kind_counts
        kinds = ", ".join(f"{counts[kind]} {kind.value}" for kind in ChangeKind
                          if kind in REGRESSION_KINDS and counts.get(kind))
        failures.append(f"{len(regressions)} regression(s) against the baseline ({kinds})")
    old, new = diff.old.contract_level, diff.new.contract_level
    if _level_rank(new) < _level_rank(old):
        failures.append(f"the highest level contract met dropped from {old} (baseline) to {new or 'none'}")
    return failures


def _waiver_budget(results: Results, judged: RunVerdict, has_baseline: bool,
                   max_waivers: int | None) -> tuple[str, str | None]:
    """(what bounds the run's waivers, why the run exceeds it or None). An explicit budget is a number of waived
    tests; without one and without a baseline, the waivers of the profile's own expectations file: the run must
    have been judged by exactly that file (the SHA-256 results.json `expectations` records)."""
    waivers = judged.waivers
    if max_waivers is not None:
        if len(waivers) <= max_waivers:
            return str(max_waivers), None
        return str(max_waivers), (f"the run needs {len(waivers)} waiver(s) (XFAIL), the budget is {max_waivers}: "
                                  + ", ".join(str(w["id"]) for w in waivers[:3]) + (" ..." if len(waivers) > 3 else ""))
    if has_baseline:
        return "", None  # the baseline's diff lists each newly waived test
    profile = results.profile
    bundled = _bundled_expectations_sha256(profile)
    budget = f"the {profile} profile's expectations file" if bundled else "none"
    recorded = (results.expectations or {}).get("sha256") or (results.binding or {}).get("expectations_sha256")
    if not waivers or (bundled and recorded == bundled):
        return budget, None
    where = (results.expectations or {}).get("file") or "an expectations file"
    shipped = (f"the {profile} profile's own ({bundled[:12]})" if bundled
               else f"a profile's own (the run's profile {profile or '(none)'} ships none)")
    return budget, (f"the run's {len(waivers)} waiver(s) come from {where} ({str(recorded or '?')[:12]}), not from "
                    f"{shipped}: without a baseline the waiver budget is the profile's own expectations file; "
                    "give --max-waivers N to accept more")


def _bundled_expectations_sha256(profile: str | None) -> str | None:
    """SHA-256 of the expectations file the profile ships (plugins/<profile>/expectations.toml), None without one."""
    if not profile:
        return None
    try:
        path = get_profile(profile).expectations_path
    except (ProfileError, KeyError, OSError):
        return None
    return hashlib.sha256(path.read_bytes()).hexdigest() if path is not None else None


def _level_rank(name: str | None) -> int:
    names = [level.name for level in ALL_LEVELS]  # AOT (nothing executed) ranks below Core
    return names.index(name) + 1 if name in names else 0


def slim_baseline(results: Results) -> dict[str, Any]:
    """What a repository commits as its baseline: ids and outcomes only, so diffs stay readable. Each test keeps
    its id, layer, outcome and the defect a finding was attributed to (TestRecord.to_slim_json), so the baseline's
    waived defects and the defect comparison read the same as the full results file's."""
    plugin = results.plugin or {}
    return {
        "schema_version": results.schema_version,
        "tool": results.tool or {},
        "plugin": {key: plugin.get(key) for key in ("path", "sha256", "api_version", "platform_name") if key in plugin},
        "tests": [test.to_slim_json() for test in sorted(results.tests, key=lambda test: test.id) if test.id],
    }


def gate_markdown(gate: GateResult, report_url: str | None = None) -> str:
    """A Markdown summary for a PR comment or $GITHUB_STEP_SUMMARY."""
    from tabulate import tabulate

    icon = "✅" if gate.passed else "❌"
    plugin = gate.plugin
    name = plugin.get("platform_name") or Path(str(plugin.get("path") or "plugin")).name
    lines = [f"## {icon} PJRT conformance gate: {'passed' if gate.passed else 'failed'}", "",
             f"**{_cell_text(gate.headline, 400)}**", ""]
    facts = [f"plugin **{name}**"]
    if plugin.get("api_version"):
        facts.append(f"PJRT C API {plugin['api_version']}")
    if plugin.get("sha256"):
        facts.append(f"sha256 `{str(plugin['sha256'])[:12]}`")
    if gate.required_level:  # the verdict and level reached are the headline's
        facts.append(f"required level **{gate.required_level}**")
    lines += [" · ".join(facts), ""]
    if gate.failures:
        lines += ["**Why the gate failed**", ""] + [f"- {failure}" for failure in gate.failures] + [""]
    if gate.diff is not None:
        lines += [tabulate(stats_rows(gate.diff), headers=["", "baseline", "this run", "Δ"], tablefmt="github",
                           disable_numparse=True), ""]
        regressions = gate.diff.regressions
        waived = gate.diff.of_kind(ChangeKind.NEWLY_WAIVED)
        fixes = gate.diff.of_kind(*PROGRESS_KINDS)
        other = [c for c in gate.diff.changes if c not in regressions and c not in waived and c not in fixes]
        if regressions:
            lines += [f"### Regressions ({len(regressions)})", "",
                      changes_table(regressions, "github", TABLE_LIMIT), ""]
        if waived:  # not a regression, never a fix: a reviewer must see each new waiver
            lines += [f"### Newly waived ({len(waived)})", "",
                      "Tests that are XFAIL now and were not in the baseline: the expectations file accepts a "
                      "failure it did not before.", "", changes_table(waived, "github", TABLE_LIMIT), ""]
        if fixes:
            lines += [f"### Fixes ({len(fixes)})", "", changes_table(fixes, "github", TABLE_LIMIT), ""]
        if other:
            lines += [f"<details><summary>Other changes ({len(other)})</summary>", "",
                      changes_table(other, "github", TABLE_LIMIT), "", "</details>", ""]
        if not gate.diff.changes:
            lines += ["No outcome changed against the baseline.", ""]
        moved = gate.diff.defects_of_status(INTRODUCED) + gate.diff.defects_of_status(FIXED)
        if gate.diff.defects:
            lines += [f"<details{' open' if moved else ''}><summary>Defects ({defect_summary(gate.diff)})</summary>",
                      "", defects_table(gate.diff.defects, "github", TABLE_LIMIT), "", "</details>", ""]
    else:
        counts = gate.stats.counts
        rows = [[outcome.value, str(count)] for outcome, count in sorted(counts.items(), key=lambda i: i[0].value)]
        lines += [tabulate(rows, headers=["outcome", "tests"], tablefmt="github", disable_numparse=True), ""]
    if gate.judged is not None and gate.judged.waived_defects:
        waived_rows = [[f"`{d['defect']}`", str(d["tests"])] for d in gate.judged.waived_defects]
        lines += [f"<details><summary>Waived defects ({len(waived_rows)})</summary>", "",
                  tabulate(waived_rows[:TABLE_LIMIT], headers=["defect", "waived tests"], tablefmt="github",
                           disable_numparse=True), "", "</details>", ""]
    level_rows = [[r.level.name, "✅ met" if r.reached else "❌ " + _cell_text("; ".join(r.reasons))]
                  for r in gate.level_results]
    awarded = (f"No level is awarded: the run is {gate.stats.verdict} (a level belongs to a CONFORMANT run); the "
               "contracts its records meet are shown for information." if gate.stats.verdict != CONFORMANT else "")
    lines += ["<details><summary>Level contracts</summary>", ""] + ([awarded, ""] if awarded else []) + [
              tabulate(level_rows, headers=["level", "contract"], tablefmt="github", disable_numparse=True), "",
              "</details>", ""]
    if report_url:
        lines += [f"Full report: {report_url}", ""]
    return "\n".join(lines)


def _cell_text(text: str, width: int = 200) -> str:
    text = " ".join(text.split()).replace("|", "\\|")
    return text if len(text) <= width else text[: width - 1] + "…"
