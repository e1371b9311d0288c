"""The proxy plugin: builds from source, forwards faithfully, and its defects are observable."""
from __future__ import annotations

import ctypes
import json
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Iterator

import numpy as np
import pytest

from pjrt_cts.abi.slots import SLOTS_BY_NAME
from pjrt_cts.abi import structs
from pjrt_cts.abi.enums import ExtensionType
from pjrt_cts.abi.extensions import ffi as ffi_abi
from pjrt_cts.judgment.outcomes import LAYERS
from pjrt_cts.native import NativeBuildError, find_compiler
from pjrt_cts.proxy import (
    DEFECT_ENV, DEFECTS, DEFECTS_BY_NAME, PASSTHROUGH, TARGET_ENV, build_proxy, compiled_defect_names, proxy_environment,
)
from pjrt_cts.proxy.abi_header import generate
from pjrt_cts.proxy.catalogue import ESCAPE_HATCHES, LEVEL_NAMES, TOLERATED
from pjrt_cts.runtime import (BufferType, ExecuteContext, FfiExtension, MemoryLayout, PjrtError, Plugin, ShapeSpec,
                              default_plugin_path, legacy_plugin_path)
from pjrt_cts.runtime.errors import PluginLoadError
from pjrt_cts.schema import CONTEXT_ENV
from pjrt_cts.testing.ffi_handlers import (AFFINE, USER_DATA, Datum, affine_program, datum_type_id, ffi_handlers,
                                          jaxlib_include_dir, register_handler, user_data_program)


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
    assert f"#define OFF_PJRT_Buffer_ToHostBuffer_Args__dst {structs.PJRT_Buffer_ToHostBuffer_Args.dst.offset}\n" in header
    assert f"#define SSIZE_PJRT_ExecuteOptions {structs.PJRT_ExecuteOptions.STRUCT_SIZE}\n" in header


def test_catalogue_is_well_formed() -> None:
    names = [d.name for d in DEFECTS]
    assert len(names) == len(set(names)) and len(names) >= 56
    assert len({d.layer for d in DEFECTS}) >= 8
    assert {d.breaks for d in DEFECTS} == set(LEVEL_NAMES)  # every level is proven to be lost by some defect
    for defect in DEFECTS:
        assert defect.catchers, defect.name
        assert defect.expect in ("caught", TOLERATED), defect.name
        assert defect.breaks in LEVEL_NAMES, defect.name
        assert set(defect.layers) <= set(LAYERS), defect.name
        assert defect.layer in LAYERS, defect.name
        for pattern in defect.selection:
            assert pattern.split(".", 1)[0] in defect.layers, (defect.name, pattern)


# The escape hatches issue 14 names: a plugin that does not work must not be CONFORMANT.
NAMED_IN_THE_ISSUE = (
    "client_create_internal", "client_create_unimplemented", "client_create_invalid_argument",
    "compile_rejects_dot_general", "compile_rejects_convolution", "compile_rejects_while",
    "to_host_noop", "to_host_half", "fingerprint_empty", "buffer_delete_ignored",
    "execute_rejects_all", "stablehlo_version_overclaimed", "buffers_on_device0_only", "tiny_results_imprecise",
)


def test_catalogue_has_the_escape_hatch_defects() -> None:
    assert set(NAMED_IN_THE_ISSUE) <= set(ESCAPE_HATCHES)
    assert {"stablehlo_window_false", "platform_renamed"} <= set(ESCAPE_HATCHES)  # issue 53's
    assert len(ESCAPE_HATCHES) >= 15
    assert all(DEFECTS_BY_NAME[name].expect == "caught" for name in ESCAPE_HATCHES)


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


def test_passthrough_round_trip(load_proxy) -> None:
    plugin = load_proxy(PASSTHROUGH)
    data = np.arange(12, dtype=np.float32).reshape(3, 4)
    with plugin.create_client({"cpu_device_count": 2}) as client:
        assert len(client.devices) == 2
        with client.buffer_from_numpy(data) as buffer:
            assert buffer.dims == (3, 4)
            np.testing.assert_array_equal(buffer.to_numpy(), data)


def test_to_host_bitflip_changes_only_the_last_element(load_proxy) -> None:
    plugin = load_proxy("to_host_bitflip")
    data = np.linspace(1.0, 2.0, 8, dtype=np.float32)
    with plugin.create_client({"cpu_device_count": 1}) as client, client.buffer_from_numpy(data) as buffer:
        back = buffer.to_numpy()
    np.testing.assert_array_equal(back[:-1], data[:-1])
    assert back[-1] != data[-1]
    assert bin(int(back.view(np.uint32)[-1] ^ data.view(np.uint32)[-1])).count("1") == 1


def test_dims_off_by_one_is_visible(load_proxy) -> None:
    plugin = load_proxy("dims_off_by_one")
    with plugin.create_client({"cpu_device_count": 1}) as client, \
            client.buffer_from_numpy(np.zeros((2, 5), dtype=np.int32)) as buffer:
        assert buffer.dims == (2, 6)


def test_table_defects_change_the_api_table(load_proxy) -> None:
    assert not load_proxy("null_slot").has("Buffer_IsOnCpu")
    looped = load_proxy("extension_chain_loop")
    assert any("cycle" in problem for problem in looped.extension_chain_problems())


def test_unknown_defect_refuses_to_load(load_proxy) -> None:
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
def test_ulp_mutants_move_transcendental_outputs_only(load_proxy, defect: str, ulps: int) -> None:
    data = np.array([-1.5, -0.25, 0.0, 0.5, 1.0, 3.0], dtype=np.float32)
    reference = Plugin.load(default_plugin_path())
    mutant = load_proxy(defect)
    moved = _run_f32(mutant, EXP_F32, data).view(np.int32) - _run_f32(reference, EXP_F32, data).view(np.int32)
    assert moved.tolist() == [ulps] * len(data)  # exp is never 0, inf or nan here
    np.testing.assert_array_equal(_run_f32(mutant, ADD_F32, data), _run_f32(reference, ADD_F32, data))


# ---- the escape-hatch mutants do what the catalogue says ----------------------------------------------

LOG1P_F32 = EXP_F32.replace("exp_probe", "log1p_probe").replace("stablehlo.exponential", "stablehlo.log_plus_one")


def _error_code(call) -> str | None:
    try:
        call()
    except PjrtError as error:
        return error.code
    return None


@pytest.mark.parametrize("defect, code", [("client_create_internal", "INTERNAL"),
                                          ("client_create_unimplemented", "UNIMPLEMENTED"),
                                          ("client_create_invalid_argument", "INVALID_ARGUMENT")])
def test_client_create_mutants_fail_with_their_code(load_proxy, defect: str, code: str) -> None:
    assert _error_code(lambda: load_proxy(defect).create_client({"cpu_device_count": 1})) == code


# (defect, a golden case using the op, a golden case of the same family without it)
COMPILE_REJECTS = [("compile_rejects_dot_general", "dot.matmul.f32", "elementwise.add.f32.r1"),
                   ("compile_rejects_convolution", "conv.2d.f32", "elementwise.add.f32.r1"),
                   ("compile_rejects_while", "control.fori_loop.f32", "control.if_true.f32")]


@pytest.mark.parametrize("defect, using, other", COMPILE_REJECTS)
def test_compile_rejects_only_programs_using_the_op(load_proxy, defect: str, using: str, other: str) -> None:
    from pjrt_cts.golden import load_manifest

    cases = {case.id: case for case in load_manifest().cases}
    with load_proxy(defect).create_client({"cpu_device_count": 1}) as client:
        for source in ("text", "current", "minimum"):  # StableHLO text, and VHLO bytecode of two versions
            codes = [cases[name].program_text() if source == "text" else cases[name].portable_bytecode(source)
                     for name in (using, other)]
            assert _error_code(lambda: client.compile(codes[0])) == "UNIMPLEMENTED", (using, source)  # noqa: B023 - called within this iteration
            client.compile(codes[1]).close()


@pytest.mark.parametrize("defect, written", [("to_host_noop", 0), ("to_host_half", 16)])
def test_to_host_mutants_leave_the_destination_unwritten(load_proxy, defect: str, written: int) -> None:
    data = np.arange(1, 9, dtype=np.float32)
    with load_proxy(defect).create_client({"cpu_device_count": 1}) as client, client.buffer_from_numpy(data) as buffer:
        destination = np.full(data.nbytes, 0xA5, dtype=np.uint8)
        event = buffer.to_host_into(destination.ctypes.data, destination.nbytes)
        event.wait()  # the copy reports success
        event.close()
    assert destination[:written].tobytes() == data.tobytes()[:written]
    assert (destination[written:] == 0xA5).all()


def test_overclaimed_stablehlo_version_is_one_minor_newer(load_proxy) -> None:
    real = Plugin.load(default_plugin_path()).attributes["stablehlo_current_version"]
    claimed = load_proxy("stablehlo_version_overclaimed").attributes["stablehlo_current_version"]
    assert list(claimed) == [real[0], real[1] + 1, 0]


def test_buffers_land_on_the_first_device(load_proxy) -> None:
    with load_proxy("buffers_on_device0_only").create_client({"cpu_device_count": 4}) as client:
        devices = client.addressable_devices
        assert len(devices) == 4
        with client.buffer_from_numpy(np.zeros(3, np.float32), devices[2]) as buffer:
            assert buffer.device.id == devices[0].id


def test_deleted_buffer_stays_usable(load_proxy) -> None:
    data = np.arange(6, dtype=np.float32)
    with load_proxy("buffer_delete_ignored").create_client({"cpu_device_count": 1}) as client:
        buffer = client.buffer_from_numpy(data)
        buffer.delete()
        assert buffer.is_deleted
        np.testing.assert_array_equal(buffer.to_numpy(), data)
        buffer.close()


@pytest.mark.parametrize("defect, code", [("execute_rejects_all", "INVALID_ARGUMENT"),
                                          ("execute_unimplemented", "UNIMPLEMENTED")])
def test_execute_mutants_fail_every_execution(load_proxy, defect: str, code: str) -> None:
    data = np.arange(6, dtype=np.float32)
    with load_proxy(defect).create_client({"cpu_device_count": 1}) as client, client.compile(ADD_F32) as executable:
        assert _error_code(lambda: executable.execute([client.buffer_from_numpy(data)])) == code


@pytest.mark.parametrize("defect, call", [
    ("serialize_unimplemented", lambda client, executable, buffer: executable.serialize()),
    ("fingerprint_unimplemented", lambda client, executable, buffer: executable.fingerprint),
    ("external_references_unimplemented", lambda client, executable, buffer: buffer.increase_external_reference_count()),
    ("copy_to_device_unimplemented", lambda client, executable, buffer: buffer.copy_to_device(client.addressable_devices[1])),
    ("to_host_unimplemented", lambda client, executable, buffer: buffer.to_numpy()),
])
def test_unimplemented_mutants_answer_unimplemented(load_proxy, defect: str, call) -> None:
    with load_proxy(defect).create_client({"cpu_device_count": 2}) as client, client.compile(ADD_F32) as executable, \
            client.buffer_from_numpy(np.arange(6, dtype=np.float32)) as buffer:
        assert _error_code(lambda: call(client, executable, buffer)) == "UNIMPLEMENTED"


COSINE_F32 = EXP_F32.replace("exp_probe", "cosine_probe").replace("stablehlo.exponential %a", "stablehlo.cosine %a")


def test_every_other_time_is_counted_beside_the_run_context(load_proxy, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """fails_every_other_time counts a run's executions in a file beside its context file (PJRT_CTS_CONTEXT), so a
    rerun in a fresh process of the run gets the other answer; the count goes on from what that file holds."""
    run_dir = tmp_path / "out" / ".run"
    run_dir.mkdir(parents=True)
    monkeypatch.setenv(CONTEXT_ENV, str(run_dir / "context.json"))
    (run_dir / ".proxy-marked-executions").write_text("1\n")  # another process of the run executed it once
    data = np.zeros(6, dtype=np.float32)
    with load_proxy("fails_every_other_time").create_client({"cpu_device_count": 1}) as client, \
            client.compile(COSINE_F32) as executable:
        right = executable.execute([client.buffer_from_numpy(data)])[0].to_numpy()
        wrong = executable.execute([client.buffer_from_numpy(data)])[0].to_numpy()
    np.testing.assert_array_equal(right, np.ones(6, dtype=np.float32))
    np.testing.assert_array_equal(wrong, np.full(6, 2.0, dtype=np.float32))
    assert (run_dir / ".proxy-marked-executions").read_text() == "3\n"


NEGATE_F32 = EXP_F32.replace("exp_probe", "negate_probe").replace("stablehlo.exponential %a", "stablehlo.negate %a")


def test_subnormal_results_are_flushed_to_zeros_of_their_sign(load_proxy) -> None:
    data = np.array([1e-45, -3e-40, 0.5, -2.0, 1.2e-38, 0.0], dtype=np.float32)
    control = _run_f32(load_proxy(PASSTHROUGH), NEGATE_F32, data)
    got = _run_f32(load_proxy("subnormal_results_flushed"), NEGATE_F32, data)
    subnormal = (control != 0) & (np.abs(control) < np.finfo(np.float32).tiny)
    assert subnormal.sum() == 2  # the passthrough keeps -1e-45 and 3e-40
    assert (got[subnormal] == 0).all() and (np.signbit(got[subnormal]) == np.signbit(control[subnormal])).all()
    assert got[~subnormal].tobytes() == control[~subnormal].tobytes()


def test_tiny_results_get_a_relative_error(load_proxy) -> None:
    data = np.array([1e-6, -3e-5, 0.5, 0.0, 2e-5, 1.0], dtype=np.float32)
    reference = np.log1p(data.astype(np.float64))
    got = _run_f32(load_proxy("tiny_results_imprecise"), LOG1P_F32, data).astype(np.float64)
    tiny = (reference != 0) & (np.abs(reference) < 1e-4)
    np.testing.assert_allclose(got[tiny] / reference[tiny], 1.001, rtol=1e-5)
    np.testing.assert_allclose(got[~tiny], reference[~tiny], rtol=1e-6)


# ---- value deviations the diagnosis names: outputs recomputed from the inputs they came from -------------

MAX_MIN_F32 = """module @max_min_probe {
  func.func public @main(%a: tensor<8xf32>, %b: tensor<8xf32>, %c: tensor<8xf32>)
      -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
    %0 = stablehlo.maximum %a, %b : tensor<8xf32>
    %1 = stablehlo.minimum %c, %b : tensor<8xf32>
    %2 = stablehlo.add %a, %b : tensor<8xf32>
    return %0, %1, %2 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
  }
}
"""


def _run_all(plugin: Plugin, program: str | bytes, inputs: list[np.ndarray]) -> list[np.ndarray]:
    with plugin.create_client({"cpu_device_count": 1}) as client, client.compile(program) as executable:
        arguments = [client.buffer_from_numpy(array) for array in inputs]
        try:
            return [output.to_numpy() for output in executable.execute(arguments)]
        finally:
            for argument in arguments:
                argument.close()


def _extremum_number(x: np.ndarray, y: np.ndarray, maximum: bool) -> np.ndarray:
    """IEEE-754 maximumNumber / minimumNumber: a NaN operand yields the other operand, -0 < +0."""
    x_larger = (x > y) | ((x == y) & ~np.signbit(x))  # of +0 and -0, +0 is the larger
    pick_x = np.where(np.isnan(y), True, np.where(np.isnan(x), False, x_larger == maximum))
    return np.where(pick_x, x, y)


def test_max_min_mutant_returns_the_non_nan_operand(load_proxy) -> None:
    nan = np.nan
    a = np.array([nan, 1.0, nan, -0.0, 2.0, 0.0, -3.0, 5.0], dtype=np.float32)
    b = np.array([1.0, nan, nan, 0.0, 3.0, -0.0, -4.0, 5.0], dtype=np.float32)
    c = np.array([-1.0, 2.0, 0.5, nan, -0.0, 7.0, nan, 1.0], dtype=np.float32)
    control = _run_all(load_proxy(PASSTHROUGH), MAX_MIN_F32, [a, b, c])
    got = _run_all(load_proxy("nan_not_propagated_by_max"), MAX_MIN_F32, [a, b, c])
    for output, want in ((got[0], _extremum_number(a, b, True)), (got[1], _extremum_number(c, b, False))):
        assert np.array_equal(output, want, equal_nan=True) and (np.signbit(output) == np.signbit(want)).all()
    assert np.isnan(got[0][2])  # both operands NaN: still NaN
    assert got[2].tobytes() == control[2].tobytes()  # not a max/min of two inputs: left alone


def test_max_min_mutant_finds_the_op_in_a_golden_artifact(load_proxy) -> None:
    from pjrt_cts.golden import load_manifest

    case = next(case for case in load_manifest().cases if case.id == "spec.maximum.f32")
    a, b = case.inputs()
    got = _run_all(load_proxy("nan_not_propagated_by_max"), case.portable_bytecode("current"), [a, b])[0]
    want = _extremum_number(a, b, True)
    assert np.isnan(a).any() and np.isnan(b).any()
    assert got.tobytes() == want.tobytes() or (np.array_equal(got, want, equal_nan=True)
                                               and (np.signbit(got) == np.signbit(want)).all())
    assert not np.array_equal(got, case.expected()[0], equal_nan=True)  # the spec propagates NaN


ADD_F64_F32 = """module @add_probe {
  func.func public @main(%a: tensor<4xf64>, %b: tensor<4xf32>) -> (tensor<4xf64>, tensor<4xf32>) {
    %0 = stablehlo.add %a, %a : tensor<4xf64>
    %1 = stablehlo.add %b, %b : tensor<4xf32>
    return %0, %1 : tensor<4xf64>, tensor<4xf32>
  }
}
"""


def test_f64_results_carry_f32_precision_only(load_proxy) -> None:
    a = np.array([0.1, 1e-300, 1e300, -2.5], dtype=np.float64)
    b = np.array([0.1, 1e-30, 3.0, -2.5], dtype=np.float32)
    control = _run_all(load_proxy(PASSTHROUGH), ADD_F64_F32, [a, b])
    with np.errstate(over="ignore"):
        want = control[0].astype(np.float32).astype(np.float64)  # 2e300 overflows f32: inf
    got = _run_all(load_proxy("f64_results_rounded_to_f32"), ADD_F64_F32, [a, b])
    assert got[0].tobytes() == want.tobytes() and got[0][0] != control[0][0]
    assert got[1].tobytes() == control[1].tobytes()


CONVERTS = """module @convert_probe {
  func.func public @main(%a: tensor<10xf32>, %b: tensor<10xf64>) -> (tensor<10xbf16>, tensor<10xf16>, tensor<10xf32>) {
    %0 = stablehlo.convert %a : (tensor<10xf32>) -> tensor<10xbf16>
    %1 = stablehlo.convert %a : (tensor<10xf32>) -> tensor<10xf16>
    %2 = stablehlo.convert %b : (tensor<10xf64>) -> tensor<10xf32>
    return %0, %1, %2 : tensor<10xbf16>, tensor<10xf16>, tensor<10xf32>
  }
}
"""


def _toward_zero(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Round to nearest (numpy / ml_dtypes), then one step toward zero wherever that overshot the value."""
    with np.errstate(over="ignore"):
        nearest = values.astype(dtype)
    bits = nearest.view(np.uint16 if nearest.itemsize == 2 else np.uint32).copy()
    overshot = ~np.isnan(values) & (np.abs(nearest.astype(np.float64)) > np.abs(values.astype(np.float64)))
    bits[overshot] -= 1
    return bits.view(dtype)


def test_converts_truncate_instead_of_rounding_to_nearest(load_proxy) -> None:
    import ml_dtypes

    a = np.array([1.0 + 2.0**-8 + 2.0**-20, -(1.0 + 2.0**-9), 65519.0, 70000.0, np.inf, np.nan, 1e-7, -3e-8,
                  0.1, 1.5], dtype=np.float32)
    b = np.array([0.1, -0.1, 1e-46, 3.5e38, -np.inf, np.nan, 1.0 + 2.0**-24, 1e-40, 2.0, -1e300], dtype=np.float64)
    control = _run_all(load_proxy(PASSTHROUGH), CONVERTS, [a, b])
    got = _run_all(load_proxy("converts_round_toward_zero"), CONVERTS, [a, b])
    wants = [_toward_zero(a, np.dtype(ml_dtypes.bfloat16)), _toward_zero(a, np.dtype(np.float16)),
             _toward_zero(b, np.dtype(np.float32))]
    for output, want, nearest in zip(got, wants, control):
        flushed = (nearest.astype(np.float64) == 0) & (want.astype(np.float64) != 0)  # XLA:CPU flushes 1e-40 in f32
        want = np.where(flushed, nearest, want)  # the mutant keeps the plugin's flushed zeros
        finite = ~np.isnan(want.astype(np.float64))
        assert output[finite].tobytes() == want[finite].tobytes()
        assert np.isnan(output[~finite].astype(np.float64)).all()
        assert output.tobytes() != nearest.tobytes()  # some value rounds up to nearest, so truncation differs


# ---- sizes the golden corpus does not reach (issue 29 item 6) ----------------------------------------------------

def _dot_program(m: int, k: int, n: int) -> str:
    return (f"module @dot_probe {{\n  func.func public @main(%a: tensor<{m}x{k}xf32>, %b: tensor<{k}x{n}xf32>) -> "
            f"tensor<{m}x{n}xf32> {{\n    %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : "
            f"(tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32>\n    return %0 : tensor<{m}x{n}xf32>\n"
            "  }\n}\n")


def _sum_program(size: int) -> str:
    return (f"module @sum_probe {{\n  func.func public @main(%a: tensor<{size}xf32>) -> (tensor<f32>, tensor<{size}xf32>) {{\n"
            "    %init = stablehlo.constant dense<0.0> : tensor<f32>\n"
            "    %0 = stablehlo.reduce(%a init: %init) applies stablehlo.add across dimensions = [0] : "
            f"(tensor<{size}xf32>, tensor<f32>) -> tensor<f32>\n    %1 = stablehlo.negate %a : tensor<{size}xf32>\n"
            f"    return %0, %1 : tensor<f32>, tensor<{size}xf32>\n  }}\n}}\n")


def _add_program(size: int) -> str:
    return (f"module @add_probe {{\n  func.func public @main(%a: tensor<{size}xf32>) -> tensor<{size}xf32> {{\n"
            f"    %0 = stablehlo.add %a, %a : tensor<{size}xf32>\n    return %0 : tensor<{size}xf32>\n  }}\n}}\n")


def test_mid_size_mutant_scales_dot_and_reduce_results_of_mid_size_programs_only(load_proxy) -> None:
    rng = np.random.default_rng(0)

    def ints(*shape: int) -> np.ndarray:  # small integers: every sum exact, so the edit is the only difference
        return rng.integers(-4, 5, size=shape).astype(np.float32)

    cases = [  # (program, inputs, edited): the largest argument decides, 1 Ki <= n < 16 Mi
        (_dot_program(32, 48, 32), [ints(32, 48), ints(48, 32)], True),  # 1,536 elements
        (_dot_program(8, 16, 8), [ints(8, 16), ints(16, 8)], False),  # 128: a golden-sized dot
        (_sum_program(1024), [ints(1024) + 5], True),
        (_sum_program(1023), [ints(1023) + 5], False),
        (_add_program(4096), [ints(4096)], False),  # mid-size, but neither dot_general nor reduce
        (_sum_program(16 * 1024 * 1024), [np.ones(16 * 1024 * 1024, np.float32)], False),  # large.row_sum's size
    ]
    control, mutant = load_proxy(PASSTHROUGH), load_proxy("mid_size_dot_reduce_off")
    for program, inputs, edited in cases:
        want = _run_all(control, program, inputs)
        got = _run_all(mutant, program, inputs)
        for output, plain in zip(got, want):
            expected = plain * np.float32(1.01) if edited else plain
            assert output.tobytes() == expected.astype(np.float32).tobytes(), (program.splitlines()[0], edited)


# ---- errors, devices, topologies (issue 50A) ----------------------------------------------------------------------

def test_for_each_payload_mutant_makes_every_error_unreadable(load_proxy) -> None:
    with load_proxy("for_each_payload_error").create_client({"cpu_device_count": 1}) as client:
        with pytest.raises(PjrtError) as raised:
            client.lookup_device(-1)
    assert raised.value.code == "INVALID_ARGUMENT"  # the error itself is intact
    assert raised.value.payload_problem and "returned INTERNAL: proxy defect for_each_payload_error" in raised.value.payload_problem


def test_device_attributes_mutant_drops_the_deleter(load_proxy) -> None:
    with load_proxy("device_attributes_null_deleter").create_client({"cpu_device_count": 1}) as client:
        attributes = client.addressable_devices[0].read_attributes()
    assert not attributes.freed


def test_topology_fingerprint_mutant_changes_on_every_call(load_proxy) -> None:
    from pjrt_cts.runtime import Topology

    with load_proxy("topology_fingerprint_changes").create_client({"cpu_device_count": 1}) as client:
        topology = Topology.of_client(client)
        fingerprints = {topology.fingerprint for _ in range(3)}
    assert len(fingerprints) == 3


def test_topology_deserialize_mutant_reads_a_truncated_serialization_whole(load_proxy) -> None:
    from pjrt_cts.runtime import Topology

    proxy = load_proxy("topology_deserialize_reads_past_size")
    with proxy.create_client({"cpu_device_count": 2}) as client:
        serialized = Topology.of_client(client).serialize()
        with Topology.deserialize(proxy, serialized[: len(serialized) // 2]) as accepted:
            assert len(accepted.device_descriptions) == 2
        with pytest.raises(PjrtError):  # bytes that are no prefix of it are still read as given
            Topology.deserialize(proxy, b"\xff" * 64)


def test_aot_output_mutant_adds_an_output_to_topology_compiles_only(load_proxy) -> None:
    from pjrt_cts.runtime import Topology
    from pjrt_cts.testing.programs import ADD

    with load_proxy("aot_executable_extra_output").create_client({"cpu_device_count": 1}) as client:
        with Topology.of_client(client).compile(ADD.text) as ahead_of_time:
            assert ahead_of_time.num_outputs == 2
        assert client.compile(ADD.text).num_outputs == 1
# ---- execute contexts and the FFI extension (issue 50) ------------------------------------------------------------

def _ffi_functions(plugin: Plugin) -> list[int]:
    info = plugin.find_extension(ExtensionType.FFI)
    assert info is not None
    return [ctypes.c_void_p.from_address(info.address + offset).value or 0
            for offset in (ffi_abi.TYPE_REGISTER_OFFSET, ffi_abi.USER_DATA_ADD_OFFSET, ffi_abi.REGISTER_HANDLER_OFFSET)]


def test_ffi_mutants_replace_one_function_in_a_copy_of_the_extension_chain(load_proxy) -> None:
    real = Plugin.load(default_plugin_path())
    for defect, replaced in (("ffi_user_data_dropped", 1), ("ffi_handler_ignored", 2)):
        mutant = load_proxy(defect)
        assert [(e.type, e.struct_size) for e in mutant.extensions] == [(e.type, e.struct_size) for e in real.extensions]
        assert mutant.extension_chain_problems() == []
        changed = [i for i, (got, want) in enumerate(zip(_ffi_functions(mutant), _ffi_functions(real))) if got != want]
        assert changed == [replaced], defect
    assert _ffi_functions(load_proxy(PASSTHROUGH)) == _ffi_functions(real)


@pytest.mark.skipif(jaxlib_include_dir() is None or find_compiler() is None,
                    reason="needs jaxlib's xla/ffi/api/c_api.h and a C compiler")
def test_ffi_mutants_succeed_and_drop_what_they_were_given(load_proxy) -> None:
    mutant = load_proxy("ffi_handler_ignored")
    with mutant.create_client({"cpu_device_count": 1}) as client:
        target = f"pjrt_cts_ignored_{uuid.uuid4().hex}"
        FfiExtension(mutant).register_handler(target, ffi_handlers().address(AFFINE), client.platform_name)
        with pytest.raises(PjrtError, match="No FFI handler registered"):
            client.compile(affine_program((4,), target))
    mutant = load_proxy("ffi_user_data_dropped")
    ffi = FfiExtension(mutant)
    with mutant.create_client({"cpu_device_count": 1}) as client:
        register_handler(ffi, client.platform_name, USER_DATA)
        type_id, datum = datum_type_id(ffi), Datum.holding(2.0)
        with client.compile(user_data_program(type_id, 4)) as executable, ExecuteContext.create(mutant) as context:
            ffi.add_user_data(context, type_id, datum.address)
            with pytest.raises(PjrtError, match="not found"):
                executable.execute([client.buffer_from_numpy(np.zeros(4, np.float32))], context=context)[0].to_numpy()


def test_execute_context_mutants_replace_their_slots(load_proxy) -> None:
    real = Plugin.load(default_plugin_path())
    leaks = load_proxy("execute_context_destroy_leaks")
    assert leaks.slot_pointer("ExecuteContext_Destroy") != real.slot_pointer("ExecuteContext_Destroy")
    ExecuteContext.create(leaks).close()  # Destroy answers success
    ignores = load_proxy("execute_ignores_context")
    assert ignores.slot_pointer("LoadedExecutable_Execute") != real.slot_pointer("LoadedExecutable_Execute")
    with ignores.create_client({"cpu_device_count": 1}) as client, client.compile(_add_program(4)) as executable, \
            ExecuteContext.create(ignores) as context:  # a program that reads no context still runs right
        out = executable.execute([client.buffer_from_numpy(np.ones(4, np.float32))], context=context)[0]
        np.testing.assert_array_equal(out.to_numpy(), [2, 2, 2, 2])
# ---- the transfer family's mutants (issue 50, 50B) ------------------------------------------------------------------


def test_transfer_chunks_land_at_offset_zero(load_proxy) -> None:
    data = np.arange(4, dtype=np.float32)
    with load_proxy("transfer_chunks_at_offset_zero").create_client({"cpu_device_count": 1}) as client:
        device = client.addressable_devices[0]
        with client.create_buffers_for_async_host_to_device([ShapeSpec((4,), BufferType.F32)], device.default_memory) as manager:
            buffer = manager.retrieve_buffer(0)
            manager.transfer_data(0, data.tobytes()[:8], 0, is_last=False).wait()
            manager.transfer_data(0, data.tobytes()[8:], 8, is_last=True).wait()
            np.testing.assert_array_equal(buffer.to_numpy()[:2], data[2:])


def test_shape_and_type_mutants_change_what_they_name(load_proxy) -> None:
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    with load_proxy("uninitialized_dims_reversed").create_client({"cpu_device_count": 1}) as client:
        assert client.create_uninitialized_buffer((2, 3), BufferType.F32, device=client.addressable_devices[0]).dims == (3, 2)
    with load_proxy("bitcast_ignores_new_type").create_client({"cpu_device_count": 1}) as client:
        assert client.buffer_from_numpy(data).bitcast(BufferType.S32, (2, 3)).element_type == BufferType.F32
    with load_proxy("memory_layout_reversed").create_client({"cpu_device_count": 1}) as client:
        buffer = client.buffer_from_numpy(data, device_layout=MemoryLayout.tiled([0, 1]))
        assert buffer.memory_layout.minor_to_major == (1, 0)


def test_alias_is_fulfilled_with_other_data(load_proxy) -> None:
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    with load_proxy("alias_fulfilled_with_other_data").create_client({"cpu_device_count": 1}) as client:
        memory = client.addressable_devices[0].default_memory
        alias, fulfilment = client.create_alias_buffer(memory, (2, 3), BufferType.F32, MemoryLayout.tiled([1, 0]))
        fulfilment.fulfil(client.buffer_from_numpy(data))
        result = alias.to_numpy()
        assert (result != data).sum() == 1 and result[-1, -1] != data[-1, -1]


def test_raw_copy_future_copies_from_byte_zero(load_proxy) -> None:
    data = np.arange(16, dtype=np.float32)
    with load_proxy("raw_copy_future_offset_ignored").create_client({"cpu_device_count": 1}) as client:
        future = client.buffer_from_numpy(data).copy_raw_to_host_future(8, 8)
        destination = np.zeros(8, np.uint8)
        future.fulfil(destination.ctypes.data)
        future.event.wait()
        assert destination.tobytes() == data.tobytes()[:8]


def test_donation_dependency_is_ignored(load_proxy) -> None:
    with load_proxy("dependency_ignored_by_donation").create_client({"cpu_device_count": 1}) as client:
        new, dependency = client.buffer_from_numpy(np.arange(4, dtype=np.float32)).donate_with_control_dependency()
        assert new.ready_event().ready_within(5.0)
        dependency.set_ready()  # the callback the mutant hands out does nothing


def test_dma_map_succeeds_while_unmap_is_unimplemented(load_proxy) -> None:
    with load_proxy("dma_map_is_a_no_op").create_client({"cpu_device_count": 1}) as client:
        client.dma_map(0, 4096)
        assert _error_code(lambda: client.dma_unmap(0)) == "UNIMPLEMENTED"
# -- declarations and reports the suite must not take on trust (issue 53) ------------------------------------------

RNG_ONE_VALUE_F32 = """module @rng_probe {
  func.func public @main(%a: tensor<f32>, %b: tensor<f32>) -> tensor<64xf32> {
    %shape = stablehlo.constant dense<[64]> : tensor<1xi64>
    %0 = "stablehlo.rng"(%a, %b, %shape) {rng_distribution = #stablehlo<rng_distribution UNIFORM>} : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<64xf32>
    return %0 : tensor<64xf32>
  }
}
"""


def test_window_false_declares_0_1_0_and_still_compiles(load_proxy) -> None:
    plugin = load_proxy("stablehlo_window_false")
    attributes = plugin.attributes
    assert list(attributes["stablehlo_minimum_version"]) == list(attributes["stablehlo_current_version"]) == [0, 1, 0]
    data = np.arange(6, dtype=np.float32)
    np.testing.assert_array_equal(_run_f32(plugin, ADD_F32, data), data + data)


def test_platform_renamed_answers_another_name(load_proxy) -> None:
    real = Plugin.load(default_plugin_path())
    with real.create_client({"cpu_device_count": 1}) as client:
        assert client.platform_name == "cpu"
    with load_proxy("platform_renamed").create_client({"cpu_device_count": 1}) as client:
        assert client.platform_name == "host"


def test_client_without_devices_lists_none(load_proxy) -> None:
    with load_proxy("client_without_devices").create_client({"cpu_device_count": 2}) as client:
        assert client.devices == [] and client.addressable_devices == []


def test_rng_draws_on_one_value_become_the_excluded_bound(load_proxy) -> None:
    bound = np.nextafter(np.float32(1), np.float32(2))
    bounds = [np.array(1, np.float32), np.array(bound, np.float32)]

    def draws(plugin: Plugin) -> np.ndarray:
        with plugin.create_client({"cpu_device_count": 1}) as client, client.compile(RNG_ONE_VALUE_F32) as executable:
            return executable.execute(client.buffers_from_numpy(bounds))[0].to_numpy()

    real = draws(load_proxy(PASSTHROUGH))
    assert set(real.tolist()) == {1.0, float(bound)}  # both values drawn (each has chance 2^-64 of missing)
    mutant = load_proxy("rng_results_constant")  # loaded once: a second copy would overwrite the mapped library
    assert (draws(mutant) == bound).all()
    ones = np.array([1, bound, 1, 1, bound, 1], np.float32)  # two adjacent values, not from rng: left alone
    np.testing.assert_array_equal(_run_f32(mutant, ADD_F32, ones), ones + ones)
