"""`pjrt-cts info` on both CPU plugins, on paths that are not plugins and on plugins that crash or hang."""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from pjrt_cts.runtime import default_plugin_path, legacy_plugin_path


def _info(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pjrt_cts.cli.main", "info", *args], capture_output=True, text=True,
                          timeout=120, env={**os.environ, **(env or {})})


def _hostile_plugin() -> ModuleType:
    """tests/runner/hostile_plugin.py: the CPU plugin behind a shim that aborts or hangs in one function."""
    path = Path(__file__).resolve().parents[1] / "runner" / "hostile_plugin.py"
    spec = importlib.util.spec_from_file_location("hostile_plugin", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> tuple[ModuleType, Path]:
    module = _hostile_plugin()
    try:
        return module, module.build(tmp_path_factory.mktemp("hostile"))
    except FileNotFoundError as exc:
        pytest.skip(str(exc))


def test_info_default_plugin_shows_api_0115_and_four_devices() -> None:
    result = _info("--no-sha256")
    assert result.returncode == 0, result.stderr
    assert "0.115" in result.stdout
    assert str(default_plugin_path()) in result.stdout
    assert result.stdout.count("│ cpu ") >= 4  # one row per device
    assert "stablehlo_current_version" in result.stdout


def test_info_legacy_plugin_lists_twenty_missing_slots() -> None:
    try:
        path = legacy_plugin_path()
    except FileNotFoundError as exc:
        pytest.skip(str(exc))
    result = _info(str(path), "--create-option", "cpu_device_count=4", "--no-sha256")
    assert result.returncode == 0, result.stderr
    assert "0.81" in result.stdout
    assert "Missing slots (20)" in result.stdout
    for name in ("PJRT_Client_CreateErrorBuffer", "PJRT_Event_Create", "PJRT_TopologyDescription_GetMemorySpaceKindIds"):
        assert name in result.stdout


def test_info_json_is_the_identity_card() -> None:
    result = _info("--json")
    assert result.returncode == 0, result.stderr
    identity = json.loads(result.stdout)
    assert identity["api_version"] == "0.115" and identity["missing_slots"] == []
    assert len(identity["sha256"]) == 64 and len(identity["devices"]) == 4
    assert identity["client_error"] is None


@pytest.mark.parametrize(
    "path,message",
    [
        ("/nonexistent/plugin.so", "no such file"),
        ("/", "not a file"),
        ("/etc/hostname", "cannot be loaded as a shared library"),
    ],
)
def test_info_rejects_bad_paths_with_exit_code_2(path: str, message: str) -> None:
    result = _info(path)
    assert result.returncode == 2
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_info_rejects_library_without_get_pjrt_api(tmp_path) -> None:
    import ctypes.util

    libm = ctypes.util.find_library("m")
    from pathlib import Path

    candidates = [p for p in Path("/usr/lib/x86_64-linux-gnu").glob("libm.so.6")] or [Path(libm or "")]
    result = _info(str(candidates[0]))
    assert result.returncode == 2
    assert "does not export GetPjrtApi" in result.stderr


def test_info_of_a_plugin_aborting_in_client_create_is_one_line_and_exit_4(hostile: tuple[ModuleType, Path]) -> None:
    module, library = hostile
    env = module.environment("Client_Create", "abort")
    result = _info(str(library), "--no-sha256", "--create-option", "cpu_device_count=4", env=env)
    assert result.returncode == 4
    # One line: the PJRT function in progress, the signal, the plugin's last stderr line; no backtrace.
    assert result.stderr.strip().splitlines() == [
        f"pjrt-cts info: {library.name}: PJRT_Client_Create: killed by SIGABRT: "
        f"hostile plugin: abort in slot {env['HOSTILE_SLOT']}"]
    # What was learned before the abort is still printed.
    assert "0.115" in result.stdout and "stablehlo_current_version" in result.stdout and "LAYOUTS(4)" in result.stdout
    assert "probe stopped" in result.stdout


def test_info_json_of_a_crashing_plugin_carries_the_failure(hostile: tuple[ModuleType, Path]) -> None:
    module, library = hostile
    result = _info(str(library), "--json", "--no-sha256", env=module.environment("Client_Create", "segv"))
    assert result.returncode == 4
    card = json.loads(result.stdout)
    assert card["api_version"] == "0.115" and card["attributes"]["stablehlo_current_version"]
    failure = card["failure"]
    assert (failure["function"], failure["signal"], failure["kind"]) == ("PJRT_Client_Create", "SIGSEGV", "crash")
    assert failure["reason"].startswith("hostile plugin: segv")


def test_info_of_a_plugin_hanging_in_initialize_times_out(hostile: tuple[ModuleType, Path]) -> None:
    module, library = hostile
    result = _info(str(library), "--no-sha256", "--timeout", "2", env=module.environment("Plugin_Initialize", "hang"))
    assert result.returncode == 4
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "PJRT_Plugin_Initialize: no answer within 2s (killed): hostile plugin: hang" in lines[0]
    assert "0.115" in result.stdout  # GetPjrtApi answered before the hang


def test_info_takes_a_profile_like_run() -> None:
    """One CLI grammar: `--plugin PROFILE` names the library and its create options, as for `run`."""
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-m", "pjrt_cts.cli.main", "info", "--plugin", "cpu-legacy", "--json",
                             "--no-sha256"], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    identity = json.loads(result.stdout)
    assert identity["api_version"] == "0.81" and len(identity["devices"]) == 4  # the profile's cpu_device_count
    unknown = subprocess.run([sys.executable, "-m", "pjrt_cts.cli.main", "info", "--plugin", "no-such-profile"],
                             capture_output=True, text=True, check=False)
    assert unknown.returncode == 2 and "no-such-profile" in unknown.stderr and len(unknown.stderr.splitlines()) == 1
