"""Many executions in flight without waiting: each keeps its own results, dependent ones run in order."""
from __future__ import annotations

import numpy as np

from pjrt_cts.testing import ADD, assert_matches_program, assert_same, compiled_program, programs_param

IN_FLIGHT = 32
SOME_PROGRAMS = ["add_f32", "two_outputs_f32", "dot_f32", "multiply_s32", "mixed_outputs"]


def _launch(client, executable, program, count):
    device = executable.addressable_devices[0]
    launched = []
    for seed in range(count):
        inputs = program.inputs(seed=100 + seed)
        launched.append((inputs, executable.execute([client.buffer_from_numpy(a, device) for a in inputs])))
    return launched


@programs_param(SOME_PROGRAMS)
def test_results_of_executions_in_flight_stay_separate(client, program):
    executable = compiled_program(client, program)
    for index, (inputs, outputs) in enumerate(_launch(client, executable, program, IN_FLIGHT)):
        assert_matches_program(program, [out.to_numpy() for out in outputs], inputs,
                               f"execution {index} of {IN_FLIGHT} launched without waiting")


@programs_param(SOME_PROGRAMS)
def test_results_read_newest_first(client, program):
    executable = compiled_program(client, program)
    launched = _launch(client, executable, program, IN_FLIGHT)
    for index in reversed(range(IN_FLIGHT)):
        inputs, outputs = launched[index]
        assert_matches_program(program, [out.to_numpy() for out in outputs], inputs,
                               f"execution {index} of {IN_FLIGHT}, read newest first")


def test_dependent_executions_in_flight_run_in_order(client):
    """x_{i+1} = x_i + step, 50 times, each using the previous output buffer before it is ready."""
    executable = compiled_program(client, ADD)
    device = executable.addressable_devices[0]
    start, step = ADD.inputs(seed=7)
    step_buffer = client.buffer_from_numpy(step, device)
    current = client.buffer_from_numpy(start, device)
    produced = []
    for _ in range(50):
        (current,) = executable.execute([current, step_buffer])
        produced.append(current)
    expected = start.copy()
    for index, buffer in enumerate(produced):
        expected = (expected + step).astype(np.float32)
        assert_same(buffer.to_numpy(), expected,
                    f"PJRT_LoadedExecutable_Execute chained on unready outputs: step {index + 1}")


def test_in_flight_arguments_destroyed_early(client):
    """Destroying argument buffers right after launching must not affect executions still in flight."""
    executable = compiled_program(client, ADD)
    device = executable.addressable_devices[0]
    launched = []
    for seed in range(IN_FLIGHT):
        inputs = ADD.inputs(seed=200 + seed)
        buffers = [client.buffer_from_numpy(a, device) for a in inputs]
        launched.append((inputs, executable.execute(buffers)))
        for buffer in buffers:
            buffer.close()
    for index, (inputs, outputs) in enumerate(launched):
        assert_matches_program(ADD, [out.to_numpy() for out in outputs], inputs,
                               f"execution {index} whose arguments were destroyed right after launch")
