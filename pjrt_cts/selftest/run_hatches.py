"""Escape hatches of the runner itself (issue 28): ways to read CONFORMANT without the plugin having earned it
that no plugin defect causes, so no proxy mutant can show them. Each is tried for real and must be refused:

- `resume_over_another_binary`: record a run of the passthrough proxy, replace the plugin file with another build
  (other bytes) whose every Execute fails, and `--resume` the run: it must refuse (exit 2) instead of judging the
  new binary by the old one's records.
- `mandatory_only_selection`: the passthrough baseline is itself a selection (`--id`) holding every mandatory test
  and little else; its own results must read INCOMPLETE (a partial selection) and fail `pjrt-cts gate`.
- `edited_judge_code` (pjrt_cts/selftest/edited_judge.py): a copy of pjrt-cts whose comparison finds every result
  equal judges a mutant; `verify` of its bundle by this installation must name the edited file.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pjrt_cts.proxy import PASSTHROUGH, proxy_environment

RESUME_HATCH = "resume_over_another_binary"
SELECTION_HATCH = "mandatory_only_selection"
_ONE_TEST = "execute.programs.test_program_matches_numpy[add_f32]"
_RUN_TIMEOUT_S = 300


@dataclass(frozen=True)
class HatchResult:
    name: str
    description: str
    caught: bool
    evidence: str

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "caught": self.caught, "evidence": self.evidence}


def run_command(command: list[str], env: dict[str, str], timeout: float = _RUN_TIMEOUT_S) -> subprocess.CompletedProcess[str]:
    """`command` with `env` added to this process's environment; its output captured."""
    import os

    return subprocess.run(command, env={**os.environ, **env}, capture_output=True, text=True, timeout=timeout,
                          check=False)


def resume_over_another_binary(proxy: Path, target: Path, profile: str | None, out: Path) -> HatchResult:
    description = ("--resume of a recorded run after the plugin file was replaced by another build whose every "
                   "Execute fails")
    work = out / RESUME_HATCH
    shutil.rmtree(work, ignore_errors=True)
    plugin = work / "plug" / proxy.name
    plugin.parent.mkdir(parents=True)
    shutil.copy2(proxy, plugin)
    command = [sys.executable, "-m", "pjrt_cts.cli.main", "run", str(plugin), "--out", str(work / "out"),
               "-n", "1", "--no-progress", "--id", _ONE_TEST]
    if profile:
        command += ["--plugin", profile]
    first = run_command(command, proxy_environment(target, PASSTHROUGH))
    if not (work / "out" / "results.jsonl").is_file():
        return HatchResult(RESUME_HATCH, description, False, f"the recorded run did not start (exit {first.returncode}): "
                           + (first.stdout + first.stderr).strip()[-300:])
    with plugin.open("ab") as handle:  # another build: other bytes at the same path
        handle.write(b"\0another build")
    resumed = run_command(command + ["--resume"], proxy_environment(target, "execute_rejects_all"))
    line = (resumed.stdout + resumed.stderr).strip().splitlines()
    evidence = f"exit {resumed.returncode}: {line[-1] if line else ''}"
    return HatchResult(RESUME_HATCH, description, resumed.returncode == 2 and "--resume refused" in evidence, evidence)


def mandatory_only_selection(passthrough_out: Path) -> HatchResult:
    from pjrt_cts.report.gate import evaluate_gate
    from pjrt_cts.judgment.results import ResultsError, load_results
    from pjrt_cts.judgment.verdict import INCOMPLETE, judge_results

    description = "a --id selection holding the mandatory tests (the passthrough baseline's) read as a verdict"
    try:
        results = load_results(passthrough_out / "results.json")
    except ResultsError as error:
        return HatchResult(SELECTION_HATCH, description, False, f"no results to judge: {error}")
    judged = judge_results(results)
    gate = evaluate_gate(results)
    caught = judged.verdict == INCOMPLETE and bool(judged.reasons) and judged.reasons[0].startswith(
        "partial selection") and not gate.passed
    return HatchResult(SELECTION_HATCH, description, caught, f"{judged.line()}; gate {'passed' if gate.passed else 'failed'}")


def try_run_hatches(proxy: Path, target: Path, profile: str | None, out: Path, passthrough_out: Path) -> list[HatchResult]:
    from pjrt_cts.selftest.edited_judge import edited_judge_code  # it builds on HatchResult
    from pjrt_cts.selftest.waiver_hatches import try_waiver_hatches  # they import this module's HatchResult

    return [resume_over_another_binary(proxy, target, profile, out / "run-hatches"),
            mandatory_only_selection(passthrough_out),
            edited_judge_code(proxy, target, profile, out / "run-hatches")] + try_waiver_hatches(proxy, target, profile, out,
                                                                                  passthrough_out)
