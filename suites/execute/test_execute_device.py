"""execute_device vs the executable's default device.

- Without execute_device, a 1-device executable runs on LoadedExecutable_AddressableDevices()[0].
- With execute_device = that device, results are the same.
- A portable executable (CompileOptionsProto.compile_portable_executable) runs on any device given as
  execute_device; its outputs live there.
- execute_device with several argument lists is INVALID_ARGUMENT (the header: num_devices must be 1).
"""
from __future__ import annotations

import pytest

from pjrt_cts.runtime import CompileOptions
from pjrt_cts.testing import (ADD, assert_bit_exact, assert_matches_program, compiled_program, device_index_params,
                              expect_rejection, programs_param, requires, run)

DEVICE_INDICES = device_index_params()
FUNCTION = "PJRT_LoadedExecutable_Execute"
SOME_PROGRAMS = ["add_f32", "two_outputs_f32", "constant_s32", "mixed_outputs", "dot_f32"]


@pytest.fixture(scope="module")
def portable_add(client):
    options = CompileOptions(compile_portable_executable=True).to_bytes()
    executable = client.compile(ADD.text, compile_options=options)
    yield executable
    executable.close()


@programs_param(SOME_PROGRAMS)
def test_execute_device_equals_default_device(client, program):
    executable = compiled_program(client, program)
    device = executable.addressable_devices[0]
    inputs = program.inputs()
    default = run(executable, client, inputs)
    explicit = run(executable, client, inputs, device=device)
    assert_matches_program(program, explicit, inputs, "PJRT_LoadedExecutable_Execute with execute_device")
    for index, (a, b) in enumerate(zip(default, explicit)):
        assert_bit_exact(b, a, f"PJRT_LoadedExecutable_Execute output {index} of {program.name} with "
                               f"execute_device={device.id}, against the default device's,")


@programs_param(SOME_PROGRAMS)
def test_outputs_live_on_the_default_device(client, program):
    executable = compiled_program(client, program)
    device = executable.addressable_devices[0]
    buffers = [client.buffer_from_numpy(array, device) for array in program.inputs()]
    placed = [out.device.id for out in executable.execute(buffers)]
    assert placed == [device.id] * len(placed), (
        f"PJRT_LoadedExecutable_Execute without execute_device put outputs on devices {placed}, expected {device.id}"
    )


@pytest.mark.parametrize("index", DEVICE_INDICES)
def test_portable_executable_runs_on_execute_device(client, devices, portable_add, index):
    device = devices[index]
    inputs = ADD.inputs(seed=index)
    buffers = [client.buffer_from_numpy(array, device) for array in inputs]
    outputs = portable_add.execute(buffers, device=device)
    placed = [out.device.id for out in outputs]
    assert placed == [device.id], (
        f"PJRT_LoadedExecutable_Execute of a portable executable with execute_device={device.id} put outputs on {placed}"
    )
    assert_matches_program(ADD, [out.to_numpy() for out in outputs], inputs,
                           f"portable executable on execute_device {device.id}")


@requires(devices=2)
def test_execute_device_outside_the_assignment_is_rejected(client):
    executable = compiled_program(client, ADD)
    own = executable.addressable_devices[0]
    other = next(d for d in client.addressable_devices if d.id != own.id)
    buffers = [client.buffer_from_numpy(array, other) for array in ADD.inputs()]
    valid = [client.buffer_from_numpy(array, own) for array in ADD.inputs()]
    expect_rejection(lambda: executable.execute(buffers, device=other),
                     control=lambda: executable.execute(valid, device=own), function=FUNCTION,
                     what=f"execute_device {other.id}, which a non-portable executable is not assigned to")


def test_execute_device_with_two_argument_lists_is_invalid_argument(client):
    executable = compiled_program(client, ADD)
    device = executable.addressable_devices[0]
    row = [client.buffer_from_numpy(array, device) for array in ADD.inputs()]
    expect_rejection(lambda: executable.execute_sharded([row, row], execute_device=device),
                     control=lambda: executable.execute_sharded([row], execute_device=device), function=FUNCTION,
                     what="execute_device with num_devices=2")


def test_more_argument_lists_than_devices_is_invalid_argument(client):
    executable = compiled_program(client, ADD)
    device = executable.addressable_devices[0]
    row = [client.buffer_from_numpy(array, device) for array in ADD.inputs()]
    expect_rejection(lambda: executable.execute_sharded([row, row]), control=lambda: executable.execute_sharded([row]),
                     function=FUNCTION, what="2 argument lists for a 1-device executable")


def test_portable_executable_has_no_bound_devices(client, portable_add):
    bound = portable_add.addressable_devices
    assert len(bound) <= 1, (
        f"PJRT_LoadedExecutable_AddressableDevices of a portable executable lists {len(bound)} devices"
    )
