"""pjrt_cts.schema's run context: one file per run, one variable naming it, one reader (run_context)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pjrt_cts.schema import (CONTEXT_ENV, DEFAULT_CPU_OPTIONS, DEFAULT_FUZZ_SEED, FUZZ_SEED_ENV, KV_BACKEND_ENV,
                             NUM_NODES_ENV, RunContext, UserSettings, context_environment, run_context)
from pjrt_cts.testing import plugin_under_test


def test_a_context_round_trips_through_its_file(tmp_path: Path) -> None:
    context = RunContext(plugin_path="/p/libplugin.so", create_options={"n": 2}, profile="cuda", out_dir="/o",
                         no_device_codes=frozenset({"FAILED_PRECONDITION"}), blocks_file="/o/.run/blocks.json",
                         settings=UserSettings(fuzz_seed=5, num_nodes=3, kv_backend="loopback"))
    path = tmp_path / "context.json"
    context.write(path)
    assert RunContext.read(path) == context
    assert json.loads(path.read_text())["schema_version"] == 1
    assert not list(tmp_path.glob("*.partial"))


def test_a_context_of_another_schema_version_is_refused() -> None:
    with pytest.raises(ValueError, match="schema_version"):
        RunContext.from_json({"schema_version": 99})


def test_without_a_context_file_a_bare_run_gets_the_bundled_plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (CONTEXT_ENV, FUZZ_SEED_ENV, NUM_NODES_ENV, KV_BACKEND_ENV):
        monkeypatch.delenv(name, raising=False)
    context = run_context()
    assert context.plugin_path is None and dict(context.create_options) == dict(DEFAULT_CPU_OPTIONS)
    assert context.out_dir == "out" and context.settings == UserSettings()
    assert context.settings.fuzz_seed == DEFAULT_FUZZ_SEED
    monkeypatch.setenv(NUM_NODES_ENV, "4")
    monkeypatch.setenv(KV_BACKEND_ENV, " Loopback ")
    assert run_context().settings == UserSettings(num_nodes=4, kv_backend="loopback")


def test_a_malformed_user_setting_names_its_variable() -> None:
    with pytest.raises(ValueError, match=FUZZ_SEED_ENV):
        UserSettings.from_environment({FUZZ_SEED_ENV: "seven"})
    with pytest.raises(ValueError, match=NUM_NODES_ENV):
        UserSettings.from_environment({NUM_NODES_ENV: "2.5"})


def test_the_plugin_under_test_is_the_contexts(use_run_context: Any, tmp_path: Path) -> None:
    use_run_context(plugin_path="/p/libplugin.so", create_options={}, profile="cuda", out_dir=str(tmp_path / "o"))
    assert plugin_under_test.plugin_path_under_test() == Path("/p/libplugin.so")
    assert plugin_under_test.create_options_under_test() == {}
    assert plugin_under_test.profile_name() == "cuda"
    assert plugin_under_test.output_dir() == tmp_path / "o" and (tmp_path / "o").is_dir()


def test_a_child_process_reads_the_same_context(tmp_path: Path) -> None:
    path = tmp_path / "context.json"
    RunContext(plugin_path="/p/libplugin.so", settings=UserSettings(fuzz_seed=9)).write(path)
    code = "from pjrt_cts.schema import run_context; c = run_context(); print(c.plugin_path, c.settings.fuzz_seed)"
    done = subprocess.run([sys.executable, "-c", code], env={**os.environ, **context_environment(path)},
                          capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.split() == ["/p/libplugin.so", "9"]
