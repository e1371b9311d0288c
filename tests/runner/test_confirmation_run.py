"""Confirm before judging, end to end: every finding is run twice, in two processes, before the verdict."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from runner_cli import FIXTURE_SUITES, by_id, load_json, run_cli

pytestmark = pytest.mark.slow  # runs `pjrt-cts run` end to end in subprocesses

CONFIRM = FIXTURE_SUITES / "confirm" / "suites"
T = "client.confirm."


@pytest.fixture(scope="module")
def confirmed_run(fake_plugin: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    tmp = tmp_path_factory.mktemp("confirm")
    proc = run_cli("run", str(fake_plugin), "--suites-dir", str(CONFIRM), "-n", "2", "--out", str(tmp / "out"),
                   "--id", T + "*", env={"RUNNER_TEST_TRACE": str(tmp / "trace.txt")})
    results = load_json(tmp / "out" / "results.json")
    return {"proc": proc, "results": results, "tests": by_id(results), "counts": tmp}


def _runs(run: dict, name: str) -> int:
    return int((run["counts"] / f"{name}.count").read_text())


def test_a_failure_seen_twice_the_same_way_is_confirmed(confirmed_run: dict) -> None:
    test = confirmed_run["tests"][T + "test_fails_the_same_way_every_time"]
    assert test["outcome"] == "FAIL"
    assert test["confirmation"]["confirmed"] is True and test["confirmation"]["outcome"] == "FAIL"
    assert _runs(confirmed_run, "same") == 2


def test_a_failure_seen_once_is_flaky_with_both_observations(confirmed_run: dict) -> None:
    test = confirmed_run["tests"][T + "test_fails_every_other_time"]
    assert test["outcome"] == "FLAKY"
    assert [seen["outcome"] for seen in test["details"]["observations"]] == ["FAIL", "PASS"]
    assert "wrong on odd runs" in test["message"] and "PASS" in test["message"]


def test_a_run_time_unimplemented_is_confirmed_and_flaky_when_it_changes(confirmed_run: dict) -> None:
    test = confirmed_run["tests"][T + "test_unimplemented_the_first_time_only"]
    assert test["outcome"] == "FLAKY"
    assert [seen["outcome"] for seen in test["details"]["observations"]] == ["NOT_SUPPORTED", "PASS"]


def test_static_gaps_passes_and_declared_races_are_not_rerun(confirmed_run: dict) -> None:
    tests = confirmed_run["tests"]
    assert tests[T + "test_missing_slot_is_not_rerun"]["outcome"] == "NOT_SUPPORTED"
    assert tests[T + "test_race_keeps_its_own_rule"]["outcome"] == "FAIL"
    for name in ("slot", "race", "passes"):
        assert _runs(confirmed_run, name) == 1, name
    assert tests[T + "test_race_keeps_its_own_rule"]["confirmation"] is None


def test_a_rerun_that_dies_is_observed_by_its_worker_first_in_a_process(confirmed_run: dict) -> None:
    test = confirmed_run["tests"][T + "test_fails_then_aborts_its_reruns"]
    # Its worker's forked rerun died: if other reruns ran before it in that process, it ran again first in a new one.
    assert _runs(confirmed_run, "aborts_rerun") in (2, 3)
    assert test["outcome"] == "FLAKY"
    assert [seen["outcome"] for seen in test["details"]["observations"]] == ["FAIL", "CRASH"]
    assert "SIGABRT" in test["details"]["observations"][1]["message"]
    confirmation = confirmed_run["results"]["confirmation"]
    assert confirmation["in_workers"] == 5  # all five, and no second session: a worker goes on past a rerun that died
    assert "0 in a second session" in confirmed_run["proc"].stdout


def test_an_isolated_test_that_died_is_confirmed_by_its_workers_rerun(confirmed_run: dict) -> None:
    test = confirmed_run["tests"][T + "test_isolated_and_aborts_every_time"]
    assert test["outcome"] == "CRASH" and test["confirmation"]["confirmed"] is True
    assert "SIGABRT" in test["confirmation"]["message"]
    assert _runs(confirmed_run, "isolated_aborts") in (2, 3)


def test_the_summary_reports_the_cost_and_flaky_is_bad(confirmed_run: dict) -> None:
    results, proc = confirmed_run["results"], confirmed_run["proc"]
    assert results["confirmation"]["rerun"] == 5 and results["confirmation"]["flaky"] == 3
    assert results["confirmation"]["confirmed"] == 2
    assert "confirmation: 5 non-PASS test(s) rerun in fresh processes" in proc.stdout
    assert results["summary"]["verdict"] == "NON_CONFORMANT" and proc.returncode == 1


def test_without_confirmation_the_run_is_never_conformant(fake_plugin: Path, tmp_path: Path) -> None:
    proc = run_cli("run", str(fake_plugin), "--suites-dir", str(CONFIRM), "-n", "1", "--out", str(tmp_path / "out"),
                   "--id", "client.confirm.test_unimplemented_the_first_time_only", "--no-confirmation",
                   env={"RUNNER_TEST_TRACE": str(tmp_path / "trace.txt")})
    results = load_json(tmp_path / "out" / "results.json")
    assert results["confirmation"]["skipped"] == 1 and "skipped (--no-confirmation)" in proc.stdout
    assert by_id(results)[T + "test_unimplemented_the_first_time_only"]["outcome"] == "NOT_SUPPORTED"
    assert any("1 finding(s) not confirmed by a second run" in reason for reason in results["summary"]["reasons"])


def _one_worker_run(fake_plugin: Path, tmp_path: Path, module: str) -> tuple[Any, dict]:
    """`pjrt-cts run -n 1` of one fixture module (`client.<module>.*`): the process and its results.json."""
    proc = run_cli("run", str(fake_plugin), "--suites-dir", str(CONFIRM), "-n", "1", "--id", f"client.{module}.*",
                   "--out", str(tmp_path / "out"), env={"RUNNER_TEST_TRACE": str(tmp_path / "trace.txt")})
    return proc, load_json(tmp_path / "out" / "results.json")


def test_the_findings_of_a_worker_that_died_are_rerun_by_the_next(fake_plugin: Path, tmp_path: Path) -> None:
    proc, results = _one_worker_run(fake_plugin, tmp_path, "orphans")
    test = by_id(results)["client.orphans.test_a_finding_of_the_first_worker"]
    assert test["outcome"] == "FAIL" and test["confirmation"]["confirmed"] is True, proc.stdout
    assert (tmp_path / "first.count").read_text() == "2"
    # The test it died in joins its list: a crash the first time, a pass when the next worker reran it.
    killer = by_id(results)["client.orphans.test_kills_its_worker"]
    assert [seen["outcome"] for seen in killer["details"]["observations"]] == ["CRASH", "PASS"]
    assert (tmp_path / "killer.count").read_text() == "2"
    assert results["confirmation"]["in_workers"] == 2  # both by the worker that replaced the one that died


def test_a_finding_of_a_long_test_is_rerun_right_after_it(fake_plugin: Path, tmp_path: Path) -> None:
    """Not at its worker's tail, where the other workers may have ended (the known-hang input waits its bound)."""
    proc, results = _one_worker_run(fake_plugin, tmp_path, "long_rerun")
    test = by_id(results)["client.long_rerun.test_long_and_fails"]
    assert test["outcome"] == "FAIL" and test["confirmation"]["confirmed"] is True, proc.stdout
    assert (tmp_path / "long_runs_seen_by_the_next_test.txt").read_text() == "2"  # its rerun came before the next test
    assert (tmp_path / "long.count").read_text() == "2"  # and it was not rerun again at the end
    assert results["confirmation"]["in_workers"] == 1


def test_an_isolated_finding_reruns_alone_in_its_process(fake_plugin: Path, tmp_path: Path) -> None:
    _, results = _one_worker_run(fake_plugin, tmp_path, "rerun_alone")
    assert all(test["confirmation"]["confirmed"] for test in results["tests"])
    pids = {name: (tmp_path / f"{name}.pids").read_text().split() for name in ("plain_first", "isolated", "plain_last")}
    assert all(len(seen) == 2 for seen in pids.values()), pids  # a first run and a rerun each
    reruns = {name: seen[1] for name, seen in pids.items()}
    assert reruns["isolated"] not in (reruns["plain_first"], reruns["plain_last"])  # alone in a process of its own
    assert reruns["plain_first"] != reruns["plain_last"]  # the isolated rerun between them split the process
