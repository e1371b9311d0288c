"""Compile options' device assignment decides which device a LoadedExecutable runs on."""
from __future__ import annotations

import pytest

from pjrt_cts.runtime import CompileOptions
from pjrt_cts.runtime.compile_options import decode_device_assignment
from pjrt_cts.testing import (ADD, assert_matches_program, compiled_program, device_index_params, expect_rejection,
                              requires, unsupported_if_unimplemented)

DEVICE_INDICES = device_index_params()


def _compile_on(client, device):
    return client.compile(ADD.text, compile_options=CompileOptions(device_assignment=[[device.id]]).to_bytes())


@requires("Client_DefaultDeviceAssignment")
def test_default_assignment_matches_client_default(client):
    default_ids = client.default_device_assignment(1, 1)
    bound = [device.id for device in compiled_program(client, ADD).addressable_devices]
    assert bound == default_ids, (
        "PJRT_LoadedExecutable_AddressableDevices of a program compiled without a device assignment should be "
        f"PJRT_Client_DefaultDeviceAssignment(1, 1) = {default_ids}, got {bound}"
    )


@pytest.mark.parametrize("index", DEVICE_INDICES)
def test_explicit_assignment_binds_the_device(client, devices, index):
    device = devices[index]
    with _compile_on(client, device) as executable:
        bound = [d.id for d in executable.addressable_devices]
        assert bound == [device.id], (
            f"PJRT_LoadedExecutable_AddressableDevices after compiling with device assignment [[{device.id}]]: {bound}"
        )


@pytest.mark.parametrize("index", DEVICE_INDICES)
def test_explicit_assignment_runs_on_the_device(client, devices, index):
    device = devices[index]
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


@requires("LoadedExecutable_GetDeviceAssignment")
@pytest.mark.parametrize("index", DEVICE_INDICES)
def test_get_device_assignment_reports_the_assignment(client, devices, index):
    device = devices[index]
    with _compile_on(client, device) as executable:
        with unsupported_if_unimplemented("PJRT_LoadedExecutable_GetDeviceAssignment"):
            serialized = executable.device_assignment_bytes()
        assignment = decode_device_assignment(serialized)
        assert assignment == [[device.id]], (
            f"PJRT_LoadedExecutable_GetDeviceAssignment should return [[{device.id}]] (replica x partition), "
            f"got {assignment}"
        )


@requires(devices=2)
def test_arguments_on_another_device_are_rejected(client, devices):
    first, second = devices[:2]
    with _compile_on(client, second) as executable:
        buffers = [client.buffer_from_numpy(array, first) for array in ADD.inputs()]
        valid = [client.buffer_from_numpy(array, second) for array in ADD.inputs()]
        expect_rejection(lambda: executable.execute(buffers), control=lambda: executable.execute(valid),
                         function="PJRT_LoadedExecutable_Execute",
                         what=f"arguments on device {first.id} for an executable assigned to device {second.id}")
