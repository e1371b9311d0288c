"""`pjrt-cts info` on both CPU plugins and on paths that are not plugins."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from pjrt_cts.runtime import default_plugin_path, legacy_plugin_path


def _info(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pjrt_cts.cli.main", "info", *args], capture_output=True, text=True, timeout=120)


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
