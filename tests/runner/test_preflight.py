"""Hostile plugins cost one finding, not one crash per test: the probe, the preflight, blocks and crash storms.

The hostile plugin is the bundled CPU plugin behind a shim (hostile_plugin.py) that aborts, segfaults or
hangs in one PJRT function; everything else is the real plugin.
"""
from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

import hostile_plugin
from runner_cli import FIXTURE_SUITES, by_id, load_json, run_cli
from pjrt_cts.runner.blocks import Block, BlockFile, blocked_summary
from pjrt_cts.runner.controller.recorder import CRASH_STORM_THRESHOLD
from pjrt_cts.runner.controller.preflight import STEP_TESTS, run_preflight
from pjrt_cts.runner.probe import plugin_reason, probe_plugin
from pjrt_cts.runtime import default_plugin_path
from pjrt_cts.schema import TestRecord

CPU_OPTIONS = {"cpu_device_count": 4}
CLIENT_CREATE_FINDING = "client.preflight.test_client_create_survives"
INITIALIZE_FINDING = "abi.preflight.test_plugin_initialize_survives"
COMPILE_FINDING = "compile.preflight.test_trivial_compile_survives"


@pytest.fixture(scope="session")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    try:
        return hostile_plugin.build(tmp_path_factory.mktemp("hostile"))
    except FileNotFoundError as exc:
        pytest.skip(str(exc))


def _env(monkeypatch: pytest.MonkeyPatch, function: str, mode: str) -> dict[str, str]:
    values = hostile_plugin.environment(function, mode)
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    return values


def _blocked_by(test: dict[str, Any]) -> str | None:
    return (test.get("details") or {}).get("blocked_by")


# ---- the probe ---------------------------------------------------------------------------------


def test_probe_walks_every_step_of_a_healthy_plugin() -> None:
    result = probe_plugin(default_plugin_path(), CPU_OPTIONS, step_timeout=60)
    assert result.death is None and result.load_error is None
    assert [(step.step, step.status) for step in result.steps] == [(name, "ok") for name in STEP_TESTS]
    assert result.identity["api_version"] == "0.115" and len(result.identity["devices"]) == 4


def test_probe_names_the_function_the_signal_and_the_plugins_last_line(hostile: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    _env(monkeypatch, "Client_Create", "abort")
    result = probe_plugin(hostile, CPU_OPTIONS, step_timeout=60)
    death = result.death
    assert death is not None and death.kind == "crash" and death.step == "client"
    assert (death.function, death.signal) == ("PJRT_Client_Create", "SIGABRT")
    assert death.reason == f"hostile plugin: abort in slot {hostile_plugin.environment('Client_Create', 'abort')['HOSTILE_SLOT']}"
    assert death.one_line() == f"PJRT_Client_Create: killed by SIGABRT: {death.reason}"
    # What was learned before the death is kept.
    assert result.identity["api_version"] == "0.115" and "stablehlo_current_version" in result.identity["attributes"]
    assert {step.step: step.status for step in result.steps}["initialize"] == "ok"


def test_probe_kills_a_hang_after_the_step_timeout(hostile: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _env(monkeypatch, "Plugin_Initialize", "hang")
    began = time.monotonic()
    result = probe_plugin(hostile, CPU_OPTIONS, step_timeout=2)
    assert time.monotonic() - began < 30
    death = result.death
    assert death is not None and (death.kind, death.step, death.function) == ("timeout", "initialize", "PJRT_Plugin_Initialize")
    assert death.one_line().startswith("PJRT_Plugin_Initialize: no answer within 2s")
    assert result.identity["api_version"] == "0.115"  # loaded before the hang


def test_plugin_reason_skips_backtraces_and_boilerplate() -> None:
    tail = [
        "2026-11-23 19:22:35.058 | critical |          Always | TT_FATAL: No chips detected in the cluster (assert.hpp:104)",
        "terminate called after throwing an instance of 'std::runtime_error'",
        "  what():  TT_FATAL @ tt_cluster.cpp:129: num_chips > 0",
        "info:",
        "No chips detected in the cluster",
        "backtrace:",
        " --- /x/libtt.so(+0x3d6dc0a) [0x7f292616dc0a]",
        " --- /lib/x86_64-linux-gnu/libc.so.6(__libc_start_main+0x85) [0x7f2933a45305]",
        "Fatal Python error: Aborted",
        "Current thread 0x00007f3c42ea3b80 (most recent call first):",
        '  File "/x/probe_child.py", line 60 in call',
    ]
    assert plugin_reason(tail) == "No chips detected in the cluster"
    assert plugin_reason(["#0 0x1 in f", "#1 0x2 in g"]) == ""


# ---- the preflight -----------------------------------------------------------------------------


def test_preflight_of_a_healthy_plugin_records_nothing_and_blocks_nothing(tmp_path: Path) -> None:
    preflight = run_preflight(default_plugin_path(), CPU_OPTIONS, {}, step_timeout=60, repro="r")
    assert preflight.finding is None and preflight.block is None
    assert len(preflight.identity["sha256"]) == 64 and preflight.identity["api_version"] == "0.115"
    preflight.write_blocks(tmp_path / "blocks.json")
    assert BlockFile.read(tmp_path / "blocks.json").blocks == []


def test_preflight_turns_a_compile_abort_into_one_finding_and_a_call_block(hostile: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    _env(monkeypatch, "Client_Compile", "abort")
    preflight = run_preflight(hostile, CPU_OPTIONS, dict(os.environ), step_timeout=60, repro="pjrt-cts info x")
    finding, block = preflight.finding, preflight.block
    assert finding is not None and block is not None
    assert (finding.id, finding.layer, finding.outcome) == (COMPILE_FINDING, "compile", "CRASH")
    assert finding.details["signal"] == "SIGABRT" and finding.details["function"] == "PJRT_Client_Compile"
    assert "hostile plugin: abort" in finding.message and finding.repro == "pjrt-cts info x"
    assert block.functions == ("PJRT_Client_Compile",) and block.fixtures == ()
    assert block.message().startswith(f"blocked by {COMPILE_FINDING}: CRASH of PJRT_Client_Compile (SIGABRT)")


def test_blocked_summary_counts_by_layer_in_layer_order() -> None:
    records = [TestRecord(id=f"{layer}.a.test_{i}", layer=layer, details={"blocked_by": "x"} if layer != "abi" else {})
               for i, layer in enumerate(("transfer", "client", "client", "abi"))]
    assert blocked_summary(records) == ["blocked: 3 tests FAIL as blocked by x (client 2, transfer 1)"]


def test_block_file_round_trips(tmp_path: Path) -> None:
    block = Block(finding="a.b.test_c", reason="why", fixtures=("client",), functions=("PJRT_Client_Create",),
                  nodeid_prefixes=("suites/a/test_b.py::",), plugin_path="/x.so")
    BlockFile(tmp_path / "blocks.json", [block]).write()
    assert BlockFile.read(tmp_path / "blocks.json").blocks == [block]


# ---- whole runs (slow: `pjrt-cts run` in a subprocess) ------------------------------------------


@pytest.mark.slow
def test_client_create_abort_is_one_crash_and_the_client_tests_are_blocked(hostile: Path, tmp_path: Path) -> None:
    env = hostile_plugin.environment("Client_Create", "abort")
    began = time.monotonic()
    proc = run_cli("run", str(hostile), "--layers", "abi,client", "-n", "2", "--create-option", "cpu_device_count=4",
                   "--out", str(tmp_path), "--no-progress", env=env)
    seconds = time.monotonic() - began
    assert proc.returncode == 1, proc.stdout + proc.stderr
    results = load_json(tmp_path / "results.json")
    tests = results["tests"]
    assert tests[0]["id"] == CLIENT_CREATE_FINDING and tests[0]["outcome"] == "CRASH"
    assert tests[0]["details"]["signal"] == "SIGABRT" and "hostile plugin: abort" in tests[0]["message"]
    assert [t["id"] for t in tests if t["outcome"] in ("CRASH", "TIMEOUT")] == [CLIENT_CREATE_FINDING]
    # Needs no client (the plugin fixture alone): runs as usual.
    without_client = {"client.topology.test_destroy_of_a_null_topology_succeeds"}
    assert {test_id: by_id(results)[test_id]["outcome"] for test_id in without_client} == dict.fromkeys(
        without_client, "PASS"), [by_id(results)[test_id]["message"][:500] for test_id in without_client]
    client_tests = [t for t in tests if t["layer"] == "client" and t["id"] not in {CLIENT_CREATE_FINDING, *without_client}]
    assert len(client_tests) > 100
    assert [(t["id"], t["outcome"]) for t in client_tests
            if t["outcome"] != "FAIL" or _blocked_by(t) != CLIENT_CREATE_FINDING] == []
    abi = by_id(results)
    # Needs no client: runs as usual; needs the client fixture: blocked.
    assert abi["abi.entry_point.test_get_pjrt_api_returns_non_null"]["outcome"] == "PASS"
    assert _blocked_by(abi["abi.entry_point.test_api_table_head_is_unchanged_after_use"]) == CLIENT_CREATE_FINDING
    assert sum(t["outcome"] == "PASS" for t in tests if t["layer"] == "abi") > 150
    abi_blocked = sum(_blocked_by(t) == CLIENT_CREATE_FINDING for t in tests if t["layer"] == "abi")
    assert 1 <= abi_blocked <= 10
    assert f"blocked by {CLIENT_CREATE_FINDING} (abi {abi_blocked}, client {len(client_tests)})" in proc.stdout
    assert results["plugin"]["failure"]["function"] == "PJRT_Client_Create"
    assert seconds < 120, f"took {seconds:.0f}s"


@pytest.mark.slow
def test_initialize_hang_is_one_timeout_and_every_plugin_test_is_blocked(hostile: Path, tmp_path: Path) -> None:
    env = hostile_plugin.environment("Plugin_Initialize", "hang")
    began = time.monotonic()
    proc = run_cli("run", str(hostile), "--layers", "abi", "-n", "2", "--timeout", "3", "--out", str(tmp_path),
                   "--no-progress", env=env)
    seconds = time.monotonic() - began
    assert proc.returncode == 1, proc.stdout + proc.stderr
    tests = load_json(tmp_path / "results.json")["tests"]
    assert tests[0]["id"] == INITIALIZE_FINDING and tests[0]["outcome"] == "TIMEOUT"
    assert "PJRT_Plugin_Initialize did not return within 3s" in tests[0]["message"]
    others = tests[1:]
    assert len(others) > 100 and all(t["outcome"] == "FAIL" and _blocked_by(t) == INITIALIZE_FINDING for t in others)
    assert seconds < 90, f"took {seconds:.0f}s: a hang must cost one timeout, not one per test"


@pytest.mark.slow
def test_compile_abort_blocks_compiling_tests_while_transfers_run(hostile: Path, tmp_path: Path) -> None:
    env = hostile_plugin.environment("Client_Compile", "abort")
    proc = run_cli("run", str(hostile), "--layers", "transfer,compile", "-n", "2", "--create-option",
                   "cpu_device_count=4", "--id", "transfer.dtypes.*", "--id", "compile.stablehlo_text.*",
                   "--out", str(tmp_path), "--no-progress", env=env)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    tests = load_json(tmp_path / "results.json")["tests"]
    assert [t["id"] for t in tests if t["outcome"] in ("CRASH", "TIMEOUT")] == [COMPILE_FINDING]
    transfers = [t for t in tests if t["layer"] == "transfer" and t["outcome"] != "SKIP"]
    compiles = [t for t in tests if t["layer"] == "compile" and t["outcome"] != "SKIP" and t["id"] != COMPILE_FINDING]
    assert len(transfers) > 100 and all(t["outcome"] == "PASS" for t in transfers)
    assert compiles and all(t["outcome"] == "FAIL" and _blocked_by(t) == COMPILE_FINDING for t in compiles)
    assert all("(PJRT_Client_Compile not called)" in t["message"] for t in compiles)


@pytest.fixture(scope="module")
def hostile_fixture_run(hostile: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("hostile-out")
    env = hostile_plugin.environment("Client_Compile", "abort")
    proc = run_cli("run", str(hostile), "--suites-dir", str(FIXTURE_SUITES / "hostile" / "suites"), "-n", "2",
                   "--timeout", "30", "--create-option", "cpu_device_count=4", "--out", str(out), "--no-progress",
                   env=env)
    return {"proc": proc, "tests": by_id(load_json(out / "results.json"))}


@pytest.mark.slow
def test_a_refused_call_fails_even_when_the_test_swallows_it(hostile_fixture_run: dict[str, Any]) -> None:
    tests = hostile_fixture_run["tests"]
    for name in ("test_compile_is_refused", "test_refusal_swallowed_by_the_test", "test_isolated_compile_is_refused"):
        test = tests[f"compile.blocked_calls.{name}"]
        assert test["outcome"] == "FAIL" and _blocked_by(test) == COMPILE_FINDING, test
    assert tests["compile.blocked_calls.test_transfer_does_not_compile"]["outcome"] == "PASS"


@pytest.mark.slow
def test_a_crash_storm_cuts_its_module_short(hostile_fixture_run: dict[str, Any]) -> None:
    tests = hostile_fixture_run["tests"]
    storm = {test_id: test for test_id, test in tests.items() if test_id.startswith("robustness.storm.")}
    crashed = [test for test in storm.values() if test["outcome"] == "CRASH"]
    blocked = [test for test in storm.values() if test["outcome"] == "FAIL"]
    assert len(storm) == 16 and len(crashed) + len(blocked) == 16, {k: (t["outcome"], t["message"][:300])
                                                                    for k, t in storm.items()}
    # Workers run in parallel: a crash already under way when the storm is declared still counts.
    assert CRASH_STORM_THRESHOLD <= len(crashed) <= CRASH_STORM_THRESHOLD + 1
    assert all("crash storm" in test["message"] and _blocked_by(test) in {t["id"] for t in crashed} for test in blocked)
    assert tests["robustness.calm.test_still_runs"]["outcome"] == "PASS"
    assert "warning: crash storm: " in hostile_fixture_run["proc"].stdout
