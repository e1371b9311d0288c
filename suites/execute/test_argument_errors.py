"""PJRT_LoadedExecutable_Execute rejects wrong arguments with INVALID_ARGUMENT.

Arguments whose byte size differs from the parameter's (count, shape, element type) must be rejected.
A same-size argument with another shape or rank carries the same values in the same order; the XLA CPU
plugins check only byte sizes and run the program on those bytes, reported as WARNING. A same-size argument of
another element type has its values reinterpreted: that clause is judged once, as a FAIL, in robustness
(test_mismatched_dims_or_sizes_are_rejected[execute_with_wrong_element_type], run in a child process).
Every rejection has a control: the same executable runs with valid arguments.
"""
from __future__ import annotations

import numpy as np

from pjrt_cts.judgment.outcomes import HardeningFinding
from pjrt_cts.runtime import PjrtError
from pjrt_cts.testing import (ADD, PROGRAMS, assert_matches_program, compiled_program, expect_rejection,
                              programs_param, requires, run)

WITH_ARGUMENTS = [p.name for p in PROGRAMS if p.inputs()]
FUNCTION = "PJRT_LoadedExecutable_Execute"


def _buffers(client, executable, arrays):
    device = executable.addressable_devices[0]
    return [client.buffer_from_numpy(np.asarray(array), device) for array in arrays]


def _valid(client, executable, program):
    """The control: the same executable with the program's own arguments."""
    return lambda: executable.execute(_buffers(client, executable, program.inputs()))


@programs_param(WITH_ARGUMENTS)
def test_too_few_arguments_is_invalid_argument(client, program):
    executable = compiled_program(client, program)
    buffers = _buffers(client, executable, program.inputs()[:-1])
    expect_rejection(lambda: executable.execute(buffers), control=_valid(client, executable, program), function=FUNCTION,
                     what=f"{len(buffers)} arguments for {program.name}, which takes {len(buffers) + 1}")


@programs_param(["add_f32", "constant_s32", "reduce_sum_f32", "select_f32", "mixed_outputs"])
def test_too_many_arguments_is_invalid_argument(client, program):
    executable = compiled_program(client, program)
    inputs = program.inputs()
    extra = inputs + [np.zeros((2,), np.float32)]
    buffers = _buffers(client, executable, extra)
    expect_rejection(lambda: executable.execute(buffers), control=_valid(client, executable, program), function=FUNCTION,
                     what=f"{len(extra)} arguments for {program.name}, which takes {len(inputs)}")


@programs_param(["add_f32", "reduce_sum_f32", "dot_f32", "xor_u8"])
def test_argument_with_other_element_count_is_invalid_argument(client, program):
    executable = compiled_program(client, program)
    inputs = program.inputs()
    wrong = [np.resize(inputs[0], (inputs[0].size + 3,)).astype(inputs[0].dtype)] + inputs[1:]
    buffers = _buffers(client, executable, wrong)
    expect_rejection(lambda: executable.execute(buffers), control=_valid(client, executable, program), function=FUNCTION,
                     what=f"argument 0 of shape {list(wrong[0].shape)} for parameter {list(inputs[0].shape)} of {program.name}")


@programs_param(["add_f32", "multiply_s32", "add_f16", "xor_u8"])
def test_argument_with_other_element_size_is_invalid_argument(client, program):
    executable = compiled_program(client, program)
    inputs = program.inputs()
    other = np.float64 if inputs[0].dtype.itemsize != 8 else np.int8
    wrong = [inputs[0].astype(other)] + inputs[1:]
    buffers = _buffers(client, executable, wrong)
    expect_rejection(lambda: executable.execute(buffers), control=_valid(client, executable, program), function=FUNCTION,
                     what=f"a {wrong[0].dtype} argument for a {inputs[0].dtype} parameter of {program.name}")


def _same_size_mismatch(client, arrays, what):
    executable = compiled_program(client, ADD)
    buffers = _buffers(client, executable, arrays)
    try:
        outputs = executable.execute(buffers)
    except PjrtError as error:
        assert error.code == "INVALID_ARGUMENT", (
            f"{FUNCTION} should reject {what} with INVALID_ARGUMENT, but failed with {error.code}: {error.message}"
        )
        for out in _valid(client, executable, ADD)():  # the control: valid arguments run
            out.close()
        return
    for out in outputs:
        out.close()
    raise HardeningFinding(f"{FUNCTION} accepted {what} (only the byte size is checked)")


def test_same_size_argument_with_other_shape_is_rejected(client):
    a, b = ADD.inputs()
    _same_size_mismatch(client, [a.reshape(3, 2), b], "an f32[3,2] argument for an f32[2,3] parameter")


def test_same_size_argument_with_other_rank_is_rejected(client):
    a, b = ADD.inputs()
    _same_size_mismatch(client, [a.reshape(6), b], "an f32[6] argument for an f32[2,3] parameter")


def test_deleted_argument_is_invalid_argument(client):
    executable = compiled_program(client, ADD)
    buffers = _buffers(client, executable, ADD.inputs())
    buffers[1].delete()
    expect_rejection(lambda: executable.execute(buffers), control=_valid(client, executable, ADD), function=FUNCTION,
                     what="an argument deleted with PJRT_Buffer_Delete")


@requires(devices=2)
def test_argument_on_another_device_is_invalid_argument(client):
    executable = compiled_program(client, ADD)
    own = executable.addressable_devices[0]
    other = next(d for d in client.addressable_devices if d.id != own.id)
    buffers = [client.buffer_from_numpy(array, other) for array in ADD.inputs()]
    expect_rejection(lambda: executable.execute(buffers), control=_valid(client, executable, ADD), function=FUNCTION,
                     what=f"arguments on device {other.id} for an executable on device {own.id}")


def test_no_arguments_for_program_with_parameters_is_invalid_argument(client):
    executable = compiled_program(client, ADD)
    expect_rejection(lambda: executable.execute([]), control=_valid(client, executable, ADD), function=FUNCTION,
                     what="no arguments for a 2-parameter program")


def test_rejected_execution_leaves_executable_usable(client):
    executable = compiled_program(client, ADD)
    bad = _buffers(client, executable, ADD.inputs()[:1])
    expect_rejection(lambda: executable.execute(bad), control=_valid(client, executable, ADD), function=FUNCTION,
                     what="a missing argument")
    inputs = ADD.inputs(seed=9)
    assert_matches_program(ADD, run(executable, client, inputs), inputs,
                           f"{FUNCTION} after a rejected execution")
