"""The proxy plugin: builds from source, forwards faithfully, and its defects are observable."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import numpy as np
import pytest

from pjrt_cts.abi.slots import SLOTS_BY_NAME
from pjrt_cts.abi import structs as S
from pjrt_cts.model import LAYERS
from pjrt_cts.native import NativeBuildError
from pjrt_cts.proxy import (
    DEFECT_ENV, DEFECTS, PASSTHROUGH, TARGET_ENV, build_proxy, compiled_defect_names, proxy_environment,
)
from pjrt_cts.proxy.abi_header import generate
from pjrt_cts.runtime import Plugin, default_plugin_path, legacy_plugin_path
from pjrt_cts.runtime.errors import PluginLoadError


@pytest.fixture(scope="module")
def proxy_library() -> Path:
    try:
        return build_proxy()
    except NativeBuildError as exc:  # the proxy is compiled on the host: no compiler, no proxy
        pytest.skip(str(exc))


@pytest.fixture()
def load_proxy(proxy_library: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator:
    """Load a private copy of the proxy with a defect: each copy is its own dlopen instance, so
    several defects can be tried in one test process."""

    def load(defect: str, target: Path | None = None) -> Plugin:
        copy = tmp_path / f"libpjrt_proxy_{defect}.so"
        shutil.copyfile(proxy_library, copy)
        monkeypatch.setenv(TARGET_ENV, str(target or default_plugin_path()))
        monkeypatch.setenv(DEFECT_ENV, defect)
        return Plugin.load(copy)

    yield load


def test_build_is_cached(proxy_library: Path) -> None:
    before = proxy_library.stat().st_mtime_ns
    assert build_proxy() == proxy_library
    assert proxy_library.stat().st_mtime_ns == before


def test_compiled_proxy_knows_exactly_the_catalogued_defects(proxy_library: Path) -> None:
    assert compiled_defect_names(proxy_library) == [PASSTHROUGH] + [d.name for d in DEFECTS]


def test_generated_header_uses_the_abi_tables() -> None:
    header = generate()
    for name in ("Client_Create", "LoadedExecutable_Execute", "Buffer_ToHostBuffer"):
        assert f"#define SLOT_{name} {SLOTS_BY_NAME[name].index}\n" in header
    # Documented sanity offsets (ABI reference section 2): Client_Create at 120, Execute at 480.
    assert 40 + 8 * SLOTS_BY_NAME["Client_Create"].index == 120
    assert 40 + 8 * SLOTS_BY_NAME["LoadedExecutable_Execute"].index == 480
    assert f"#define OFF_PJRT_Buffer_ToHostBuffer_Args__dst {S.PJRT_Buffer_ToHostBuffer_Args.dst.offset}\n" in header
    assert f"#define SSIZE_PJRT_ExecuteOptions {S.PJRT_ExecuteOptions.STRUCT_SIZE}\n" in header


def test_catalogue_is_well_formed() -> None:
    names = [d.name for d in DEFECTS]
    assert len(names) == len(set(names)) and len(names) >= 25
    assert len({d.layer for d in DEFECTS}) >= 8
    for defect in DEFECTS:
        assert defect.catchers, defect.name
        assert defect.expect in ("caught", "tolerated"), defect.name
        assert set(defect.layers) <= set(LAYERS), defect.name
        assert defect.layer in LAYERS, defect.name
        for pattern in defect.selection:
            assert pattern.split(".", 1)[0] in defect.layers, (defect.name, pattern)


def _info(proxy: Path, target: Path, defect: str = PASSTHROUGH) -> dict:
    env = {**os.environ, **proxy_environment(target, defect)}
    result = subprocess.run([sys.executable, "-m", "pjrt_cts.cli.main", "info", "--json", "--no-sha256", str(proxy)],
                            capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout)


def test_info_through_passthrough_proxy_shows_the_target(proxy_library: Path) -> None:
    direct = Plugin.load(default_plugin_path())
    card = _info(proxy_library, default_plugin_path())
    assert card["api_version"] == direct.version_string
    assert card["struct_size"] == direct.struct_size
    assert card["missing_slots"] == []


def test_info_through_proxy_of_the_older_plugin(proxy_library: Path) -> None:
    try:
        legacy = legacy_plugin_path()
    except FileNotFoundError as exc:
        pytest.skip(str(exc))
    card = _info(proxy_library, legacy)
    assert card["api_version"] == Plugin.load(legacy).version_string == "0.81"


def test_passthrough_round_trip(load_proxy) -> None:  # type: ignore[no-untyped-def]
    plugin = load_proxy(PASSTHROUGH)
    data = np.arange(12, dtype=np.float32).reshape(3, 4)
    with plugin.create_client({"cpu_device_count": 2}) as client:
        assert len(client.devices) == 2
        with client.buffer_from_numpy(data) as buffer:
            assert buffer.dims == (3, 4)
            np.testing.assert_array_equal(buffer.to_numpy(), data)


def test_to_host_bitflip_changes_only_the_last_element(load_proxy) -> None:  # type: ignore[no-untyped-def]
    plugin = load_proxy("to_host_bitflip")
    data = np.linspace(1.0, 2.0, 8, dtype=np.float32)
    with plugin.create_client({"cpu_device_count": 1}) as client, client.buffer_from_numpy(data) as buffer:
        back = buffer.to_numpy()
    np.testing.assert_array_equal(back[:-1], data[:-1])
    assert back[-1] != data[-1]
    assert bin(int(back.view(np.uint32)[-1] ^ data.view(np.uint32)[-1])).count("1") == 1


def test_dims_off_by_one_is_visible(load_proxy) -> None:  # type: ignore[no-untyped-def]
    plugin = load_proxy("dims_off_by_one")
    with plugin.create_client({"cpu_device_count": 1}) as client, \
            client.buffer_from_numpy(np.zeros((2, 5), dtype=np.int32)) as buffer:
        assert buffer.dims == (2, 6)


def test_table_defects_change_the_api_table(load_proxy) -> None:  # type: ignore[no-untyped-def]
    assert not load_proxy("null_slot").has("Buffer_IsOnCpu")
    looped = load_proxy("extension_chain_loop")
    assert any("cycle" in problem for problem in looped.extension_chain_problems())


def test_unknown_defect_refuses_to_load(load_proxy) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(PluginLoadError, match="NULL"):
        load_proxy("no_such_defect_name")


def test_missing_target_refuses_to_load(proxy_library: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copy = tmp_path / "libpjrt_proxy_no_target.so"
    shutil.copyfile(proxy_library, copy)
    monkeypatch.delenv(TARGET_ENV, raising=False)
    monkeypatch.setenv(DEFECT_ENV, PASSTHROUGH)
    with pytest.raises(PluginLoadError, match="NULL"):
        Plugin.load(copy)


EXP_F32 = """module @exp_probe {
  func.func public @main(%a: tensor<6xf32>) -> tensor<6xf32> {
    %0 = stablehlo.exponential %a : tensor<6xf32>
    return %0 : tensor<6xf32>
  }
}
"""
ADD_F32 = EXP_F32.replace("exp_probe", "add_probe").replace("stablehlo.exponential %a", "stablehlo.add %a, %a")


def _run_f32(plugin: Plugin, program: str, data: np.ndarray) -> np.ndarray:
    with plugin.create_client({"cpu_device_count": 1}) as client, client.compile(program) as executable, \
            client.buffer_from_numpy(data) as argument:
        return executable.execute([argument])[0].to_numpy()


@pytest.mark.parametrize("defect, ulps", [("transcendental_2ulp", 2), ("transcendental_64ulp", 64)])
def test_ulp_mutants_move_transcendental_outputs_only(load_proxy, defect: str, ulps: int) -> None:  # type: ignore[no-untyped-def]
    data = np.array([-1.5, -0.25, 0.0, 0.5, 1.0, 3.0], dtype=np.float32)
    reference = Plugin.load(default_plugin_path())
    mutant = load_proxy(defect)
    moved = _run_f32(mutant, EXP_F32, data).view(np.int32) - _run_f32(reference, EXP_F32, data).view(np.int32)
    assert moved.tolist() == [ulps] * len(data)  # exp is never 0, inf or nan here
    np.testing.assert_array_equal(_run_f32(mutant, ADD_F32, data), _run_f32(reference, ADD_F32, data))
