"""Compile options' device assignment decides which device a LoadedExecutable runs on."""
from __future__ import annotations

import pytest

from _programs import ADD, assert_matches_program, compiled_program, expect_rejection
from pjrt_cts.runtime import CompileOptions
from pjrt_cts.runtime.compile_options import decode_device_assignment
from pjrt_cts.suite_support import require_devices, require_slot, unimplemented_is_not_supported

DEVICE_INDICES = [0, 1, 2, 3]


def _compile_on(client, device):
    return client.compile(ADD.text, compile_options=CompileOptions(device_assignment=[[device.id]]).to_bytes())


def test_default_assignment_matches_client_default(client):
    require_slot(client.plugin, "Client_DefaultDeviceAssignment")
    default_ids = client.default_device_assignment(1, 1)
    bound = [device.id for device in compiled_program(client, ADD).addressable_devices]
    assert bound == default_ids, (
        "PJRT_LoadedExecutable_AddressableDevices of a program compiled without a device assignment should be "
        f"PJRT_Client_DefaultDeviceAssignment(1, 1) = {default_ids}, got {bound}"
    )


@pytest.mark.parametrize("index", DEVICE_INDICES, ids=[f"device{i}" for i in DEVICE_INDICES])
def test_explicit_assignment_binds_the_device(client, index):
    device = require_devices(client, index + 1)[index]
    with _compile_on(client, device) as executable:
        bound = [d.id for d in executable.addressable_devices]
        assert bound == [device.id], (
            f"PJRT_LoadedExecutable_AddressableDevices after compiling with device assignment [[{device.id}]]: {bound}"
        )


@pytest.mark.parametrize("index", DEVICE_INDICES, ids=[f"device{i}" for i in DEVICE_INDICES])
def test_explicit_assignment_runs_on_the_device(client, index):
    device = require_devices(client, index + 1)[index]
    with _compile_on(client, device) as executable:
        inputs = ADD.inputs()
        buffers = [client.buffer_from_numpy(array, device) for array in inputs]
        outputs = executable.execute(buffers)
        placed = [out.device.id for out in outputs]
        assert placed == [device.id], (
            f"PJRT_LoadedExecutable_Execute outputs of an executable assigned to device {device.id} are on {placed}"
        )
        assert_matches_program(ADD, [out.to_numpy() for out in outputs], inputs,
                               f"PJRT_LoadedExecutable_Execute on assigned device {device.id}")


@pytest.mark.parametrize("index", DEVICE_INDICES, ids=[f"device{i}" for i in DEVICE_INDICES])
def test_get_device_assignment_reports_the_assignment(client, index):
    device = require_devices(client, index + 1)[index]
    require_slot(client.plugin, "LoadedExecutable_GetDeviceAssignment")
    with _compile_on(client, device) as executable:
        serialized = unimplemented_is_not_supported(executable.device_assignment_bytes)
        assignment = decode_device_assignment(serialized)
        assert assignment == [[device.id]], (
            f"PJRT_LoadedExecutable_GetDeviceAssignment should return [[{device.id}]] (replica x partition), "
            f"got {assignment}"
        )


def test_arguments_on_another_device_are_rejected(client):
    first, second = require_devices(client, 2)
    with _compile_on(client, second) as executable:
        buffers = [client.buffer_from_numpy(array, first) for array in ADD.inputs()]
        expect_rejection(lambda: executable.execute(buffers), "PJRT_LoadedExecutable_Execute",
                         what=f"arguments on device {first.id} for an executable assigned to device {second.id}")
