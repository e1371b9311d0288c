"""`pjrt-cts selftest`: prove the suite's power by running it against mutants of a real plugin.

Each mutant is the proxy plugin (pjrt_cts.proxy) forwarding to the real plugin with one defect
injected. Targeted mode (default) runs, per defect, only the tests the catalogue names plus a few
neighbours; `full=True` runs the whole suite per mutant. Baselines: the passthrough proxy, over every
mutant's selection and every mandatory test id (each mutant's records are laid over it and judged
with the run verdict, pjrt_cts.selftest.judging), and the real plugin (any outcome that differs is a
proxy bug). See docs/selftest.md.
"""
from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from pjrt_cts.judgment.levels import all_mandatory_ids
from pjrt_cts.judgment.outcomes import IdPatterns, Outcome
from pjrt_cts.proxy import PASSTHROUGH, build_proxy, proxy_environment
from pjrt_cts.proxy.catalogue import DEFECTS, Defect, all_layers, all_patterns
from pjrt_cts.selftest.claim_hatches import try_claim_hatches
from pjrt_cts.selftest.run_hatches import HatchResult, try_run_hatches
from pjrt_cts.selftest.suite_run import SuiteJob, SuiteRunner, SuiteRunResult, SuiteSelection, run_all
from pjrt_cts.selftest.judging import (
    Baseline, MutantJudgement, judge, mutation_score, proxy_differences,
)
from pjrt_cts.judgment.verdict import CONFORMANT

SCHEMA_VERSION = 2
PASSTHROUGH_LABEL = "passthrough"
REAL_LABEL = "real-plugin"


@dataclass
class SelftestOptions:
    target: Path  # the real plugin
    out_dir: Path
    profile: str | None = "cpu"
    defects: list[Defect] = field(default_factory=lambda: list(DEFECTS))
    full: bool = False
    parallel: int = 2  # suite runs at a time
    workers: int = 1  # xdist workers per run
    test_timeout: float = 30.0
    wall_limit: float = 240.0  # per mutant run
    compare_real: bool = True
    suites_dir: Path | None = None


@dataclass
class SelftestReport:
    verdicts: list[MutantJudgement]
    passthrough: SuiteRunResult
    baseline: Baseline
    real: SuiteRunResult | None
    differences: dict[str, tuple[str, str]]
    wall_seconds: float
    options: SelftestOptions
    present_layers: list[str]
    run_hatches: list[HatchResult] = field(default_factory=list)  # no mutant shows them: run_hatches, claim_hatches

    @property
    def score(self) -> float:
        return mutation_score(self.verdicts)

    @property
    def escape_hatches_missed(self) -> list[str]:
        """Escape-hatch defects (ways to look CONFORMANT without working) the suite did not catch: never allowed."""
        return [v.defect.name for v in self.verdicts if v.defect.escape_hatch and not v.correct]

    def problems(self, min_score: float) -> list[str]:
        """Why this selftest fails its gate (empty: it passes): the score, the passthrough, an escape hatch (the
        catalogue's or the runner's) not caught, a wrong judgement without an explanation."""
        found: list[str] = []
        if self.score < min_score:
            found.append(f"mutation score {self.score:.1%} < {min_score:.0%}")
        if self.passthrough.error is not None:
            found.append(f"the passthrough baseline produced no results: {self.passthrough.error}")
        elif not self.passthrough_green:
            found.append("the passthrough proxy is not green (outcomes differ from the real plugin's, or its verdict "
                         f"is not CONFORMANT: {self.baseline.passthrough_verdict.line()})")
        if self.escape_hatches_missed:
            found.append(f"escape-hatch defect(s) not caught: {', '.join(self.escape_hatches_missed)}")
        found += [f"the runner's escape hatch {hatch.name} is not caught ({hatch.evidence})"
                  for hatch in self.run_hatches if not hatch.caught]
        found += [f"{v.defect.name} is {v.status} without an explanation" for v in self.verdicts
                  if not v.correct and not v.explanation]
        return found

    @property
    def passthrough_green(self) -> bool:
        """The proxy itself changes no outcome (same as the real plugin where compared) and its run is CONFORMANT."""
        return (not self.differences and self.passthrough.error is None
                and self.baseline.passthrough_verdict.verdict == CONFORMANT)

    def to_json(self) -> dict[str, Any]:
        correct = [v for v in self.verdicts if v.correct]
        return {
            "schema_version": SCHEMA_VERSION,
            "target": str(self.options.target),
            "mode": "full" if self.options.full else "targeted",
            "wall_seconds": round(self.wall_seconds, 1),
            "mutation_score": round(self.score, 4),
            "defects_total": len(self.verdicts),
            "defects_correct": len(correct),
            "deviations_named": {"defects": sum(1 for v in self.verdicts if v.defect.names),
                                 "named": sum(1 for v in self.verdicts if v.named)},
            "present_layers": self.present_layers,
            "passthrough": {
                "green": self.passthrough_green,
                "verdict": self.baseline.passthrough_verdict.verdict,
                "level": self.baseline.passthrough_verdict.level,
                "verdict_line": self.baseline.passthrough_verdict.line(),
                "reasons": self.baseline.passthrough_verdict.reasons,
                "set_aside": self.baseline.set_aside,
                "judged_against": self.baseline.verdict.line(),
                "tests": len(self.passthrough.selected()),
                "mandatory_tests": len(self.baseline.mandatory),
                "bad_outcomes": sorted(t for t, o in self.passthrough.selected().items() if Outcome(o).is_bad),
                "error": self.passthrough.error,
                "wall_seconds": round(self.passthrough.wall_seconds, 1),
            },
            "real_plugin": None if self.real is None else {
                "tests": len(self.real.selected()), "error": self.real.error,
                "wall_seconds": round(self.real.wall_seconds, 1),
            },
            "proxy_differences": {k: {"real": a, "passthrough": b} for k, (a, b) in self.differences.items()},
            "defects": [v.to_json() for v in self.verdicts],
            "run_hatches": [hatch.to_json() for hatch in self.run_hatches],
        }


def present_layers(suites_dir: Path | None) -> list[str]:
    from pjrt_cts.runner.layers import layer_dirs
    from pjrt_cts.resources import suites_dir as default_suites_dir

    return layer_dirs(suites_dir or default_suites_dir())


def selection_for(defects: list[Defect], layers_present: list[str], full: bool) -> SuiteSelection | None:
    """What to run for these defects (None: none of their layers has suites)."""
    if full:
        return SuiteSelection(layers=[], patterns=[])
    layers = [layer for layer in all_layers(defects) if layer in layers_present]
    if not layers:
        return None
    patterns = [p for p in all_patterns(defects) if p.split(".", 1)[0] in layers]
    return SuiteSelection(layers=layers, patterns=patterns)


# Golden-case tests: each is judged against its reference values in the passthrough's own run (a proxy that changed
# one fails it there), and together they are most of a comparison run's compile time.
GOLDEN_CASE_PREFIXES = ("execute.golden_cases.", "compile.golden_programs.", "multidevice.golden.")


def comparison_selection(defects: list[Defect], layers_present: list[str], full: bool) -> SuiteSelection:
    """What the real plugin runs to be compared with the passthrough: the defects' selections, golden cases
    excepted (GOLDEN_CASE_PREFIXES); `abi` when nothing else is left."""
    union = selection_for(defects, layers_present, full)
    if union is None:
        return SuiteSelection(["abi"], ["abi.*"])
    if full:
        return union
    patterns = [p for p in union.patterns if not p.startswith(GOLDEN_CASE_PREFIXES)]
    layers = [layer for layer in union.layers if any(p.split(".", 1)[0] == layer for p in patterns)]
    return SuiteSelection(layers, patterns) if layers else SuiteSelection(["abi"], ["abi.*"])


def baseline_selection(defects: list[Defect], layers_present: list[str], full: bool,
                       mandatory: list[str]) -> SuiteSelection:
    """Every defect's selection plus every mandatory test id: the records each mutant's are laid over."""
    if full:
        return SuiteSelection(layers=[], patterns=[])
    union = selection_for(defects, layers_present, full) or SuiteSelection([], [])
    present = [test_id for test_id in mandatory if test_id.split(".", 1)[0] in layers_present]
    layers = list(dict.fromkeys(union.layers + [test_id.split(".", 1)[0] for test_id in present]))
    return SuiteSelection(layers=layers, patterns=list(dict.fromkeys(union.patterns + present)))


def run_selftest(options: SelftestOptions, say: Callable[[str], None] = print) -> SelftestReport:
    began = time.monotonic()
    proxy = build_proxy()
    out = options.out_dir
    out.mkdir(parents=True, exist_ok=True)
    layers_present = present_layers(options.suites_dir)
    runner = SuiteRunner(profile=options.profile, workers=options.workers, test_timeout=options.test_timeout,
                         wall_limit=options.wall_limit if not options.full else max(options.wall_limit, 3600.0),
                         suites_dir=options.suites_dir)
    mandatory = all_mandatory_ids()
    union = baseline_selection(options.defects, layers_present, options.full, mandatory)
    # The real plugin is compared over the defects' selections but their golden cases; those and the mandatory
    # rest of the passthrough run are held to its verdict (it must be CONFORMANT).
    compared = comparison_selection(options.defects, layers_present, options.full)

    say(f"selftest: proxy {proxy}")
    say(f"selftest: passthrough baseline over {'the whole suite' if options.full else f'{len(union.patterns)} id patterns'}"
        f" ({len(mandatory)} mandatory ids among them)" + (", real plugin over the defects' selections"
                                                            if options.compare_real else ""))
    jobs = [SuiteJob(PASSTHROUGH_LABEL, proxy, proxy_environment(options.target, PASSTHROUGH),
                     out / "baseline-passthrough", union, baseline=True)]
    if options.compare_real:
        jobs.append(SuiteJob(REAL_LABEL, options.target, {}, out / "baseline-real", compared, baseline=True))
    skipped: list[MutantJudgement] = []
    for defect in options.defects:
        selection = selection_for([defect], layers_present, options.full)
        if selection is None:
            skipped.append(MutantJudgement(defect, "missed", explanation=(
                f"layer(s) {', '.join(defect.layers)} have no suites yet; " + defect.note).strip("; ")))
            continue
        timeout = None if options.full else defect.timeout
        jobs.append(SuiteJob(defect.name, proxy, proxy_environment(options.target, defect.name),
                             out / "mutants" / defect.name, selection, timeout, confirm=defect.confirm))

    def progress(result: SuiteRunResult) -> None:
        bad = sum(1 for o in result.selected().values() if Outcome(o).is_bad)
        say(f"  {result.label:<38} {len(result.selected()):>4} tests {bad:>4} bad  {result.wall_seconds:5.1f}s"
            + ("  (stopped at wall limit)" if result.timed_out else ""))

    # One queue, baselines first: mutant runs take the cores the shorter baseline frees.
    say(f"selftest: {len(jobs)} runs ({len(jobs) - (2 if options.compare_real else 1)} mutants), "
        f"{options.parallel} at a time")
    results = run_all(runner, jobs, options.parallel, on_done=progress)
    passthrough = results[PASSTHROUGH_LABEL]
    real = results.get(REAL_LABEL)
    differences = {}
    if real is not None:
        differences = proxy_differences(real.selected(), _within(passthrough.selected(), compared))
        if differences:
            differences = _confirm_differences(runner, options, proxy, differences, say)
    baseline = Baseline.from_run(passthrough, mandatory)
    say(f"selftest: passthrough {len(passthrough.selected())} tests in {passthrough.wall_seconds:.0f}s, "
        f"{len(differences)} differing from the real plugin; verdict {baseline.passthrough_verdict.line()}")
    judged = {verdict.defect.name: verdict for verdict in skipped}
    verdicts = [judged.get(defect.name) or judge(defect, results[defect.name], baseline, layers_present)
                for defect in options.defects]
    hatches = try_run_hatches(proxy, options.target, options.profile, out, out / "baseline-passthrough")
    hatches += try_claim_hatches(out / "mutants", out)  # the gate's, verify's and the matrix's (claim_hatches.py)
    for hatch in hatches:
        say(f"selftest: runner escape hatch {hatch.name}: {'caught' if hatch.caught else 'NOT CAUGHT'} ({hatch.evidence})")
    report = SelftestReport(verdicts, passthrough, baseline, real, differences, time.monotonic() - began, options,
                            layers_present, hatches)
    (out / "selftest.json").write_text(json.dumps(report.to_json(), indent=2) + "\n")
    return report


def _within(outcomes: dict[str, str], selection: SuiteSelection) -> dict[str, str]:
    """The outcomes of the tests `selection` selects."""
    patterns = IdPatterns(selection.patterns)
    return {test_id: outcome for test_id, outcome in outcomes.items()
            if (not selection.layers or test_id.split(".", 1)[0] in selection.layers)
            and (not patterns or patterns.matches(test_id))}


def _confirm_differences(runner: SuiteRunner, options: SelftestOptions, proxy: Path,
                         differences: dict[str, tuple[str, str]],
                         say: Callable[[str], None]) -> dict[str, tuple[str, str]]:
    """Rerun the differing tests on both sides once: only a difference that repeats is a proxy bug
    (a test that is flaky on the real plugin alone is not the proxy's doing)."""
    say(f"selftest: {len(differences)} test(s) differ between the real plugin and the passthrough; rerunning them")
    layers = sorted({test_id.split(".", 1)[0] for test_id in differences})
    recheck = SuiteSelection(layers=layers, patterns=sorted(differences))
    out = options.out_dir
    reruns = run_all(runner, [
        SuiteJob(PASSTHROUGH_LABEL, proxy, proxy_environment(options.target, PASSTHROUGH), out / "recheck-passthrough", recheck,
                 baseline=True),
        SuiteJob(REAL_LABEL, options.target, {}, out / "recheck-real", recheck, baseline=True),
    ], options.parallel)
    again = proxy_differences(reruns[REAL_LABEL].selected(), reruns[PASSTHROUGH_LABEL].selected())
    return {test_id: pair for test_id, pair in differences.items() if test_id in again}


def default_parallelism() -> int:
    return max(1, min(4, (os.cpu_count() or 1)))


__all__ = ["SelftestOptions", "SelftestReport", "baseline_selection", "comparison_selection", "default_parallelism",
           "present_layers", "run_selftest", "selection_for"]
