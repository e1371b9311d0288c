"""PJRT_Executable metadata agrees with the program: name, replicas, partitions, outputs and their types,
dimensions and memory kinds."""
from __future__ import annotations

import pytest

from pjrt_cts.runtime import buffer_type_of
from pjrt_cts.testing import ADD, compiled_program, programs_param, requires, unsupported_if_unimplemented
from pjrt_cts.testing.executable_checks import output_memory_kinds

COUNTS = [2, 4]


def _expected_types(program):
    return [buffer_type_of(dtype) for _, dtype in program.output_specs]


@programs_param()
def test_name_is_the_module_name(client, program):
    name = compiled_program(client, program).name
    assert name == program.name, f"PJRT_Executable_Name: expected the module name {program.name!r}, got {name!r}"


@programs_param()
def test_num_replicas_is_one(client, program):
    count = compiled_program(client, program).num_replicas
    assert count == 1, f"PJRT_Executable_NumReplicas of a program compiled with num_replicas=1: {count}"


@programs_param()
def test_num_partitions_is_one(client, program):
    count = compiled_program(client, program).num_partitions
    assert count == 1, f"PJRT_Executable_NumPartitions of a program compiled with num_partitions=1: {count}"


@programs_param()
def test_num_outputs_matches_the_program(client, program):
    count = compiled_program(client, program).num_outputs
    assert count == len(program.output_specs), (
        f"PJRT_Executable_NumOutputs: the program returns {len(program.output_specs)} values, got {count}"
    )


@programs_param()
def test_output_element_types_match_the_program(client, program):
    types = compiled_program(client, program).output_element_types
    expected = _expected_types(program)
    assert types == expected, (
        f"PJRT_Executable_OutputElementTypes: expected {[t.name for t in expected]}, "
        f"got {[getattr(t, 'name', t) for t in types]}"
    )


@programs_param()
def test_output_dimensions_match_the_program(client, program):
    dims = compiled_program(client, program).output_dimensions
    expected = [tuple(shape) for shape, _ in program.output_specs]
    assert dims == expected, f"PJRT_Executable_OutputDimensions: expected {expected}, got {dims}"


@requires("Executable_OutputMemoryKinds")
@programs_param()
def test_output_memory_kinds_name_device_memories(client, program):
    executable = compiled_program(client, program)
    kinds = output_memory_kinds(executable)
    assert len(kinds) == len(program.output_specs), (
        f"PJRT_Executable_OutputMemoryKinds: {len(kinds)} kinds for {len(program.output_specs)} outputs"
    )
    device = executable.addressable_devices[0]
    known = {memory.kind for memory in device.memories}
    unknown = [kind for kind in kinds if kind not in known]
    assert not unknown, (
        f"PJRT_Executable_OutputMemoryKinds names {unknown}, which are not kinds of device {device.id}'s memories {sorted(known)}"
    )


@requires("Executable_ParameterMemoryKinds")
@programs_param()
def test_parameter_memory_kinds_name_device_memories(client, program):
    executable = compiled_program(client, program)
    with unsupported_if_unimplemented("PJRT_Executable_ParameterMemoryKinds"):
        kinds = executable.parameter_memory_kinds
    assert len(kinds) == len(program.inputs()), (
        f"PJRT_Executable_ParameterMemoryKinds: {len(kinds)} kinds for {len(program.inputs())} parameters"
    )
    known = {memory.kind for memory in executable.addressable_devices[0].memories}
    assert set(kinds) <= known, f"PJRT_Executable_ParameterMemoryKinds names {sorted(set(kinds) - known)}, not device memory kinds"


@requires("Executable_OutputMemoryKinds")
@programs_param()
def test_output_memory_kinds_match_output_buffers(client, program):
    executable = compiled_program(client, program)
    with unsupported_if_unimplemented("PJRT_Executable_OutputMemoryKinds"):
        kinds = executable.output_memory_kinds
    device = executable.addressable_devices[0]
    outputs = executable.execute([client.buffer_from_numpy(a, device) for a in program.inputs()])
    actual = [out.memory.kind for out in outputs]
    assert actual == kinds, (
        f"PJRT_Buffer_Memory kinds of the outputs {actual} differ from PJRT_Executable_OutputMemoryKinds {kinds}"
    )


@requires("Executable_SizeOfGeneratedCodeInBytes")
@programs_param()
def test_size_of_generated_code_is_not_negative(client, program):
    size = compiled_program(client, program).size_of_generated_code
    assert size >= 0, f"PJRT_Executable_SizeOfGeneratedCodeInBytes is negative: {size}"


@pytest.mark.parametrize("count", [pytest.param(c, id=f"replicas{c}", marks=requires(devices=c)) for c in COUNTS])
def test_num_replicas_of_replicated_program(client, count):
    with client.compile(ADD.text, num_replicas=count) as executable:
        assert executable.num_replicas == count, (
            f"PJRT_Executable_NumReplicas of a program compiled with num_replicas={count}: {executable.num_replicas}"
        )
        devices = executable.addressable_devices
        assert len(devices) == count, (
            f"PJRT_LoadedExecutable_AddressableDevices of a {count}-replica executable lists {len(devices)} devices"
        )


@pytest.mark.parametrize("count", [pytest.param(c, id=f"partitions{c}", marks=requires(devices=c)) for c in COUNTS])
def test_num_partitions_of_partitioned_program(client, count):
    with client.compile(ADD.text, num_partitions=count, use_spmd_partitioning=True) as executable:
        assert executable.num_partitions == count, (
            f"PJRT_Executable_NumPartitions of a program compiled with num_partitions={count}: {executable.num_partitions}"
        )
        assert executable.num_outputs == 1, f"PJRT_Executable_NumOutputs (per device) of a partitioned add: {executable.num_outputs}"
