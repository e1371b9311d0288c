"""Escape hatches of the waivers (issue 53): ways an expectations file could turn a plugin that does not work into a
CONFORMANT one, each tried for real at the end of every selftest and required to be refused:

- `over_matching_waiver`: the tests the profile waives for a known defect (a number where NaN was expected, a
  flushed subnormal, a folded atan2, the intermittent dim -2 sort) fail otherwise -- wrong bytes read back
  (`to_host_half`), every Execute rejected (`execute_rejects_all`): none may be XFAIL, the run NON_CONFORMANT;
- `generic_per_test_cause`: the profile's expectations file plus a per-test entry whose cause ("elements differ")
  any wrong value of the golden test shows: `pjrt-cts run` must refuse the file (exit 2);
- `draft_waivers`: a run with unclassified findings (`transcendental_64ulp`) is drafted by `pjrt-cts triage
  --write-expectations`, run again with the draft, and laid over the passthrough baseline as a mutant is: the
  drafted waivers waive every finding, yet the verdict must not be CONFORMANT, and `pjrt-cts gate` must fail it.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Callable

from pjrt_cts.profiles import DEFAULT_PROFILE, get_profile
from pjrt_cts.proxy import PASSTHROUGH, proxy_environment
from pjrt_cts.selftest.run_hatches import HatchResult, run_command

OVER_MATCHING_HATCH = "over_matching_waiver"
GENERIC_CAUSE_HATCH = "generic_per_test_cause"
DRAFT_HATCH = "draft_waivers"
_GOLDEN = "execute.golden_cases.test_case_matches_reference"
# Tests the bundled cpu profile waives, each for a defect whose own failure is of another kind than the mutants'.
WAIVED_TESTS: dict[str, str] = {
    f"{_GOLDEN}[reduce.max_with_nan.f32]": "nan-not-propagated-by-max-min",
    f"{_GOLDEN}[movement.pad_2x3x4_lom1x2x0_hi1x0xm2_in1x0x2.bf16]": "subnormals-flushed",
    f"{_GOLDEN}[spec.atan2.subnormal.f32.const_decimal]": "constant-folding-flushes-subnormals",
    f"{_GOLDEN}[spec.sort.LT_SIGNED.stable.payload.dim_minus2.s32]": "sort-negative-dimension-mishandled",
}
_OTHER_FAILURES = ("to_host_half", "execute_rejects_all")
_DRAFTED_MUTANT = "transcendental_64ulp"
_DRAFTED_TESTS = (f"{_GOLDEN}[elementwise.exponential.f64.*]",)  # no mandatory test among them
_TIMEOUT_S = 900  # each run collects, preflights and compiles packed programs: minutes on a busy host


def _run_args(plugin: Path, out: Path, profile: str | None, ids: tuple[str, ...] | list[str]) -> list[str]:
    command = [sys.executable, "-m", "pjrt_cts.cli.main", "run", str(plugin), "--out", str(out), "-n", "1",
               "--no-progress", "--no-confirmation", "--no-report"]
    for pattern in ids:
        command += ["--id", pattern]
    return command + (["--plugin", profile] if profile else [])


def over_matching_waiver(proxy: Path, target: Path, profile: str | None, out: Path) -> HatchResult:
    from pjrt_cts.judgment.results import ResultsError, load_results
    from pjrt_cts.judgment.verdict import NON_CONFORMANT, judge_results

    description = (f"tests the profile waives for a known defect ({', '.join(sorted(set(WAIVED_TESTS.values())))}) "
                   f"failing otherwise ({', '.join(_OTHER_FAILURES)})")
    evidence, caught = [], True
    for mutant in _OTHER_FAILURES:
        work = out / OVER_MATCHING_HATCH / mutant
        shutil.rmtree(work, ignore_errors=True)
        run_command(_run_args(proxy, work, profile, list(WAIVED_TESTS)), proxy_environment(target, mutant), _TIMEOUT_S)
        try:
            results = load_results(work / "results.json")
        except ResultsError as error:
            return HatchResult(OVER_MATCHING_HATCH, description, False, f"{mutant}: no results: {error}")
        records = {test.id: test for test in results.tests if test.id in WAIVED_TESTS}
        waived = sorted(test_id for test_id, test in records.items() if test.outcome.value == "XFAIL")
        judged = judge_results(results)
        kinds = ", ".join(sorted({test.outcome.value for test in records.values()}))
        evidence.append(f"{mutant}: {len(records)} tests {kinds}, {len(waived)} waived; {judged.verdict}")
        caught = caught and len(records) == len(WAIVED_TESTS) and not waived and judged.verdict == NON_CONFORMANT
    return HatchResult(OVER_MATCHING_HATCH, description, caught, "; ".join(evidence))


def generic_per_test_cause(proxy: Path, target: Path, profile: str | None, out: Path) -> HatchResult:
    description = "a per-test cause any wrong value of the golden test shows ('elements differ')"
    work = out / GENERIC_CAUSE_HATCH
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    expectations = work / "expectations.toml"
    bundled = get_profile(profile or DEFAULT_PROFILE).expectations_path
    expectations.write_text((bundled.read_text(encoding="utf-8") if bundled else "") + f'\n[[expectation]]\nid = "{_GOLDEN}[*]"\n'
                            'outcome = "FAIL"\ncause = "elements differ"\nreason = "any wrong value"\n')
    ran = run_command(_run_args(proxy, work / "out", profile, [next(iter(WAIVED_TESTS))])
                      + ["--expectations", str(expectations)], proxy_environment(target, PASSTHROUGH), _TIMEOUT_S)
    said = (ran.stdout + ran.stderr).strip().splitlines()
    refusal = next((line for line in said if "matches a generic FAIL" in line), said[-1] if said else "")
    caught = ran.returncode == 2 and "matches a generic FAIL" in refusal
    return HatchResult(GENERIC_CAUSE_HATCH, description, caught, f"exit {ran.returncode}: {refusal[:300]}")


def draft_waivers(proxy: Path, target: Path, profile: str | None, out: Path, passthrough_out: Path) -> HatchResult:
    from pjrt_cts.judgment.results import ResultsError, load_results
    from pjrt_cts.judgment.verdict import CONFORMANT, judge_results, deselected_by
    from pjrt_cts.report.gate import evaluate_gate
    from pjrt_cts.schema import Results

    description = f"the findings of {_DRAFTED_MUTANT} waived by the expectations triage drafted from them"
    work = out / DRAFT_HATCH
    shutil.rmtree(work, ignore_errors=True)
    env = proxy_environment(target, _DRAFTED_MUTANT)
    run_command(_run_args(proxy, work / "first", profile, _DRAFTED_TESTS), env, _TIMEOUT_S)
    draft = work / "draft.toml"
    drafted = run_command([sys.executable, "-m", "pjrt_cts.cli.main", "triage", str(work / "first" / "results.json"),
                           "--write-expectations", str(draft)], {}, _TIMEOUT_S)
    if drafted.returncode != 0 or not draft.is_file():
        return HatchResult(DRAFT_HATCH, description, False, f"triage failed (exit {drafted.returncode}): "
                           + (drafted.stdout + drafted.stderr).strip()[-300:])
    run_command(_run_args(proxy, work / "second", profile, _DRAFTED_TESTS) + ["--expectations", str(draft)], env,
                _TIMEOUT_S)
    try:
        baseline, second = load_results(passthrough_out / "results.json"), load_results(work / "second" / "results.json")
    except ResultsError as error:
        return HatchResult(DRAFT_HATCH, description, False, f"no results to judge: {error}")
    ran = {test.id: test for test in baseline.tests if deselected_by(test) is None}
    mutant = {test.id: test for test in second.tests if deselected_by(test) is None}
    combined = Results(tests=tuple({**ran, **mutant}.values()), expectations=second.expectations)
    judged, waived = judge_results(combined), sum(test.outcome.value == "XFAIL" for test in mutant.values())
    unmarked = judge_results(Results(tests=combined.tests))
    gate = evaluate_gate(combined)
    caught = waived > 0 and judged.verdict != CONFORMANT and not gate.passed
    return HatchResult(DRAFT_HATCH, description, caught,
                       f"{waived} finding(s) waived by the draft; {judged.line()[:200]}; gate "
                       f"{'passed' if gate.passed else 'failed'}; without the draft marks: {unmarked.line()[:80]}")


def try_waiver_hatches(proxy: Path, target: Path, profile: str | None, out: Path,
                       passthrough_out: Path) -> list[HatchResult]:
    work = out / "waiver-hatches"
    tries: list[tuple[str, Callable[[], HatchResult]]] = [
        (OVER_MATCHING_HATCH, lambda: over_matching_waiver(proxy, target, profile, work)),
        (GENERIC_CAUSE_HATCH, lambda: generic_per_test_cause(proxy, target, profile, work)),
        (DRAFT_HATCH, lambda: draft_waivers(proxy, target, profile, work, passthrough_out))]
    results = []
    for name, attempt in tries:
        try:
            results.append(attempt())
        except subprocess.TimeoutExpired as timeout:  # not refused, not shown either: not caught
            results.append(HatchResult(name, "", False, f"a run did not end within {timeout.timeout:g}s"))
    return results
