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

from pjrt_cts.judgment.defects import defect_table
from pjrt_cts.judgment.results import ResultsError, check_schema, ordered_layers, outcome_counts
from pjrt_cts.judgment.verdict import judge_results
from pjrt_cts.schema import SUMMARY_FORMAT, DefectCount, Results, RunSummary


def run_summary(results: Results) -> RunSummary:
    """The summary of a results.json."""
    plugin = results.plugin or {}
    environment = results.environment or {}
    binding = results.binding or {}
    judged = judge_results(results)
    devices = [device for device in plugin.get("devices") or () if isinstance(device, dict)]
    kinds = list(dict.fromkeys(str(device.get("kind")) for device in devices if device.get("kind")))
    distribution = _distribution(plugin, environment)
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
        levels=tuple(result.level.name for result in judged.levels if result.reached),
        spec_mark=judged.spec_mark(),
        line=judged.line(),
        reasons=tuple(judged.reasons),
        defects=tuple(DefectCount.from_json(row) for row in defect_table(results.tests)),
    )


def _distribution(plugin: dict[str, Any], environment: dict[str, Any]) -> tuple[str, str | None] | None:
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
            return RunSummary.from_json(data)
        except (ValueError, TypeError) as exc:
            raise ResultsError(f"{path}: {exc}") from exc
    check_schema(data, str(path))
    return run_summary(Results.from_json(data))
