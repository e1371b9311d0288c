"""PJRT_LoadedExecutable_Execute of hand-written programs: results, determinism, inputs left intact."""
from __future__ import annotations

from pjrt_cts.testing import PROGRAMS, assert_bit_exact, assert_matches_program, compiled_program, programs_param, run

WITH_ARGUMENTS = [p.name for p in PROGRAMS if p.inputs()]


@programs_param()
def test_program_matches_numpy(client, program):
    inputs = program.inputs()
    assert_matches_program(program, run(compiled_program(client, program), client, inputs), inputs,
                           f"PJRT_LoadedExecutable_Execute of {program.name}")


@programs_param()
def test_repeated_execution_is_bitwise_identical(client, program):
    executable = compiled_program(client, program)
    inputs = program.inputs(seed=1)
    first = run(executable, client, inputs)
    for attempt in range(2):
        again = run(executable, client, inputs)
        for index, (a, b) in enumerate(zip(first, again)):
            assert_bit_exact(b, a, f"PJRT_LoadedExecutable_Execute of {program.name} is not deterministic: output "
                                   f"{index} of execution {attempt + 2} with the same inputs, against execution 1,")


@programs_param(WITH_ARGUMENTS)
def test_inputs_are_unchanged_by_execution(client, program):
    executable = compiled_program(client, program)
    device = executable.addressable_devices[0]
    inputs = program.inputs(seed=2)
    buffers = [client.buffer_from_numpy(array, device) for array in inputs]
    outputs = executable.execute(buffers)
    for out in outputs:
        out.block_until_ready()
    for index, (buffer, array) in enumerate(zip(buffers, inputs)):
        assert not buffer.is_deleted, f"PJRT_LoadedExecutable_Execute deleted argument {index} of {program.name} (no donation)"
        assert_bit_exact(buffer.to_numpy(), array,
                         f"PJRT_LoadedExecutable_Execute changed argument {index} of {program.name} (no donation):")


@programs_param(WITH_ARGUMENTS)
def test_outputs_outlive_their_arguments(client, program):
    executable = compiled_program(client, program)
    device = executable.addressable_devices[0]
    inputs = program.inputs(seed=3)
    buffers = [client.buffer_from_numpy(array, device) for array in inputs]
    outputs = executable.execute(buffers)
    for buffer in buffers:
        buffer.close()  # PJRT_Buffer_Destroy of every argument before reading the results
    assert_matches_program(program, [out.to_numpy() for out in outputs], inputs,
                           f"outputs of {program.name} read after destroying its arguments")


@programs_param()
def test_outputs_have_the_program_element_types(client, program):
    executable = compiled_program(client, program)
    device = executable.addressable_devices[0]
    inputs = program.inputs()
    outputs = executable.execute([client.buffer_from_numpy(array, device) for array in inputs])
    expected = program.expected(inputs)
    for index, (out, want) in enumerate(zip(outputs, expected)):
        assert out.dtype == want.dtype and tuple(out.dims) == want.shape, (
            f"PJRT_Buffer_ElementType/Dimensions of output {index} of {program.name}: "
            f"{out.dtype}{list(out.dims)}, the program returns {want.dtype}{list(want.shape)}"
        )
        assert out.device.id == device.id, (
            f"PJRT_Buffer_Device of output {index} of {program.name} is device {out.device.id}, "
            f"the executable runs on device {device.id}"
        )
