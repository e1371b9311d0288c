"""device_complete_events: one PJRT_Event per device, ready once the execution finished, no error."""
from __future__ import annotations

import threading

from pjrt_cts.testing import ADD, assert_matches_program, compiled_program, programs_param

SOME_PROGRAMS = ["add_f32", "two_outputs_f32", "constant_s32", "reduce_sum_f32", "mixed_outputs"]


def _execute_with_events(client, executable, inputs):
    device = executable.addressable_devices[0]
    buffers = [client.buffer_from_numpy(array, device) for array in inputs]
    rows, events = executable.execute_sharded([buffers], want_device_events=True)
    return rows[0], events


@programs_param(SOME_PROGRAMS)
def test_one_device_complete_event_per_device(client, program):
    executable = compiled_program(client, program)
    outputs, events = _execute_with_events(client, executable, program.inputs())
    try:
        assert len(events) == 1 and events[0].handle, (
            f"PJRT_LoadedExecutable_Execute with device_complete_events should fill 1 event, got {len(events)}"
        )
    finally:
        for event in events:
            event.close()


@programs_param(SOME_PROGRAMS)
def test_device_complete_event_completes_without_error(client, program):
    executable = compiled_program(client, program)
    inputs = program.inputs()
    outputs, events = _execute_with_events(client, executable, inputs)
    try:
        events[0].wait()
        assert events[0].is_ready(), "PJRT_Event_IsReady is false after PJRT_Event_Await of a device_complete_event"
        error = events[0].error()
        assert error is None, f"device_complete_event carries an error after a successful execution: {error}"
        assert_matches_program(program, [out.to_numpy() for out in outputs], inputs,
                               "outputs read after the device_complete_event")
    finally:
        for event in events:
            event.close()


def test_device_complete_event_on_ready_fires(client):
    executable = compiled_program(client, ADD)
    outputs, events = _execute_with_events(client, executable, ADD.inputs())
    fired = threading.Event()
    seen: list[object] = []

    def on_ready(error):
        seen.append(error)
        fired.set()

    try:
        events[0].on_ready(on_ready)
        assert fired.wait(30), "PJRT_Event_OnReady callback of a device_complete_event did not fire within 30 s"
        assert seen == [None], f"device_complete_event OnReady callback got an error: {seen[0]}"
    finally:
        for event in events:
            event.close()


def test_device_complete_events_of_many_executions(client):
    executable = compiled_program(client, ADD)
    pending = []
    try:
        for seed in range(16):
            inputs = ADD.inputs(seed=seed)
            outputs, events = _execute_with_events(client, executable, inputs)
            pending.append((inputs, outputs, events))
        for seed, (inputs, outputs, events) in enumerate(pending):
            events[0].wait()
            assert_matches_program(ADD, [out.to_numpy() for out in outputs], inputs,
                                   f"execution {seed} of 16 with device_complete_events")
    finally:
        for _, _, events in pending:
            for event in events:
                event.close()


def test_destroying_device_event_early_keeps_results(client):
    """Destroying the event before the execution finished must not cancel or corrupt it."""
    executable = compiled_program(client, ADD)
    inputs = ADD.inputs(seed=5)
    outputs, events = _execute_with_events(client, executable, inputs)
    for event in events:
        event.close()
    assert_matches_program(ADD, [out.to_numpy() for out in outputs], inputs,
                           "outputs after destroying the device_complete_event unawaited")
