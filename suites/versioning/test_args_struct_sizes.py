"""Args structs of other API versions: struct_size 0, one byte short, and a newer (larger) size.

Clause (pjrt_c_api.h, "struct_size"): callers set struct_size to the size their header defines; a
plugin must reject a struct too small for it with INVALID_ARGUMENT (naming the size it got) and
must tolerate a larger one from a newer caller, ignoring the tail. Whatever it accepts it must
read and write correctly: outputs equal those of an exact-size call, no byte beyond struct_size
written.
"""
from __future__ import annotations

import ctypes
import dataclasses
import re
from typing import Any, Callable

import numpy as np
import pytest

from pjrt_cts.abi import structs
from pjrt_cts.abi.base import PjrtStruct
from pjrt_cts.runtime import PjrtError
from pjrt_cts.testing import output_dir, requires, struct_size_cases, unsupported_if_unimplemented

NEWER_TAIL = 64  # bytes a newer caller's struct has beyond ours
SENTINEL = struct_size_cases.SENTINEL


@dataclasses.dataclass(frozen=True)
class QueryProbe:
    """A side-effect-free query: `inputs` names the handles it needs (the rest are outputs)."""

    function: str
    struct: type[PjrtStruct]
    inputs: Callable[[Any], dict[str, Any]]

    @property
    def id(self) -> str:
        return self.function


def _client(h: Any) -> dict[str, Any]:
    return {"client": h.client.handle}


def _device(h: Any) -> dict[str, Any]:
    return {"device": h.device.handle}


def _description(h: Any) -> dict[str, Any]:
    return {"device_description": h.description}


def _memory(h: Any) -> dict[str, Any]:
    return {"memory": h.memory.handle}


def _buffer(h: Any) -> dict[str, Any]:
    return {"buffer": h.buffer.handle}


def _executable(h: Any) -> dict[str, Any]:
    return {"executable": h.executable.handle}


def _loaded(h: Any) -> dict[str, Any]:
    return {"executable": h.loaded.handle}


PROBES = [
    QueryProbe("Plugin_Attributes", structs.PJRT_Plugin_Attributes_Args, lambda h: {}),
    QueryProbe("Client_PlatformName", structs.PJRT_Client_PlatformName_Args, _client),
    QueryProbe("Client_PlatformVersion", structs.PJRT_Client_PlatformVersion_Args, _client),
    QueryProbe("Client_ProcessIndex", structs.PJRT_Client_ProcessIndex_Args, _client),
    QueryProbe("Client_Devices", structs.PJRT_Client_Devices_Args, _client),
    QueryProbe("Client_AddressableDevices", structs.PJRT_Client_AddressableDevices_Args, _client),
    QueryProbe("Client_LookupDevice", structs.PJRT_Client_LookupDevice_Args, lambda h: {**_client(h), "id": h.device.id}),
    QueryProbe("Client_AddressableMemories", structs.PJRT_Client_AddressableMemories_Args, _client),
    QueryProbe("Device_GetDescription", structs.PJRT_Device_GetDescription_Args, _device),
    QueryProbe("Device_IsAddressable", structs.PJRT_Device_IsAddressable_Args, _device),
    QueryProbe("Device_LocalHardwareId", structs.PJRT_Device_LocalHardwareId_Args, _device),
    QueryProbe("Device_AddressableMemories", structs.PJRT_Device_AddressableMemories_Args, _device),
    QueryProbe("Device_DefaultMemory", structs.PJRT_Device_DefaultMemory_Args, _device),
    QueryProbe("DeviceDescription_Id", structs.PJRT_DeviceDescription_Id_Args, _description),
    QueryProbe("DeviceDescription_ProcessIndex", structs.PJRT_DeviceDescription_ProcessIndex_Args, _description),
    QueryProbe("DeviceDescription_Attributes", structs.PJRT_DeviceDescription_Attributes_Args, _description),
    QueryProbe("DeviceDescription_Kind", structs.PJRT_DeviceDescription_Kind_Args, _description),
    QueryProbe("DeviceDescription_DebugString", structs.PJRT_DeviceDescription_DebugString_Args, _description),
    QueryProbe("DeviceDescription_ToString", structs.PJRT_DeviceDescription_ToString_Args, _description),
    QueryProbe("Memory_Id", structs.PJRT_Memory_Id_Args, _memory),
    QueryProbe("Memory_Kind", structs.PJRT_Memory_Kind_Args, _memory),
    QueryProbe("Memory_Kind_Id", structs.PJRT_Memory_Kind_Id_Args, _memory),
    QueryProbe("Memory_DebugString", structs.PJRT_Memory_DebugString_Args, _memory),
    QueryProbe("Memory_ToString", structs.PJRT_Memory_ToString_Args, _memory),
    QueryProbe("Memory_AddressableByDevices", structs.PJRT_Memory_AddressableByDevices_Args, _memory),
    QueryProbe("Buffer_ElementType", structs.PJRT_Buffer_ElementType_Args, _buffer),
    QueryProbe("Buffer_Dimensions", structs.PJRT_Buffer_Dimensions_Args, _buffer),
    QueryProbe("Buffer_UnpaddedDimensions", structs.PJRT_Buffer_UnpaddedDimensions_Args, _buffer),
    QueryProbe("Buffer_OnDeviceSizeInBytes", structs.PJRT_Buffer_OnDeviceSizeInBytes_Args, _buffer),
    QueryProbe("Buffer_Device", structs.PJRT_Buffer_Device_Args, _buffer),
    QueryProbe("Buffer_Memory", structs.PJRT_Buffer_Memory_Args, _buffer),
    QueryProbe("Buffer_IsDeleted", structs.PJRT_Buffer_IsDeleted_Args, _buffer),
    QueryProbe("Buffer_IsOnCpu", structs.PJRT_Buffer_IsOnCpu_Args, _buffer),
    QueryProbe("Executable_Name", structs.PJRT_Executable_Name_Args, _executable),
    QueryProbe("Executable_NumReplicas", structs.PJRT_Executable_NumReplicas_Args, _executable),
    QueryProbe("Executable_NumPartitions", structs.PJRT_Executable_NumPartitions_Args, _executable),
    QueryProbe("Executable_NumOutputs", structs.PJRT_Executable_NumOutputs_Args, _executable),
    QueryProbe("Executable_OutputElementTypes", structs.PJRT_Executable_OutputElementTypes_Args, _executable),
    QueryProbe("Executable_OutputDimensions", structs.PJRT_Executable_OutputDimensions_Args, _executable),
    QueryProbe("Executable_OutputMemoryKinds", structs.PJRT_Executable_OutputMemoryKinds_Args, _executable),
    QueryProbe("LoadedExecutable_AddressableDevices", structs.PJRT_LoadedExecutable_AddressableDevices_Args, _loaded),
    QueryProbe("LoadedExecutable_IsDeleted", structs.PJRT_LoadedExecutable_IsDeleted_Args, _loaded),
]


PROBE_PARAMS = [pytest.param(probe, id=probe.id, marks=requires(probe.function)) for probe in PROBES]


def _field_end(struct: type[PjrtStruct], name: str) -> int:
    descriptor = getattr(struct, name)
    return descriptor.offset + descriptor.size


def read_outputs(args: Any, probe: QueryProbe, inputs: dict[str, Any], within: int | None = None) -> dict[str, Any]:
    """Output fields (those ending within `within` bytes); (pointer, pointer_size) pairs read as strings."""
    names = [name for name, *_ in probe.struct._fields_[2:] if name not in inputs]
    values: dict[str, Any] = {}
    for name in names:
        if within is not None and _field_end(probe.struct, name) > within:
            continue
        value = getattr(args, name)
        size_name = name + "_size"
        if size_name in names and (within is None or _field_end(probe.struct, size_name) <= within):
            value = ctypes.string_at(value, getattr(args, size_name)) if value else b""
        values[name] = value
    return values


def _reference(plugin: Any, probe: QueryProbe, live: Any) -> dict[str, Any]:
    inputs = probe.inputs(live)
    with unsupported_if_unimplemented(f"PJRT_{probe.function}"):
        args = plugin.call(probe.function, probe.struct(**inputs))
    return read_outputs(args, probe, inputs)


def names_size(message: str, size: int) -> bool:
    return re.search(rf"(?<!\d){size}(?!\d)", message) is not None


@pytest.mark.parametrize("probe", PROBE_PARAMS)
def test_zero_struct_size_is_rejected(plugin: Any, live: Any, probe: QueryProbe, record: Any) -> None:
    _, error = plugin.call_with_struct_size(probe.function, probe.struct, 0, **probe.inputs(live))
    assert error is not None, f"struct_size contract: PJRT_{probe.function} accepted struct_size 0"
    record.details(code=error.code, message=error.message[:300])
    assert error.code == "INVALID_ARGUMENT", (
        f"struct_size contract: PJRT_{probe.function} with struct_size 0 should fail with INVALID_ARGUMENT, "
        f"got {error.code}: {error.message}"
    )


@pytest.mark.parametrize("probe", PROBE_PARAMS)
def test_newer_larger_struct_size_is_tolerated(plugin: Any, live: Any, probe: QueryProbe) -> None:
    expected = _reference(plugin, probe, live)
    inputs = probe.inputs(live)
    size = probe.struct.STRUCT_SIZE + NEWER_TAIL
    args, error = plugin.call_with_struct_size(probe.function, probe.struct, size, tail=NEWER_TAIL, **inputs)
    assert error is None, (
        f"struct_size contract: PJRT_{probe.function} must tolerate a newer caller's struct_size {size} "
        f"(ours {probe.struct.STRUCT_SIZE}), failed with {error.code}: {error.message}"
    )
    got = read_outputs(args, probe, inputs)
    assert got == expected, f"PJRT_{probe.function} with struct_size {size}: outputs {got} differ from {expected}"


@pytest.mark.parametrize("probe", PROBE_PARAMS)
def test_struct_one_byte_short_is_rejected_or_read_correctly(plugin: Any, live: Any, probe: QueryProbe,
                                                             record: Any) -> None:
    """One byte short of the plugin's own version of the struct: rejected naming the size, or handled
    without touching the missing byte(s)."""
    minor = plugin.api_version[1]
    own = probe.struct.struct_size_at(minor)
    size = own - 1
    expected = _reference(plugin, probe, live)
    inputs = probe.inputs(live)
    args, error = plugin.call_with_struct_size(probe.function, probe.struct, size, fill=SENTINEL, **inputs)
    if error is not None:
        record.details(verdict="rejected", size=size, code=error.code, message=error.message[:300])
        assert error.code == "INVALID_ARGUMENT" and names_size(error.message, size), (
            f"struct_size contract: PJRT_{probe.function} with struct_size {size} (< {own}) should fail with "
            f"INVALID_ARGUMENT naming {size}, got {error.code}: {error.message}"
        )
        return
    record.details(verdict="accepted", size=size)
    tail = struct_size_cases.bytes_past(args, probe.struct, size)
    assert not struct_size_cases.written(tail), (
        f"struct_size contract: PJRT_{probe.function} accepted struct_size {size} but wrote beyond it: {tail.hex()}"
    )
    got = read_outputs(args, probe, inputs, within=size)
    want = {k: v for k, v in expected.items() if k in got}
    assert got == want, f"PJRT_{probe.function} accepted struct_size {size} but read back {got}, expected {want}"


# ---- older callers: exact sizes of earlier minors for the structs that grew ----------------------


def older_minors(struct: type[PjrtStruct]) -> list[int]:
    """Each minor just before a field was appended (the size an older framework passes)."""
    added = sorted(set(struct._field_since_.values()))
    return [minor - 1 for minor in added if minor - 1 >= max(struct._since_, 57)]


def _execute_with_options(plugin: Any, live: Any, size: int, record: Any = None) -> tuple[Any, Callable[[], None]]:
    storage = (ctypes.c_uint8 * ctypes.sizeof(structs.PJRT_ExecuteOptions))()
    options = structs.PJRT_ExecuteOptions.from_buffer(storage)
    options.struct_size = size
    a, b = (live.client.buffer_from_numpy(x, live.device) for x in live.inputs)
    try:
        outputs, _ = live.loaded.execute_sharded([[a, b]], options=options)
    except PjrtError as error:  # judged by the caller
        return error, lambda: None

    def check() -> None:
        got = outputs[0][0].to_numpy()
        want = live.inputs[0] + live.inputs[1]
        assert np.array_equal(got, want), f"PJRT_LoadedExecutable_Execute with options struct_size {size}: {got} != {want}"
        for buffer in outputs[0]:
            buffer.close()

    return None, check


def _client_create(plugin: Any, live: Any, size: int, record: Any = None) -> tuple[Any, Callable[[], None]]:
    from pjrt_cts.runtime.named_values import NamedValueArray

    values = NamedValueArray(live.client.options)
    args, error = plugin.call_with_struct_size("Client_Create", structs.PJRT_Client_Create_Args, size,
                                               create_options=values.pointer, num_options=values.count)
    if error is not None:
        return error, lambda: None

    def check() -> None:
        handle = args.client
        assert handle, f"PJRT_Client_Create with struct_size {size} succeeded without a client"
        devices = plugin.call("Client_Devices", structs.PJRT_Client_Devices_Args(client=handle)).num_devices
        plugin.call("Client_Destroy", structs.PJRT_Client_Destroy_Args(client=handle))
        assert devices == len(live.client.devices), (
            f"PJRT_Client_Create with struct_size {size}: {devices} devices, a full-size create gives "
            f"{len(live.client.devices)}")

    return None, check


def _deserialize_and_load(plugin: Any, live: Any, size: int, record: Any = None) -> tuple[Any, Callable[[], None]]:
    from pjrt_cts.runtime import LoadedExecutable

    with unsupported_if_unimplemented("PJRT_Executable_Serialize"):
        serialized = live.executable.serialize()
    data = ctypes.create_string_buffer(serialized, len(serialized))
    args, error = plugin.call_with_struct_size(
        "Executable_DeserializeAndLoad", structs.PJRT_Executable_DeserializeAndLoad_Args, size,
        client=live.client.handle, serialized_executable=ctypes.addressof(data),
        serialized_executable_size=len(serialized))
    if error is not None:
        return error, lambda: None

    def check() -> None:
        loaded = LoadedExecutable(live.client, args.loaded_executable)
        with loaded:
            a, b = (live.client.buffer_from_numpy(x, live.device) for x in live.inputs)
            got = loaded.execute([a, b])[0].to_numpy()
        want = live.inputs[0] + live.inputs[1]
        assert np.array_equal(got, want), f"PJRT_Executable_DeserializeAndLoad with struct_size {size}: {got} != {want}"

    return None, check


def _outputs_only(function: str, struct: type[PjrtStruct], input_field: str,
                  handle: Callable[[Any], int]) -> Callable[[Any, Any, int, Any], tuple[Any, Callable[[], None]]]:
    """A query whose fields after `input_field` are outputs: the missing ones must stay untouched."""

    def run(plugin: Any, live: Any, size: int, record: Any = None) -> tuple[Any, Callable[[], None]]:
        with unsupported_if_unimplemented(f"PJRT_{function}"):
            reference = plugin.call(function, struct(**{input_field: handle(live)}))
        args, error = plugin.call_with_struct_size(function, struct, size, fill=SENTINEL,
                                                   **{input_field: handle(live)})
        if error is not None:
            return error, lambda: None

        def check() -> None:
            tail = struct_size_cases.bytes_past(args, struct, size)
            if struct_size_cases.written(tail):
                script = _save_write_beyond_repro(plugin, live, function, struct, size, input_field)
                if record is not None:
                    record.details(repro_file=str(script), bytes_past_struct_size=tail.hex())
                raise AssertionError(
                    f"struct_size contract: PJRT_{function} accepted struct_size {size} (an older caller's) but wrote "
                    f"beyond it: bytes {size}.. = {tail[:16].hex()}; reproduce: python {script}")
            for name, *_ in struct._fields_[2:]:
                if name != input_field and _field_end(struct, name) <= size:
                    assert getattr(args, name) == getattr(reference, name), (
                        f"PJRT_{function} with struct_size {size}: {name}={getattr(args, name)}, "
                        f"full size gives {getattr(reference, name)}")

        return None, check

    return run


def _save_write_beyond_repro(plugin: Any, live: Any, function: str, struct: type[PjrtStruct], size: int, field: str) -> Any:
    directory = output_dir() / "versioning"
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"write-beyond-{function}-{size}.py"
    path.write_text(struct_size_cases.reproduction_script(
        function=function, struct_name=struct.__name__, size=size, field=field, path=path, plugin_path=plugin.path,
        options=live.client.options, program=live.program), encoding="utf-8")
    return path


GROWN = {
    "PJRT_ExecuteOptions": (structs.PJRT_ExecuteOptions, "LoadedExecutable_Execute", _execute_with_options),
    "PJRT_Client_Create_Args": (structs.PJRT_Client_Create_Args, "Client_Create", _client_create),
    "PJRT_Executable_DeserializeAndLoad_Args": (structs.PJRT_Executable_DeserializeAndLoad_Args,
                                                "Executable_DeserializeAndLoad", _deserialize_and_load),
    "PJRT_Executable_GetCompiledMemoryStats_Args": (
        structs.PJRT_Executable_GetCompiledMemoryStats_Args, "Executable_GetCompiledMemoryStats",
        _outputs_only("Executable_GetCompiledMemoryStats", structs.PJRT_Executable_GetCompiledMemoryStats_Args, "executable",
                      lambda live: live.executable.handle)),
    "PJRT_Device_MemoryStats_Args": (
        structs.PJRT_Device_MemoryStats_Args, "Device_MemoryStats",
        _outputs_only("Device_MemoryStats", structs.PJRT_Device_MemoryStats_Args, "device", lambda live: live.device.handle)),
}
OLDER_CASES = [pytest.param(name, minor, id=f"{name}@0.{minor}", marks=requires(function))
               for name, (struct, function, _) in GROWN.items() for minor in older_minors(struct)]


@pytest.mark.parametrize(("struct_name", "minor"), OLDER_CASES)
def test_older_minor_struct_size_is_rejected_or_read_correctly(plugin: Any, live: Any, struct_name: str, minor: int,
                                                                record: Any) -> None:
    """An older framework passes the struct as its header defined it: the plugin answers INVALID_ARGUMENT
    naming that size, or handles it correctly (sizes at or above the plugin's own must be accepted)."""
    struct, function, run = GROWN[struct_name]
    size = struct.struct_size_at(minor)
    own = struct.struct_size_at(plugin.api_version[1])
    error, check = run(plugin, live, size, record)
    if error is not None and getattr(error, "code", None) == "UNIMPLEMENTED":
        if size < own:  # got past the size check: the size was accepted
            record.details(verdict="accepted", size=size, own_size=own)
        with unsupported_if_unimplemented(f"PJRT_{function}"):
            raise error
    if error is not None:
        record.details(verdict="rejected", size=size, own_size=own, code=error.code, message=error.message[:300])
        assert size < own, (
            f"struct_size contract: PJRT_{function} must accept {struct_name} of size {size} (0.{minor}; the plugin's "
            f"own is {own}), failed with {error.code}: {error.message}")
        assert error.code == "INVALID_ARGUMENT" and names_size(error.message, size), (
            f"struct_size contract: PJRT_{function} with {struct_name} of 0.{minor} (size {size} < {own}) should "
            f"fail with INVALID_ARGUMENT naming {size}, got {error.code}: {error.message}")
        return
    record.details(verdict="accepted", size=size, own_size=own)
    check()
