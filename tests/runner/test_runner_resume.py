"""A killed or interrupted controller leaves a valid results.jsonl; --resume finishes the run
without rerunning what was recorded."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest

from runner_cli import FIXTURE_SUITES, REPO_ROOT, by_id, cli_command, cli_environment, load_json, run_cli

pytestmark = pytest.mark.slow  # runs `pjrt-cts run` end to end in subprocesses

SLOW = FIXTURE_SUITES / "slow" / "suites"
ALL_IDS = {f"client.slow.test_slow[{n}]" for n in range(8)}


def _start(fake_plugin: Path, out: Path, trace: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        cli_command("run", str(fake_plugin), "--suites-dir", str(SLOW), "-n", "1", "--out", str(out)),
        cwd=REPO_ROOT, env=cli_environment({"RUNNER_TEST_TRACE": str(trace)}), stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True, start_new_session=True,
    )


def _wait_for_records(jsonl: Path, count: int, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if jsonl.is_file() and len(jsonl.read_text().splitlines()) >= count:
            return
        assert proc.poll() is None, "the run ended before it could be interrupted"
        time.sleep(0.05)
    raise AssertionError("no records appeared")


def _resume(fake_plugin: Path, out: Path, trace: Path) -> subprocess.CompletedProcess[str]:
    return run_cli("run", str(fake_plugin), "--suites-dir", str(SLOW), "-n", "1", "--out", str(out), "--resume",
                   env={"RUNNER_TEST_TRACE": str(trace)})


def _runs_per_test(trace: Path) -> Counter[str]:
    return Counter(f"client.slow.test_slow[{line}]" for line in trace.read_text().split())


def test_killed_controller_leaves_valid_jsonl_and_resume_completes(fake_plugin: Path, tmp_path: Path) -> None:
    out, trace = tmp_path / "out", tmp_path / "trace.txt"
    proc = _start(fake_plugin, out, trace)
    try:
        _wait_for_records(out / "results.jsonl", 3, proc)
        os.kill(proc.pid, signal.SIGKILL)  # the controller dies without any cleanup
        proc.wait(timeout=30)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # its orphaned worker, in the session we created
        except ProcessLookupError:
            pass
    text = (out / "results.jsonl").read_text()
    complete_lines = text.splitlines()[: text.count("\n")]
    finished = {json.loads(line)["id"] for line in complete_lines}  # every complete line is valid JSON
    assert 3 <= len(finished) < len(ALL_IDS)
    assert not (out / "results.json").exists()

    resumed = _resume(fake_plugin, out, trace)
    assert resumed.returncode == 3, resumed.stdout + resumed.stderr  # complete, but a fixture suite: no level
    results = load_json(out / "results.json")
    assert {test_id: t["outcome"] for test_id, t in by_id(results).items()} == {i: "PASS" for i in ALL_IDS}
    runs = _runs_per_test(trace)
    assert all(runs[test_id] == 1 for test_id in finished), runs  # recorded tests were not rerun
    assert set(runs) == ALL_IDS
    assert results["summary"]["complete"] is True
    assert results["summary"]["verdict"] == "INCOMPLETE"
    assert not any("interrupted" in reason for reason in results["summary"]["reasons"])


def test_interrupted_controller_writes_partial_results_and_exits_130(fake_plugin: Path, tmp_path: Path) -> None:
    out, trace = tmp_path / "out", tmp_path / "trace.txt"
    proc = _start(fake_plugin, out, trace)
    try:
        _wait_for_records(out / "results.jsonl", 2, proc)
        os.kill(proc.pid, signal.SIGTERM)  # handled like Ctrl-C
        output, _ = proc.communicate(timeout=60)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    assert proc.returncode == 130, output
    assert "--resume" in output
    partial = load_json(out / "results.json")
    assert partial["summary"]["verdict"] == "INCOMPLETE"
    done = set(by_id(partial))
    assert done and done < ALL_IDS

    resumed = _resume(fake_plugin, out, trace)
    assert resumed.returncode == 3, resumed.stdout + resumed.stderr  # complete, but a fixture suite: no level
    assert set(by_id(load_json(out / "results.json"))) == ALL_IDS
    runs = _runs_per_test(trace)
    assert all(runs[test_id] == 1 for test_id in done), runs


def test_resume_refuses_another_binary_at_the_same_path(fake_plugin: Path, tmp_path: Path) -> None:
    """Issue 28's reproduction: a rebuilt plugin at the same path is another plugin; its run starts fresh."""
    plugin = tmp_path / "plug" / "libvendor.so"
    plugin.parent.mkdir()
    plugin.write_bytes(fake_plugin.read_bytes())
    out, trace = tmp_path / "out", tmp_path / "trace.txt"
    args = ("run", str(plugin), "--suites-dir", str(SLOW), "-n", "1", "--out", str(out), "--id", "client.slow.test_slow[0]")
    first = run_cli(*args, env={"RUNNER_TEST_TRACE": str(trace)})
    assert first.returncode == 3, first.stdout + first.stderr  # a partial selection: INCOMPLETE
    assert run_cli(*args, "--resume", env={"RUNNER_TEST_TRACE": str(trace)}).returncode == 3  # same binary: resumes
    before = (out / "results.json").read_bytes()
    plugin.write_bytes(fake_plugin.read_bytes() + b"\0another build")
    refused = run_cli(*args, "--resume", env={"RUNNER_TEST_TRACE": str(trace)})
    assert refused.returncode == 2, refused.stdout + refused.stderr
    lines = [line for line in refused.stdout.splitlines() if line.strip()]
    assert len(lines) == 1 and "--resume refused" in lines[0] and "plugin binary (SHA-256)" in lines[0]
    assert (out / "results.json").read_bytes() == before  # the recorded run is left as it was
    assert _runs_per_test(trace) == Counter({"client.slow.test_slow[0]": 1})  # nothing ran for the new binary


def test_resume_refuses_other_create_options(fake_plugin: Path, tmp_path: Path) -> None:
    out, trace = tmp_path / "out", tmp_path / "trace.txt"
    args = ("run", str(fake_plugin), "--suites-dir", str(SLOW), "-n", "1", "--out", str(out), "--id", "client.slow.test_slow[1]")
    run_cli(*args, env={"RUNNER_TEST_TRACE": str(trace)})
    refused = run_cli(*args, "--resume", "--create-option", "cpu_device_count=2", env={"RUNNER_TEST_TRACE": str(trace)})
    assert refused.returncode == 2 and "client create options" in refused.stdout



RECORDED_ENV = {"XLA_FLAGS": "--xla_cpu_enable_fast_math=false", "PJRT_CTS_FUZZ_SEED": ""}


@pytest.mark.parametrize(("changed", "named"), [
    ({"env": {"XLA_FLAGS": "--xla_cpu_enable_fast_math=true"}},
     "plugin environment: XLA_FLAGS '--xla_cpu_enable_fast_math=false' recorded, '--xla_cpu_enable_fast_math=true' now"),
    ({"args": ("--timeout", "30")}, "user settings: timeout 120.0 recorded, 30.0 now"),
    ({"env": {"PJRT_CTS_FUZZ_SEED": "7"}}, "user settings: fuzz_seed "),
])
def test_resume_refuses_another_environment_or_settings(fake_plugin: Path, tmp_path: Path, changed: dict,
                                                        named: str) -> None:
    """Issue 53: records made under other conditions are not this run's, whatever the plugin binary."""
    out, trace = tmp_path / "out", tmp_path / "trace.txt"
    args = ("run", str(fake_plugin), "--suites-dir", str(SLOW), "-n", "1", "--out", str(out), "--id", "client.slow.test_slow[2]")
    env = {"RUNNER_TEST_TRACE": str(trace), **RECORDED_ENV}
    assert run_cli(*args, env=env).returncode == 3
    refused = run_cli(*args, "--resume", *changed.get("args", ()), env={**env, **changed.get("env", {})})
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "--resume refused" in refused.stdout and named in refused.stdout
