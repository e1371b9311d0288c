"""The versioning layer's write-beyond-struct_size reproduction (pjrt_cts.testing.struct_size_cases) is a script a
vendor runs as it is: written as the suite writes it, then run in a fresh interpreter against real plugins."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pjrt_cts.abi import structs
from pjrt_cts.runtime import default_plugin_path, legacy_plugin_path
from pjrt_cts.testing import struct_size_cases

PROGRAM = """module @repro_add {
  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.add %arg0, %arg1 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
"""
STRUCT = structs.PJRT_Executable_GetCompiledMemoryStats_Args
OLDER_SIZE = STRUCT.struct_size_at(71)  # before peak_memory_in_bytes (0.72)


def _run_script(plugin: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    path = tmp_path / f"write-beyond-Executable_GetCompiledMemoryStats-{OLDER_SIZE}.py"
    path.write_text(struct_size_cases.reproduction_script(
        function="Executable_GetCompiledMemoryStats", struct_name=STRUCT.__name__, size=OLDER_SIZE,
        field="executable", path=path, plugin_path=plugin, options={"cpu_device_count": 1}, program=PROGRAM),
        encoding="utf-8")
    compile(path.read_text(encoding="utf-8"), str(path), "exec")
    return subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=120, cwd=tmp_path)


def test_the_script_runs_and_finds_nothing_on_a_plugin_that_keeps_to_struct_size(tmp_path: Path) -> None:
    done = _run_script(Path(default_plugin_path()), tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().splitlines()[-1] == struct_size_cases.NOTHING_BEYOND


def test_the_script_reproduces_the_legacy_plugins_write_beyond_struct_size(tmp_path: Path) -> None:
    try:
        legacy = Path(legacy_plugin_path())
    except Exception as error:  # noqa: BLE001 - the test extra's xla-cpu-pjrt is not installed
        pytest.skip(f"no API 0.81 plugin: {error}")
    done = _run_script(legacy, tmp_path)
    # plugins/cpu-legacy: peak_memory_in_bytes (added in 0.72) is written at offset OLDER_SIZE
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.strip().splitlines()[-1] == struct_size_cases.WRITTEN_BEYOND
