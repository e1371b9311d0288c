"""summary.json: a run in a few lines (pjrt_cts.schema.RunSummary), what `pjrt-cts matrix` tabulates.

`pjrt-cts run` writes one beside results.json; `run_summary` derives one from any results.json, so a results file
of an earlier version gives a summary too. The verdict, level and spec mark are judge_results's (recomputed from
the records, as every consumer does) and the defects defect_table's, so a summary never says more than the
records show. Documented in docs/conformance.md.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pjrt_cts.judgment.api_coverage import api_coverage
from pjrt_cts.judgment.defects import defect_table
from pjrt_cts.judgment.levels import AOT, LEVELS
from pjrt_cts.judgment.outcomes import BAD_OUTCOMES, Outcome
from pjrt_cts.judgment.results import ResultsError, check_schema, ordered_layers, outcome_counts
from pjrt_cts.judgment.verdict import CONFORMANT, INCOMPLETE, VERDICTS, judge_results
from pjrt_cts.schema import SUMMARY_FORMAT, DefectCount, Results, RunSummary


def run_summary(results: Results) -> RunSummary:
    """The summary of a results.json."""
    plugin = results.plugin or {}
    environment = results.environment or {}
    binding = results.binding or {}
    judged = judge_results(results)
    devices = [device for device in plugin.get("devices") or () if isinstance(device, dict)]
    kinds = list(dict.fromkeys(str(device.get("kind")) for device in devices if device.get("kind")))
    distribution = recorded_distribution(plugin, environment)
    coverage = api_coverage(results.tests, plugin)
    return RunSummary(
        distribution=distribution[0] if distribution else None,
        distribution_version=distribution[1] if distribution else None,
        profile=results.profile,
        plugin_sha256=plugin.get("sha256") or binding.get("plugin_sha256"),
        api_version=plugin.get("api_version"),
        platform_name=plugin.get("platform_name"),
        platform_version=plugin.get("platform_version"),
        device_kind=", ".join(kinds) or None,
        device_count=len(devices),
        machine=_machine(environment),
        python=environment.get("python"),
        suite_version=binding.get("suite_version") or (results.tool or {}).get("version"),
        corpus_sha256=binding.get("corpus_sha256"),
        finished_at=results.finished_at,
        wall_seconds=results.wall_seconds,
        tests=len(results.tests),
        layers_run=tuple(ordered_layers(test.layer for test in results.tests)),
        outcomes=dict(sorted((outcome.value, count) for outcome, count in outcome_counts(results.tests).items())),
        verdict=judged.verdict,
        level=judged.level,
        levels=judged.levels_reached(),
        spec_mark=judged.spec_mark(),
        line=judged.line(),
        reasons=tuple(judged.reasons),
        defects=tuple(DefectCount.from_json(row) for row in defect_table(results.tests)),
        api_slots=(coverage.slots.reached, coverage.slots.offered) if coverage else None,
        api_extension_functions=((coverage.extension_functions.reached, coverage.extension_functions.offered)
                                 if coverage else None),
    )


def recorded_distribution(plugin: dict[str, Any], environment: dict[str, Any]) -> tuple[str, str | None] | None:
    """(name, version) of the plugin's distribution: as the run recorded it (`plugin.distribution`), else, for
    files written before it did, the package of the run's environment whose import name is a directory of the
    plugin's path (`lammps_jax_pjrt_cpu/pjrt_c_api_cpu_plugin.so`)."""
    recorded = plugin.get("distribution")
    if isinstance(recorded, dict) and recorded.get("name"):
        return str(recorded["name"]), recorded.get("version")
    directories = set(Path(str(plugin.get("path") or "")).parts[:-1])
    for name, version in sorted((environment.get("packages") or {}).items()):
        if name.lower().replace("-", "_") in directories:
            return name, version
    return None


def _machine(environment: dict[str, Any]) -> str:
    """`x86_64, 2 CPUs, Linux-6.1.0-x86_64-with-glibc2.36`: what of the host the environment recorded."""
    parts = [str(environment.get("machine") or "")]
    if environment.get("cpu_count"):
        parts.append(f"{environment['cpu_count']} CPUs")
    parts.append(str(environment.get("platform") or ""))
    return ", ".join(part for part in parts if part)


def write_summary(summary: RunSummary, path: Path) -> None:
    """summary.json, replaced atomically."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(summary.dumps(), encoding="utf-8")
    os.replace(tmp, path)


def load_summary(path: Path | str) -> RunSummary:
    """A summary.json, or the summary of a results.json; ResultsError when the file is neither."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ResultsError(f"cannot read {path}: {exc.strerror}") from exc
    except json.JSONDecodeError as exc:
        raise ResultsError(f"{path} is not JSON: {exc}") from exc
    if isinstance(data, dict) and data.get("format") == SUMMARY_FORMAT:
        try:
            summary = RunSummary.from_json(data)
        except (ValueError, TypeError) as exc:
            raise ResultsError(f"{path}: {exc}") from exc
    else:
        check_schema(data, str(path))
        summary = run_summary(Results.from_json(data))
    problems = summary_contradictions(summary)
    if problems:
        raise ResultsError(f"{path} contradicts itself: " + "; ".join(problems))
    return summary


_LEVEL_NAMES = tuple(level.name for level in LEVELS)  # the device levels, cumulative


def _levels_up_to(level: str, reached: tuple[str, ...]) -> bool:
    """Whether `reached` are the levels a CONFORMANT run at `level` reaches: the device levels up to it, or the AOT
    tier alone for a run at level AOT (the tier is no part of the chain)."""
    if level == AOT.name:
        return reached == (AOT.name,)
    return reached == _LEVEL_NAMES[:_LEVEL_NAMES.index(level) + 1]


def summary_contradictions(summary: RunSummary) -> list[str]:
    """Where a summary's verdict, level, spec mark, line or defects say otherwise than its own outcome counts (what
    judge_results and defect_table would have made of records counted so); empty for a summary run_summary made.

    - the counts add up: `tests` is their sum, each names an outcome;
    - CONFORMANT: no bad outcome, some PASS, a level with every level below it and no reason; any other verdict:
      no level, and a reason; INCOMPLETE: no bad outcome;
    - `spec ✓`: every spec test PASSed, so there is a PASS and no deviation shared with XLA;
    - the line is the verdict's: `CONFORMANT · level L ...` with the spec mark, else `VERDICT: first reason`;
    - the defects count every bad, waived and shared test once."""
    counts = summary.outcomes
    problems = [f"outcome {name!r} is no outcome" for name in counts if name not in Outcome.__members__]
    if problems:
        return problems
    if summary.tests != sum(counts.values()):
        problems.append(f"{summary.tests} tests, but its outcomes count {sum(counts.values())}")
    bad = sum(count for name, count in counts.items() if Outcome(name) in BAD_OUTCOMES)
    passed = counts.get(Outcome.PASS.value, 0)
    verdict, level = summary.verdict, summary.level
    said = f"{verdict} beside {_counts_text(counts)}"
    if verdict not in VERDICTS:
        problems.append(f"verdict {verdict!r} is none of {', '.join(VERDICTS)}")
    elif verdict == CONFORMANT:
        if bad:
            problems.append(f"{said}: {bad} bad outcome(s)")
        if not passed:
            problems.append(f"{said}: no test passed")
        if level not in (AOT.name, *_LEVEL_NAMES):
            problems.append(f"{verdict} without a level" if level is None else f"level {level!r} is no level")
        elif not _levels_up_to(level, tuple(summary.levels)):
            problems.append(f"level {level}, but the levels reached are {list(summary.levels)}")
        if summary.reasons:
            problems.append(f"{verdict} with a reason it is not: {summary.reasons[0]}")
    else:
        if level is not None or summary.levels:
            problems.append(f"{verdict} with a level ({level or ', '.join(summary.levels)}): a level belongs to a "
                            "CONFORMANT run only")
        if not summary.reasons:
            problems.append(f"{verdict} without a reason")
        if verdict == INCOMPLETE and bad:
            problems.append(f"{said}: {bad} bad outcome(s) make a run NON_CONFORMANT")
    if summary.spec_mark == "spec ✓":
        if not passed:
            problems.append(f"spec ✓ beside {_counts_text(counts)}: a spec case that PASSed is needed")
        if counts.get(Outcome.SHARED_DEVIATION.value, 0):
            problems.append("spec ✓ beside deviations shared with XLA (SHARED_DEVIATION), which cost the spec mark")
    elif summary.spec_mark not in (None, "spec ✗"):
        problems.append(f"spec mark {summary.spec_mark!r} is neither spec ✓ nor spec ✗")
    problems += _line_problems(summary)
    problems += _defect_problems(summary, bad)
    return problems


def _line_problems(summary: RunSummary) -> list[str]:
    line, verdict = summary.line, summary.verdict
    if verdict == CONFORMANT:
        head = f"{CONFORMANT} · level {summary.level}"
        wrong = not line.startswith(head) or (summary.spec_mark is not None and summary.spec_mark not in line)
    else:
        head = f"{verdict}: {summary.reasons[0]}" if summary.reasons else verdict
        wrong = line != head
    return [f"its line {line!r} is not the verdict's ({head!r} ...)"] if wrong else []


def _defect_problems(summary: RunSummary, bad: int) -> list[str]:
    counts = summary.outcomes
    problems = [f"defect {d.id}: {d.tests} tests, but {d.bad} bad, {d.waived} waived and {d.shared} shared"
                for d in summary.defects if d.tests != d.bad + d.waived + d.shared]
    for kind, outcomes, counted in (("bad", bad, sum(d.bad for d in summary.defects)),
                                    ("waived", counts.get(Outcome.XFAIL.value, 0), sum(d.waived for d in summary.defects)),
                                    ("shared", counts.get(Outcome.SHARED_DEVIATION.value, 0),
                                     sum(d.shared for d in summary.defects))):
        if outcomes != counted:
            problems.append(f"its defects count {counted} {kind} test(s), its outcomes {outcomes}")
    return problems


def _counts_text(counts: dict[str, int]) -> str:
    return "{" + ", ".join(f"{name}: {count}" for name, count in sorted(counts.items())) + "}"
