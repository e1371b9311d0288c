"""Crash isolation end to end: a throwaway suite that aborts, segfaults, exits, hangs and leaks.

The whole suite runs once (module fixture) through `pjrt-cts run` in a subprocess; every test
below reads its outputs.
"""
from __future__ import annotations

import json
import shlex
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from runner_cli import FIXTURE_SUITES, by_id, load_json, run_cli
from pjrt_cts.judgment.results import load_results
from pjrt_cts.schema import TestRecord

pytestmark = pytest.mark.slow  # runs `pjrt-cts run` end to end in subprocesses

MIXED = FIXTURE_SUITES / "mixed" / "suites"

EXPECTED_OUTCOMES = {
    "client.basic.test_pass": "PASS",
    "client.basic.test_fail": "FAIL",
    "client.basic.test_not_supported": "NOT_SUPPORTED",
    "client.basic.test_skip_not_supported": "NOT_SUPPORTED",
    "client.basic.test_unimplemented": "FAIL",  # undeclared UNIMPLEMENTED: not waived as NOT_SUPPORTED
    "client.basic.test_other_pjrt_error": "FAIL",
    "client.basic.test_warning": "WARNING",
    "client.basic.test_details": "FAIL",
    "client.basic.test_fixture_error": "ERROR",
    "client.basic.test_tagged": "PASS",
    "client.basic.test_param[f32]": "PASS",
    "client.basic.test_param[bf16]": "PASS",
    "client.basic.test_environment": "PASS",
    "robustness.crashes.test_abort_isolated": "CRASH",
    "robustness.crashes.test_segfault_isolated": "CRASH",
    "robustness.crashes.test_isolated_pass": "PASS",
    "robustness.crashes.test_hang_isolated": "TIMEOUT",
    "robustness.crashes.test_abort_shared": "CRASH",
    "robustness.crashes.test_exit_shared": "CRASH",
    "robustness.crashes.test_sleep_forever": "TIMEOUT",
    "robustness.crashes.test_leak_1gib": "PASS",
    "robustness.crashes.test_after_crashes": "PASS",
}


@pytest.fixture(scope="module")
def mixed_run(tmp_path_factory: pytest.TempPathFactory, fake_plugin: Path) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("mixed-out")
    proc = run_cli("run", str(fake_plugin), "--suites-dir", str(MIXED), "-n", "2", "--timeout", "30",
                   "--create-option", "cpu_device_count=4", "--out", str(out))
    return {"proc": proc, "out": out, "results": load_json(out / "results.json")}


def test_every_test_gets_its_outcome_and_the_run_completes(mixed_run: dict[str, Any]) -> None:
    tests = by_id(mixed_run["results"])
    assert {test_id: test["outcome"] for test_id, test in tests.items()} == EXPECTED_OUTCOMES, \
        mixed_run["proc"].stdout + mixed_run["proc"].stderr


def test_exit_code_is_1_when_anything_crashed(mixed_run: dict[str, Any]) -> None:
    assert mixed_run["proc"].returncode == 1
    assert "verdict: NON_CONFORMANT" in mixed_run["proc"].stdout


@pytest.mark.parametrize(
    ("test_id", "signal", "stderr_line"),
    [
        ("robustness.crashes.test_abort_isolated", "SIGABRT", "plugin: about to abort (isolated)"),
        ("robustness.crashes.test_segfault_isolated", "SIGSEGV", "plugin: about to read address 0"),
        ("robustness.crashes.test_abort_shared", "SIGABRT", "plugin: about to abort (shared worker)"),
    ],
)
def test_crash_names_the_signal_and_attaches_the_stderr_tail(mixed_run: dict[str, Any], test_id: str, signal: str,
                                                             stderr_line: str) -> None:
    test = by_id(mixed_run["results"])[test_id]
    assert f"killed by {signal}" in test["message"]
    assert stderr_line in test["message"]
    assert test["details"]["signal"] == signal
    assert stderr_line in test["details"]["stderr_tail"]
    assert len(test["details"]["stderr_tail"]) <= 50


def test_crash_by_exit_reports_the_status(mixed_run: dict[str, Any]) -> None:
    test = by_id(mixed_run["results"])["robustness.crashes.test_exit_shared"]
    assert "exited with status 3" in test["message"]
    assert "plugin: calling exit(3)" in test["message"]


@pytest.mark.parametrize("test_id", ["robustness.crashes.test_sleep_forever", "robustness.crashes.test_hang_isolated"])
def test_timeout_is_killed_after_its_own_limit(mixed_run: dict[str, Any], test_id: str) -> None:
    test = by_id(mixed_run["results"])[test_id]
    assert "exceeded the 2s" in test["message"]  # the test's timeout marker, not the 30s default
    assert test["duration"] < 25
    assert any(test_id.rsplit(".", 1)[1] in line for line in test["details"]["stderr_tail"])  # the stack dump


def test_outcome_reasons(mixed_run: dict[str, Any]) -> None:
    tests = by_id(mixed_run["results"])
    assert tests["client.basic.test_not_supported"]["message"] == "plugin lacks PJRT_Frobnicate"
    assert tests["client.basic.test_skip_not_supported"]["message"] == "only 1 device, need 2"
    assert "UNIMPLEMENTED" in tests["client.basic.test_unimplemented"]["message"]
    assert tests["client.basic.test_warning"]["message"] == "PJRT_Buffer_Delete twice crashes"
    assert "fixture exploded" in tests["client.basic.test_fixture_error"]["message"]
    assert "lists differ" in tests["client.basic.test_fail"]["message"]


def test_details_tags_and_compatibility_reach_results(mixed_run: dict[str, Any]) -> None:
    results = mixed_run["results"]
    tests = by_id(results)
    details = tests["client.basic.test_details"]["details"]
    assert details["max_abs_err"] == 0.5 and details["first_mismatch_index"] == [1, 2]
    assert tests["client.basic.test_tagged"]["tags"] == ["donation"]
    assert "isolated" in tests["robustness.crashes.test_isolated_pass"]["tags"]
    assert results["compatibility"] == {"stablehlo_current_version": "1.2.3"}


def test_records_say_which_pjrt_functions_their_tests_called(mixed_run: dict[str, Any]) -> None:
    """pjrt_cts.runner.api_calls: a test's calls in its worker, in a child process it started, and up to the call its
    process died in (an isolated child read by its worker, a worker read by the controller: NEVER_RETURNED)."""
    tests = by_id(mixed_run["results"])
    assert tests["client.basic.test_pass"]["api_calls"] == {"Client_Create": 2}
    assert tests["client.basic.test_tagged"]["api_calls"] == {"Client_Compile": 1}  # its child's
    assert tests["robustness.crashes.test_abort_isolated"]["api_calls"] == {
        "Client_Compile": 1, "LoadedExecutable_Execute": "1 1 NEVER_RETURNED"}
    assert tests["robustness.crashes.test_abort_shared"]["api_calls"] == {"Buffer_Delete": "1 1 NEVER_RETURNED"}
    assert "api_calls" not in tests["client.basic.test_fail"]  # it called nothing
    coverage = mixed_run["results"]["api_coverage"]["functions"]
    assert coverage["Client_Create"] == {"family": "slot", "offered": False, "calls": 2, "tests": 1, "worst": "PASS"}
    assert coverage["Buffer_Delete"]["codes"] == ["NEVER_RETURNED"] and coverage["Buffer_Delete"]["worst"] == "CRASH"
    assert not (mixed_run["out"] / "logs" / "calls").exists()  # each worker removed its tables at its end
    assert "API reached " in mixed_run["proc"].stdout  # the run's line before its verdict


def test_results_json_follows_schema(mixed_run: dict[str, Any]) -> None:
    assert load_results(mixed_run["out"] / "results.json").to_json() == mixed_run["results"]  # read back unchanged
    results = mixed_run["results"]
    assert list(results) == ["schema_version", "tool", "started_at", "finished_at", "wall_seconds", "command",
                             "profile", "plugin", "environment", "expectations", "compatibility", "binding",
                             "selection", "confirmation", "tests", "summary", "defects", "api_coverage"]
    for test in results["tests"]:
        keys = tuple(TestRecord(id="").to_json())
        assert tuple(test) in (keys, (*keys, "api_calls"))  # api_calls: only where the test called something
        assert test["layer"] == test["id"].split(".")[0]
    assert results["summary"]["totals"]["CRASH"] == 4
    assert results["summary"]["verdict"] == "NON_CONFORMANT"
    assert results["plugin"]["path"].endswith("libfake_pjrt_plugin.so")
    assert "error" in results["plugin"]  # `pjrt-cts info` cannot load the fake plugin; the run went on


def test_jsonl_holds_the_same_records(mixed_run: dict[str, Any]) -> None:
    lines = (mixed_run["out"] / "results.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines]
    assert sorted(r["id"] for r in records) == sorted(EXPECTED_OUTCOMES)


def test_junit_counts(mixed_run: dict[str, Any]) -> None:
    root = ET.parse(mixed_run["out"] / "junit.xml").getroot()
    suites = {suite.get("name"): suite for suite in root}
    assert suites["robustness"].get("errors") == "6"  # 4 CRASH + 2 TIMEOUT
    assert suites["client"].get("failures") == "4"
    assert suites["client"].get("skipped") == "2"


def test_repro_line_reruns_just_that_test(mixed_run: dict[str, Any], tmp_path: Path) -> None:
    repro = by_id(mixed_run["results"])["client.basic.test_fail"]["repro"]
    argv = shlex.split(repro)
    assert argv[:2] == ["pjrt-cts", "run"]
    proc = run_cli(*argv[1:], "--out", str(tmp_path))
    rerun = by_id(load_json(tmp_path / "results.json"))
    assert rerun["client.basic.test_fail"]["outcome"] == "FAIL"
    others = {t["outcome"] for i, t in rerun.items() if i != "client.basic.test_fail"}
    assert others == {"SKIP"}
    assert proc.returncode == 1
