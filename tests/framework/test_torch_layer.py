"""The framework_torch layer's plumbing, without PyTorch (CI installs no torch): the SKIP when torch_xla is missing,
the DevicePlugin wiring against a fake torch_xla.experimental.plugins, the child's environment and protocol, the
PJRT function inferred from torch_xla's metrics, whose fault a failed check is, and the version-negotiation probe
against the real default plugin."""
from __future__ import annotations

import io
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

from pjrt_cts import framework
from pjrt_cts.framework import torch_session as ts
from pjrt_cts.judgment.outcomes import LAYERS

REPO = Path(__file__).resolve().parents[2]
needs_no_torch = pytest.mark.skipif(framework.torch_xla_installed(),
                                    reason="checks the layer where torch_xla is missing (CI); this venv has it")


def test_layer_is_known() -> None:
    assert "framework_torch" in LAYERS
    assert (REPO / "suites" / "framework_torch" / "conftest.py").is_file()


def test_torch_xla_installed_needs_both(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    present = {"torch"}
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: object() if name in present else None)
    assert not framework.torch_xla_installed()
    present.add("torch_xla")
    assert framework.torch_xla_installed()
    assert "pjrt-cts[torch]" in framework.TORCH_MISSING_REASON


def _fake_plugins_module() -> types.SimpleNamespace:
    calls: list[tuple[str, object]] = []

    class DevicePlugin:  # torch_xla's base: library_path() raises, options default to {}
        def library_path(self) -> str:
            raise NotImplementedError

        def client_create_options(self) -> dict:
            return {}

    def use_dynamic_plugins() -> None:
        calls.append(("use_dynamic_plugins", None))

    def register_plugin(name: str, plugin: object) -> None:
        calls.append(("register_plugin", (name, plugin)))

    return types.SimpleNamespace(DevicePlugin=DevicePlugin, use_dynamic_plugins=use_dynamic_plugins,
                                 register_plugin=register_plugin, calls=calls)


def test_device_plugin_wiring_with_a_fake_torch_xla() -> None:
    fake = _fake_plugins_module()
    options = {"cpu_device_count": 4, "name": "x"}
    plugin = ts.register_plugin_under_test(fake, ts.PLUGIN_DEVICE_NAME, "/opt/libplugin.so", options)
    assert isinstance(plugin, fake.DevicePlugin)
    assert plugin.library_path() == "/opt/libplugin.so"
    assert plugin.client_create_options() == options
    options["cpu_device_count"] = 1  # the plugin keeps its own copy
    assert plugin.client_create_options()["cpu_device_count"] == 4
    assert [name for name, _ in fake.calls] == ["use_dynamic_plugins", "register_plugin"]
    assert fake.calls[1][1] == (ts.PLUGIN_DEVICE_NAME, plugin)


def test_child_launch_sets_pjrt_device_before_torch_starts(tmp_path: Path) -> None:
    library = tmp_path / "plugin.so"
    launch = ts.child_launch("plugin", library, {"a": 1}, ["/x/libcudart.so"], base={})
    env, settings = launch.env, launch.settings
    assert env["PJRT_DEVICE"] == ts.PLUGIN_DEVICE_NAME and "_" not in ts.PLUGIN_DEVICE_NAME  # device_type() splits on _
    assert settings.plugin_path == str(library.resolve()) and settings.options == {"a": 1}
    assert settings.preload == ("/x/libcudart.so",) and "ENABLE_PJRT_COMPATIBILITY" not in env
    assert ts.ChildSettings.from_json(settings.to_json()) == settings  # the child's command line
    probe = ts.child_launch("probe", library, {}, base={})
    assert probe.env["ENABLE_PJRT_COMPATIBILITY"] == "false" and probe.settings.mode == "probe"
    reference = ts.child_launch("reference", library, None, device_count=4, spmd=True, base={})
    assert reference.env["PJRT_DEVICE"] == "CPU" and reference.env["CPU_NUM_DEVICES"] == "4"
    assert reference.settings.spmd and reference.settings.plugin_path is None
    with pytest.raises(ValueError):
        ts.child_launch("plugin", None, {}, base={})
    with pytest.raises(ValueError):
        ts.child_launch("gpu", library, {}, base={})


def test_frames_round_trip() -> None:
    stream = io.BytesIO()
    ts.write_frame(stream, ("call", "/f.py", "check_x", {"n": 1}))
    ts.write_frame(stream, ts.ChildInfo(ok=True, devices=["xla:0"]))
    stream.seek(0)
    assert ts.read_frame(stream) == ("call", "/f.py", "check_x", {"n": 1})
    assert ts.read_frame(stream).devices == ["xla:0"]
    with pytest.raises(EOFError):
        ts.read_frame(stream)


COUNTS = {ts.METRIC_COMPILE: 2, ts.EXECUTE_ATTEMPTS: 2, ts.EXECUTED: 2}


@pytest.mark.parametrize(("stage", "after", "expected"), [
    # torch_xla timed an execution that never returned: Execute failed, even when the error surfaced in .cpu()
    ("transfer_to_host", {ts.METRIC_COMPILE: 3, ts.EXECUTE_ATTEMPTS: 3, ts.EXECUTED: 2}, "PJRT_LoadedExecutable_Execute"),
    ("execute", {ts.METRIC_COMPILE: 3, ts.EXECUTE_ATTEMPTS: 2, ts.EXECUTED: 2}, "PJRT_Client_Compile"),
    ("transfer_to_device", dict(COUNTS), "PJRT_Client_BufferFromHostBuffer"),
    ("transfer_to_host", {ts.METRIC_COMPILE: 3, ts.EXECUTE_ATTEMPTS: 3, ts.EXECUTED: 3}, "PJRT_Buffer_ToHostBuffer"),
    ("trace", dict(COUNTS), None),
])
def test_pjrt_function_is_inferred_from_torch_xla_metrics(stage: str, after: dict, expected: str | None) -> None:
    assert ts.infer_pjrt_function(stage, COUNTS, after) == expected


def test_failure_names_the_torch_op_and_the_pjrt_function() -> None:
    failure = ts.CheckFailure.from_info({"type": "RuntimeError", "message": "INVALID_ARGUMENT: bad\nmore",
                                         "op": "torch.matmul", "stage": "execute",
                                         "pjrt_function": "PJRT_LoadedExecutable_Execute"})
    assert failure.describe() == ("torch.matmul under PyTorch/XLA: failed in stage execute "
                                  "(PJRT_LoadedExecutable_Execute): RuntimeError: INVALID_ARGUMENT: bad")


def test_judge_failure_blames_the_plugin_only_without_reference_evidence() -> None:
    fault, message = ts.judge_failure("torch.sin", "wrong values", None, "2.9.0")
    assert fault == ts.PLUGIN_FAULT and "wrong values" in message and "passes on torch_xla 2.9.0" in message
    fault, message = ts.judge_failure("torch.sin", "wrong values", "also wrong", "2.9.0")
    assert fault == ts.FRAMEWORK_FAULT and "also wrong" in message and "not the plugin's" in message


@needs_no_torch
def test_child_reports_why_torch_xla_did_not_start(tmp_path: Path) -> None:
    """The real child, where torch_xla is missing: it answers with the import error instead of dying."""
    from pjrt_cts.runtime import default_plugin_path

    process = ts.TorchXlaProcess(ts.child_launch("plugin", default_plugin_path(), {}), tmp_path)
    try:
        info = process.start()
    finally:
        process.close()
    assert not info.ok and info.error is not None
    assert info.error.type == "ModuleNotFoundError" and "torch" in info.error.message
    assert info.error.stage == "initialize"


def test_a_dead_child_is_reported_with_its_exit_status(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    (tmp_path / "pjrt_cts_dies.py").write_text("import os\nos._exit(7)\n")
    process = ts.TorchXlaProcess(ts.ChildLaunch(ts.ChildSettings(), env), tmp_path)
    process_module = ts.CHILD_MODULE
    try:
        ts.CHILD_MODULE = "pjrt_cts_dies"
        with pytest.raises(ts.TorchProcessDied, match="exit status 7"):
            process.start()
    finally:
        ts.CHILD_MODULE = process_module
        process.close()


@needs_no_torch
def test_suite_skips_as_test_environment_without_torch() -> None:
    """A layer that cannot run because its framework is missing is a SKIP that says so, never a pass."""
    done = subprocess.run([sys.executable, "-m", "pytest", "suites/framework_torch", "-q", "-rs", "-p", "no:cacheprovider",
                           "-k", "discovery or negotiation or transfer_is_exact and float32-scalar"],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert " passed" not in done.stdout.splitlines()[-1], done.stdout[-2000:]
    assert "test environment: torch and torch_xla are not installed" in done.stdout, done.stdout[-2000:]


def test_execute_options_probe_on_the_default_plugin() -> None:
    """torch-xla 2.9.0 passes PJRT API 0.75 structs: the default plugin (0.115) rejects its 80-byte
    PJRT_ExecuteOptions and accepts its own size."""
    from pjrt_cts.runtime import Plugin, default_plugin_path

    plugin = Plugin.load(default_plugin_path())
    version = (int(plugin.api_version[0]), int(plugin.api_version[1]))
    with plugin.create_client({"cpu_device_count": 1}) as client:
        old = ts.probe_execute_options(client, version, (0, 75))
        own = ts.probe_execute_options(client, version, version)
    assert old.size == 80 and not old.accepted and old.error.startswith("INVALID_ARGUMENT")
    assert "80" in old.error and "rejects" in old.describe()
    assert own.accepted and own.size == own.own_size, own
