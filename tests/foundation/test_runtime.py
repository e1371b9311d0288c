"""The runtime against both real CPU plugins: transfers, compile/execute, slot gating, errors, lifetimes."""
from __future__ import annotations

import ctypes
import gc
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

import ml_dtypes
import numpy as np
import pytest

from pjrt_cts.abi import structs
from pjrt_cts.abi.callbacks import SlotFunction
from pjrt_cts.abi.enums import BufferType
from pjrt_cts.runtime import CompileOptions, Plugin, PjrtError, MissingFunction, compile_options_bytes
from pjrt_cts.runtime.readback import UnwrittenHostBytes

ADD_F32 = """
func.func public @main(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = stablehlo.add %a, %b : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
"""

ROUND_TRIP_DTYPES = {
    "f32": np.float32,
    "bf16": ml_dtypes.bfloat16,
    "s8": np.int8,
    "pred": np.bool_,
    "c64": np.complex64,
}


def _sample(dtype: type, shape: tuple[int, ...] = (3, 5)) -> np.ndarray:
    rng = np.random.default_rng(7)
    values = rng.standard_normal(shape) * 50
    if dtype is np.bool_:
        return values > 0
    if dtype is np.complex64:
        return (values + 1j * rng.standard_normal(shape)).astype(dtype)
    return values.astype(dtype)


@pytest.mark.parametrize("dtype_name", sorted(ROUND_TRIP_DTYPES))
def test_round_trip_is_bit_exact(any_client, dtype_name: str) -> None:
    array = _sample(ROUND_TRIP_DTYPES[dtype_name])
    with any_client.buffer_from_numpy(array) as buffer:
        assert buffer.dims == array.shape
        assert buffer.dtype == array.dtype
        back = buffer.to_numpy()
    assert back.dtype == array.dtype and back.shape == array.shape
    assert back.tobytes() == array.tobytes()


def test_compile_and_execute_add(any_client) -> None:
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.full((2, 3), 0.5, dtype=np.float32)
    with any_client.compile(ADD_F32) as executable:
        assert executable.num_outputs == 1
        assert executable.output_element_types == [BufferType.F32]
        assert executable.output_dimensions == [(2, 3)]
        inputs = [any_client.buffer_from_numpy(a), any_client.buffer_from_numpy(b)]
        (result,) = executable.execute(inputs)
        np.testing.assert_array_equal(result.to_numpy(), a + b)


def test_execute_on_every_device(any_client) -> None:
    a = np.ones((2, 3), np.float32)
    for device in any_client.addressable_devices:
        executable = any_client.compile(ADD_F32, device_assignment=[[device.id]])
        assert [d.id for d in executable.addressable_devices] == [device.id]
        x = any_client.buffer_from_numpy(a, device)
        (result,) = executable.execute([x, x], device=device)
        assert result.device.id == device.id
        np.testing.assert_array_equal(result.to_numpy(), a + a)


def test_slots_beyond_struct_size_raise_unsupported(plugin_081: Plugin) -> None:
    assert plugin_081.api_version == (0, 81)
    assert len(plugin_081.missing_slots()) == 20
    for name in ("Event_Create", "Client_Load", "Buffer_Bitcast", "Executable_GetCompileOptions"):
        assert not plugin_081.has(name)
        with pytest.raises(MissingFunction) as info:
            plugin_081.function(name)
        assert info.value.function == f"PJRT_{name}" and info.value.plugin_version == "0.81"
        assert "ends before slot" in info.value.reason


def test_newer_plugin_has_every_slot(plugin_0115: Plugin) -> None:
    assert plugin_0115.api_version == (0, 115)
    assert plugin_0115.missing_slots() == []
    assert plugin_0115.struct_size == 1144


def test_bad_mlir_becomes_pjrt_error_with_code_and_message(any_client) -> None:
    with pytest.raises(PjrtError) as info:
        any_client.compile("this is not mlir")
    error = info.value
    assert error.function == "PJRT_Client_Compile"
    assert error.code in ("INVALID_ARGUMENT", "UNKNOWN")  # XLA plugins answer UNKNOWN with diagnostics
    assert error.message and error.code in str(error)


def test_unknown_program_format_is_invalid_argument(any_client) -> None:
    with pytest.raises(PjrtError) as info:
        any_client.compile(ADD_F32, format="invalid")
    assert info.value.code == "INVALID_ARGUMENT"
    assert "invalid" in info.value.message


def test_unknown_create_option_is_invalid_argument(plugin_0115: Plugin) -> None:
    # (The 0.81 plugin silently ignores unknown options: the client suite reports that deviation.)
    with pytest.raises(PjrtError) as info:
        plugin_0115.create_client({"no_such_option_for_sure": 1})
    assert info.value.code == "INVALID_ARGUMENT"


def test_closing_client_frees_children_first(any_plugin: Plugin) -> None:
    client = any_plugin.create_client({"cpu_device_count": 1})
    buffer = client.buffer_from_numpy(np.zeros(4, np.float32) + 1)
    executable = client.compile(ADD_F32)
    client.close()
    assert buffer.closed and executable.closed and client.closed
    buffer.close()  # closing again is a no-op, never a second destroy
    client.close()


def test_finalizer_destroys_forgotten_buffers(any_client) -> None:
    buffer = any_client.buffer_from_numpy(np.arange(8, dtype=np.int32))
    finalizer = buffer._finalizer
    del buffer
    gc.collect()
    assert not finalizer.alive


def test_compile_options_round_trip_through_the_plugin(plugin_0115: Plugin) -> None:
    with plugin_0115.create_client({"cpu_device_count": 4}) as client:
        options = compile_options_bytes(num_replicas=1, num_partitions=1, device_assignment=[[2]])
        executable = client.compile(ADD_F32, compile_options=options)
        assert [d.id for d in executable.addressable_devices] == [2]
        parsed = CompileOptions.from_bytes(executable.executable.compile_options())
        assert (parsed.num_replicas, parsed.num_partitions) == (1, 1)
        assert parsed.device_assignment == [[2]]


def test_event_create_and_set_carries_the_error(plugin_0115: Plugin) -> None:
    from pjrt_cts.abi.enums import ErrorCode
    from pjrt_cts.runtime import Event

    with Event.create(plugin_0115) as event:
        assert not event.is_ready()
        event.set(ErrorCode.INTERNAL, "custom failure")
        with pytest.raises(PjrtError) as info:
            event.wait()
    assert info.value.code == "INTERNAL" and info.value.message == "custom failure"


def test_attributes_include_stablehlo_versions(any_plugin: Plugin) -> None:
    attributes = any_plugin.attributes
    assert isinstance(attributes["xla_version"], int)
    assert len(attributes["stablehlo_current_version"]) == 3
    assert attributes["stablehlo_minimum_version"] <= attributes["stablehlo_current_version"]


# ---- readback into poisoned host memory ----------------------------------------------------------
# A fake slot replaces the plugin's PJRT_Buffer_ToHostBuffer / CopyRawToHost for one test: it wraps the
# real function and then writes nothing, or only the first half of the destination.


def _fake_host_copy(monkeypatch: pytest.MonkeyPatch, plugin: Plugin, name: str, args_type: type,
                    size_field: str, written: Callable[[int], int]) -> list[int]:
    """Install a fake `name` slot that lets the real one copy, then keeps only `written(size)` bytes.

    Returns the list of destination sizes it was called with (one entry per call)."""
    real = plugin.function(name)
    calls: list[int] = []

    def fake(address: int) -> int:
        args = args_type.from_address(address)
        size = int(getattr(args, size_field))
        calls.append(size)
        if not args.dst:
            return real(address) or 0
        before = ctypes.string_at(args.dst, size)
        error = real(address)
        if error:
            return error
        if args.event:  # let the real copy finish; the caller still gets (and awaits) its event
            plugin.call("Event_Await", structs.PJRT_Event_Await_Args(event=args.event))
        keep = written(size)
        ctypes.memmove(args.dst + keep, before[keep:], size - keep)  # undo what the fake did not "write"
        return 0

    slot = SlotFunction(fake)
    monkeypatch.setitem(plugin._functions, name, slot)
    return calls


def _fake_to_host(monkeypatch: pytest.MonkeyPatch, plugin: Plugin, written: Callable[[int], int]) -> list[int]:
    return _fake_host_copy(monkeypatch, plugin, "Buffer_ToHostBuffer", structs.PJRT_Buffer_ToHostBuffer_Args, "dst_size",
                           written)


def test_readback_takes_one_copy_when_nothing_looks_unwritten(monkeypatch, plugin_0115: Plugin) -> None:
    with plugin_0115.create_client({"cpu_device_count": 1}) as client:
        data = np.arange(1, 61, dtype=np.int32)  # no byte equals the poison 0xA5
        buffer = client.buffer_from_numpy(data)
        calls = _fake_to_host(monkeypatch, plugin_0115, lambda size: size)
        np.testing.assert_array_equal(buffer.to_numpy(), data)
        assert calls == [data.nbytes]


def test_readback_of_data_equal_to_the_poison_copies_twice_and_succeeds(monkeypatch, plugin_0115: Plugin) -> None:
    with plugin_0115.create_client({"cpu_device_count": 1}) as client:
        data = np.full(15, 0xA5, dtype=np.uint8)
        data[3] = 7
        buffer = client.buffer_from_numpy(data)
        calls = _fake_to_host(monkeypatch, plugin_0115, lambda size: size)
        np.testing.assert_array_equal(buffer.to_numpy(), data)
        assert calls == [15, 15]


@pytest.mark.parametrize("dtype", [np.float32, np.uint8, np.int32], ids=["f32", "u8_poison_valued", "s32"])
def test_readback_that_writes_nothing_fails(monkeypatch, plugin_0115: Plugin, dtype: type) -> None:
    with plugin_0115.create_client({"cpu_device_count": 1}) as client:
        # Values equal to the first poison: a no-op copy would leave exactly these bytes behind.
        data = np.frombuffer(np.full(15 * np.dtype(dtype).itemsize, 0xA5, np.uint8).tobytes(), dtype).reshape(3, 5)
        buffer = client.buffer_from_numpy(data.copy())
        _fake_to_host(monkeypatch, plugin_0115, lambda size: 0)
        with pytest.raises(UnwrittenHostBytes) as info:
            buffer.to_numpy()
    error = info.value
    assert isinstance(error, AssertionError)  # reported as FAIL, not ERROR
    assert error.function == "PJRT_Buffer_ToHostBuffer"
    assert (error.unwritten, error.first_offset, error.size) == (data.nbytes, 0, data.nbytes)
    assert "PJRT_Buffer_ToHostBuffer" in str(error) and f"{data.nbytes} of {data.nbytes} bytes" in str(error)


@pytest.mark.parametrize("shape", [(3, 5), (16,)], ids=["odd_15_bytes", "aligned_64_bytes"])
def test_readback_that_writes_half_fails_with_the_first_unwritten_offset(monkeypatch, plugin_0115: Plugin,
                                                                         shape: tuple[int, ...]) -> None:
    dtype = np.int8 if shape == (3, 5) else np.float32
    with plugin_0115.create_client({"cpu_device_count": 1}) as client:
        data = (np.arange(np.prod(shape)).reshape(shape) + 1).astype(dtype)
        buffer = client.buffer_from_numpy(data)
        _fake_to_host(monkeypatch, plugin_0115, lambda size: size // 2)
        with pytest.raises(UnwrittenHostBytes) as info:
            buffer.to_numpy()
    half = data.nbytes // 2
    assert (info.value.unwritten, info.value.first_offset) == (data.nbytes - half, half)


def test_readback_that_stops_one_byte_short_fails(monkeypatch, plugin_0115: Plugin) -> None:
    with plugin_0115.create_client({"cpu_device_count": 1}) as client:
        buffer = client.buffer_from_numpy(np.arange(1, 9, dtype=np.float32))
        _fake_to_host(monkeypatch, plugin_0115, lambda size: size - 1)
        with pytest.raises(UnwrittenHostBytes) as info:
            buffer.to_numpy()
    assert (info.value.unwritten, info.value.first_offset) == (1, 31)


def test_readback_with_host_layout_is_checked_too(monkeypatch, plugin_0115: Plugin) -> None:
    with plugin_0115.create_client({"cpu_device_count": 1}) as client:
        data = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
        buffer = client.buffer_from_numpy(data)
        np.testing.assert_array_equal(buffer.to_numpy(minor_to_major=[0, 1]), data)
        _fake_to_host(monkeypatch, plugin_0115, lambda size: 0)
        with pytest.raises(UnwrittenHostBytes):
            buffer.to_numpy(minor_to_major=[0, 1])


def test_to_host_into_poisons_the_callers_destination(monkeypatch, plugin_0115: Plugin) -> None:
    with plugin_0115.create_client({"cpu_device_count": 1}) as client:
        buffer = client.buffer_from_numpy(np.zeros(4, np.float32))
        destination = np.zeros(4, np.float32)  # already equal to the data: a no-op copy must not pass
        _fake_to_host(monkeypatch, plugin_0115, lambda size: 0)
        with buffer.to_host_into(destination.ctypes.data, destination.nbytes) as event:
            event.wait()
    assert destination.view(np.uint8).tolist() == [0xA5] * 16


def test_copy_raw_to_host_that_writes_nothing_fails(monkeypatch, plugin_0115: Plugin) -> None:
    with plugin_0115.create_client({"cpu_device_count": 1}) as client:
        data = np.arange(1, 17, dtype=np.float32)
        buffer = client.buffer_from_numpy(data)
        assert buffer.copy_raw_to_host(8, 16) == data.tobytes()[8:24]
        _fake_host_copy(monkeypatch, plugin_0115, "Buffer_CopyRawToHost", structs.PJRT_Buffer_CopyRawToHost_Args,
                        "transfer_size", lambda size: 0)
        with pytest.raises(UnwrittenHostBytes) as info:
            buffer.copy_raw_to_host(8, 16)
    assert info.value.function == "PJRT_Buffer_CopyRawToHost" and info.value.unwritten == 16


def _bare_slot_call(function: object) -> bool:
    """The slot's ctypes function behind its named frame (pjrt_cts.runtime.named_calls), no hook's wrapper."""
    import functools

    return isinstance(function, functools.partial) and isinstance(function.args[0], SlotFunction)


def test_call_times_are_accounted_only_when_asked(plugin_0115: Plugin, monkeypatch: pytest.MonkeyPatch) -> None:
    """PJRT_CTS_CALL_TIMES (benchmarks/bench_run_overhead.py) adds a call hook that wraps slot functions in a timer;
    unset, nothing is added."""
    from pjrt_cts.runtime import calltimes

    plugin = Plugin(plugin_0115.path, plugin_0115._library, plugin_0115.api_address)  # fresh function cache
    monkeypatch.delenv(calltimes.ENV, raising=False)
    calltimes.install_if_requested()
    assert _bare_slot_call(plugin.function("Plugin_Attributes"))
    monkeypatch.setenv(calltimes.ENV, "/nonexistent-not-written-by-this-test")
    before = calltimes.snapshot()["functions"].get("Error_Message", {"calls": 0})["calls"]
    calltimes.install_if_requested()
    try:
        timed = Plugin(plugin_0115.path, plugin_0115._library, plugin_0115.api_address)
        assert not _bare_slot_call(timed.function("Error_Message"))
        assert timed.function("Error_Message") is timed.function("Error_Message")  # one wrapper per function
        with pytest.raises(PjrtError):
            timed.create_client({"pjrt_cts_no_such_option": 1})  # its error message is read through Error_Message
    finally:
        Plugin.remove_call_hook(calltimes.HOOK)
    entry = calltimes.snapshot()["functions"]["Error_Message"]
    # its process CPU is not read: only the compiling functions' is (calltimes.CPU_ACCOUNTED)
    assert entry["calls"] == before + 1 and entry["seconds"] >= 0 and entry["cpu_seconds"] == 0
    assert _bare_slot_call(plugin.function("Plugin_Attributes"))  # the hook is gone: the slot's own


def test_call_hooks_see_every_load_and_slot_lookup_in_order(plugin_0115: Plugin) -> None:
    """pjrt_cts.runtime.hooks: the one way to intercept calls (the runner's blocks, call times, the probe)."""
    from pjrt_cts.runtime import CallHook

    seen: list[str] = []

    class Refuse(CallHook):
        def before_load(self, path: Path) -> None:
            seen.append(f"load {path.name}")
            raise RuntimeError("load refused by the hook")

        def slot_function(self, plugin: Plugin, name: str, function: Any) -> Any:
            seen.append(f"refuse? {name}")
            if name == "Client_Create":
                raise RuntimeError("call refused by the hook")
            return function

    class Wrap(CallHook):  # added second: gets what the first returned
        def slot_function(self, plugin: Plugin, name: str, function: Any) -> Any:
            seen.append(f"wrap {name}")
            return lambda *args: function(*args)

    refuse, wrap = Refuse(), Wrap()
    Plugin.add_call_hook(refuse)
    Plugin.add_call_hook(wrap)
    try:
        with pytest.raises(RuntimeError, match="load refused"):
            Plugin.load(plugin_0115.path)
        with pytest.raises(RuntimeError, match="call refused"):
            plugin_0115.create_client({})
        assert not _bare_slot_call(plugin_0115.function("Plugin_Attributes"))
    finally:
        Plugin.remove_call_hook(refuse)
        Plugin.remove_call_hook(wrap)
    assert seen == [f"load {plugin_0115.path.name}", "refuse? Client_Create", "refuse? Plugin_Attributes",
                    "wrap Plugin_Attributes"]
    assert _bare_slot_call(plugin_0115.function("Plugin_Attributes"))  # removed: the slot's own again


_FINALIZER_DURING_ACCOUNTING = """
import gc, json, weakref
from pjrt_cts.runtime import calltimes

class CollectingLock:  # a garbage collection happens while the accounting lock is held
    def __init__(self, lock):
        self.lock = lock
    def __enter__(self):
        self.lock.__enter__()
        gc.collect()
    def __exit__(self, *exc):
        return self.lock.__exit__(*exc)

calltimes._lock = CollectingLock(calltimes._lock)
outer = calltimes.timed("Event_Await", lambda: None)
destroy = calltimes.timed("LoadedExecutable_Destroy", lambda: None)

class Executable:  # left in a reference cycle: only the collector frees it
    pass

left = Executable()
left.cycle = left
weakref.finalize(left, destroy)
del left
outer()
print(json.dumps(calltimes.snapshot()["functions"]))
"""


def test_call_time_accounting_survives_a_finalizer_that_calls_the_plugin(tmp_path: Path) -> None:
    """A collection inside the accounting may run a handle finalizer, which calls a timed Destroy on the same thread.

    With a plain lock this deadlocked bench runs on CUDA (a worker "hanging in LoadedExecutable_Destroy").
    """
    env = {**os.environ, "PJRT_CTS_CALL_TIMES": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", _FINALIZER_DURING_ACCOUNTING], env=env, capture_output=True,
                          text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    functions = json.loads(done.stdout)
    assert functions["Event_Await"]["calls"] == 1 and functions["LoadedExecutable_Destroy"]["calls"] == 1


_FORKED_ACCOUNTING = """
import os, sys, time, types
sys.modules["execnet"] = types.ModuleType("execnet")  # as in an xdist worker
os.environ["PYTEST_XDIST_WORKER"] = "gw7"
from pjrt_cts.runtime import calltimes

compile_ = calltimes.timed("Client_Compile", lambda: None)
start = time.process_time()
while time.process_time() - start < 0.3:  # the worker's own CPU before the fork
    pass
compile_()
pid = os.fork()
if pid == 0:  # as the fork server's children leave: no Python exit handlers
    if sys.argv[1] == "stands-in":  # a copy running `python -m MODULE` for a risky call
        calltimes.count_as_fresh_child()
    compile_()
    compile_()
    calltimes.write_now()
    os._exit(0)
os.waitpid(pid, 0)
print(pid)
"""


def _forked_figures(tmp_path: Path, role: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the forked child's call-time figures, its parent's) from _FORKED_ACCOUNTING."""
    env = {**os.environ, "PJRT_CTS_CALL_TIMES": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", _FORKED_ACCOUNTING, role], env=env, capture_output=True, text=True,
                          timeout=30)
    assert done.returncode == 0, done.stderr
    child_file = tmp_path / f"calltimes-{int(done.stdout)}.json"
    (parent,) = [json.loads(path.read_text(encoding="utf-8")) for path in tmp_path.glob("calltimes-*.json")
                 if path != child_file]
    return json.loads(child_file.read_text(encoding="utf-8")), parent


def test_a_forked_process_writes_its_own_call_times_without_exit_handlers(tmp_path: Path) -> None:
    """The fork server's children (findings' reruns, isolated tests) end through the C library's exit: they write
    their call times themselves, counted from the fork (not the parent's calls again), and say they were forked;
    they count as their worker's."""
    child, parent = _forked_figures(tmp_path, "the worker's own test")
    assert child["forked"] is True and child["functions"]["Client_Compile"]["calls"] == 2
    assert child["worker"] == "gw7" and child["process_cpu_seconds"] < 0.25  # its own CPU, since the fork
    assert (parent["forked"], parent["functions"]["Client_Compile"]["calls"]) == (False, 1)
    assert parent["worker"] == "gw7" and parent["process_cpu_seconds"] >= 0.3


def test_a_copy_standing_in_for_a_fresh_child_counts_as_one(tmp_path: Path) -> None:
    """A risky call's child forked from the worker's server (runner/worker/forkserver.py) is counted as the fresh child it
    stands in for: not the worker's (its plugin time is not the floor)."""
    child, parent = _forked_figures(tmp_path, "stands-in")
    assert child["worker"] is None and child["functions"]["Client_Compile"]["calls"] == 2
    assert parent["worker"] == "gw7"


_ABORTED_AFTER_CALLS = """
import os
from pjrt_cts.runtime import calltimes

calltimes.WRITE_EVERY_SECONDS = 0.0  # every call is past the period: its figures are on disk after it
compile_ = calltimes.timed("Client_Compile", lambda: None)
compile_()
compile_()
os.abort()  # as a worker a crashing test takes down: no exit handlers
"""


def test_a_process_that_dies_leaves_the_call_times_it_had(tmp_path: Path) -> None:
    """A worker the plugin kills never runs its exit handlers; its figures were written while it made calls, so the
    floor of a run with crashes counts them (without them the CUDA floor missed 14 dead workers' compiles)."""
    env = {**os.environ, "PJRT_CTS_CALL_TIMES": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", _ABORTED_AFTER_CALLS], env=env, capture_output=True, text=True,
                          timeout=30)
    assert done.returncode != 0, "os.abort() should end the process with SIGABRT"
    written = [json.loads(path.read_text(encoding="utf-8")) for path in tmp_path.glob("calltimes-*.json")]
    assert [p["functions"]["Client_Compile"]["calls"] for p in written] == [2], written
    assert not list(tmp_path.glob(".calltimes-*")), "a whole file only: no partial one left"


_CHILD_PROCESS_IN_A_CALL = """
import json, subprocess, sys
from pjrt_cts.runtime import calltimes

burn = "import time\\nstart = time.process_time()\\nwhile time.process_time() - start < 0.5: pass"
compile_ = calltimes.timed("Client_Compile", lambda: subprocess.run([sys.executable, "-c", burn], check=True))
compile_()
print(json.dumps(calltimes.snapshot()["functions"]))
"""


def test_a_calls_cpu_counts_the_child_processes_it_waited_for(tmp_path: Path) -> None:
    """XLA:GPU compiles each module's PTX with `ptxas`, a child process of the compiling one: its CPU is the plugin's
    compile cost too (on CUDA ~0.5-0.9 CPU-s per CPU-s of the compile's own threads)."""
    env = {**os.environ, "PJRT_CTS_CALL_TIMES": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", _CHILD_PROCESS_IN_A_CALL], env=env, capture_output=True, text=True,
                          timeout=30)
    assert done.returncode == 0, done.stderr
    compile_ = json.loads(done.stdout)["Client_Compile"]
    assert compile_["calls"] == 1 and compile_["cpu_seconds"] >= 0.5, compile_


def test_extension_functions_pass_through_the_call_hooks_under_a_qualified_name(plugin_0115: Plugin) -> None:
    from pjrt_cts.abi.enums import ExtensionType

    seen: list[str] = []

    class Record:
        def before_load(self, path: Path) -> None:
            return None

        def slot_function(self, plugin: Plugin, name: str, function: Any) -> Any:
            seen.append(name)
            return function

    layouts = plugin_0115.find_extension(ExtensionType.LAYOUTS)
    assert layouts is not None and layouts.struct_size >= 32
    hook = Record()
    Plugin.add_call_hook(hook)
    try:
        function = plugin_0115.extension_function(ExtensionType.LAYOUTS, "MemoryLayout_Destroy", 24)
    finally:
        Plugin.remove_call_hook(hook)
    assert callable(function) and seen == ["LAYOUTS.MemoryLayout_Destroy"]
    with pytest.raises(MissingFunction, match="ends before offset"):
        plugin_0115.extension_function(ExtensionType.LAYOUTS, "beyond", layouts.struct_size)
    absent = next(kind for kind in ExtensionType if plugin_0115.find_extension(kind) is None)
    with pytest.raises(MissingFunction, match="does not advertise"):
        plugin_0115.extension_function(absent, "anything", 24)
