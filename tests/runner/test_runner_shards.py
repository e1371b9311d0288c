"""Acceptance: shards 1/3, 2/3, 3/3 of a real run (the bundled CPU plugin, abi layer), merged, give the same
per-test outcomes and verdict as one unsharded run; so do shards balanced by the unsharded run's durations."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pjrt_cts.cli.main import main
from runner_cli import load_json, run_cli

pytestmark = pytest.mark.slow  # six short `pjrt-cts run`s of the abi layer (about 3 s each)

# -k leaves some tests out: their SKIP records must land in exactly one shard too.
SELECTION = ["--layers", "abi", "-n", "1", "-k", "not api_slots", "--no-progress"]


def _run(out: Path, *extra: str) -> dict[str, Any]:
    completed = run_cli("run", *SELECTION, "--out", str(out), *extra, timeout=180)
    assert completed.returncode in (0, 1, 3), completed.stdout[-3000:] + completed.stderr[-3000:]
    return load_json(out / "results.json")


def _outcomes(results: dict[str, Any]) -> dict[str, str]:
    ids = [test["id"] for test in results["tests"]]
    assert len(ids) == len(set(ids)), "a test is recorded twice"
    return {test["id"]: test["outcome"] for test in results["tests"]}


def _merge(tmp_path: Path, name: str, shards: list[Path], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    merged = tmp_path / name
    assert main(["merge", *(str(out / "results.json") for out in shards), "-o", str(merged)]) == 0, \
        capsys.readouterr().err
    return load_json(merged)


def _same_run(merged: dict[str, Any], whole: dict[str, Any]) -> None:
    assert _outcomes(merged) == _outcomes(whole)
    for key in ("verdict", "level", "totals", "by_layer", "complete", "waivers"):
        assert merged["summary"][key] == whole["summary"][key], key


def test_merged_shards_equal_an_unsharded_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    whole = _run(tmp_path / "whole")
    outcomes = _outcomes(whole)
    assert "SKIP" in outcomes.values() and "PASS" in outcomes.values()

    shard_outs = [tmp_path / f"hash{index}" for index in (1, 2, 3)]
    shards = [_run(out, "--shard", f"{index}/3") for index, out in enumerate(shard_outs, start=1)]
    for index, shard in enumerate(shards, start=1):
        assert shard["shard"]["index"] == index and shard["shard"]["strategy"] == "hash"
        assert shard["shard"]["tests_in_split"] == len(outcomes)
        assert 0 < len(shard["tests"]) < len(outcomes)  # other shards' tests are absent, not SKIP
        assert shard["summary"]["verdict"] == "INCOMPLETE"  # one shard is never the whole run
    merged = _merge(tmp_path, "merged.json", shard_outs, capsys)
    _same_run(merged, whole)

    # report, gate and badge read the merged file like any other results.json
    assert main(["report", str(tmp_path / "merged.json"), "-o", str(tmp_path / "report.html")]) == 0
    assert main(["badge", str(tmp_path / "merged.json"), "-o", str(tmp_path / "badge.svg")]) == 0
    assert main(["gate", str(tmp_path / "merged.json")]) == main(["gate", str(tmp_path / "whole" / "results.json")])

    # Balanced by the whole run's durations: another plan, the same union.
    durations = str(tmp_path / "whole" / "results.json")
    balanced_outs = [tmp_path / f"balanced{index}" for index in (1, 2)]
    balanced = [_run(out, "--shard", f"{index}/2", "--shard-durations", durations)
                for index, out in enumerate(balanced_outs, start=1)]
    assert {shard["shard"]["strategy"] for shard in balanced} == {"durations"}
    _same_run(_merge(tmp_path, "balanced.json", balanced_outs, capsys), whole)
