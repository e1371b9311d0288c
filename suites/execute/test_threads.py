"""PJRT_LoadedExecutable_Execute from several Python threads at once (ctypes releases the GIL)."""
from __future__ import annotations

import threading

import pytest

from pjrt_cts.runtime import CompileOptions
from pjrt_cts.testing import ADD, PROGRAMS_BY_NAME, compiled_program, mismatch_message, requires

THREADS = 4
PER_THREAD = 25
# The suite provokes races on purpose: a failure shows a thread-safety defect even when its rerun does not (the
# confirmation pass keeps its first answer).
pytestmark = pytest.mark.nondeterministic("races between threads the test provokes")


def _hammer(worker, threads=THREADS):
    failures: list[str] = []

    def body(index):
        try:
            problem = worker(index)
            if problem:
                failures.append(problem)
        except Exception as error:  # noqa: BLE001 - collected and reported with the thread index
            failures.append(f"thread {index}: {type(error).__name__}: {error}")

    pool = [threading.Thread(target=body, args=(i,)) for i in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in pool), "threads calling PJRT_LoadedExecutable_Execute did not finish in 120 s"
    assert not failures, f"concurrent PJRT_LoadedExecutable_Execute: {len(failures)} failures; first: {failures[0]}"


def _run_many(client, executable, program, device, thread_index, device_events=False):
    for iteration in range(PER_THREAD):
        inputs = program.inputs(seed=1000 * thread_index + iteration)
        buffers = [client.buffer_from_numpy(a, device) for a in inputs]
        if device_events:
            rows, events = executable.execute_sharded([buffers], execute_device=None, want_device_events=True)
            outputs = rows[0]
            for event in events:
                event.wait()
                event.close()
        else:
            outputs = executable.execute(buffers)
        message, _ = mismatch_message(f"thread {thread_index} execution {iteration}",
                                      [out.to_numpy() for out in outputs], program.expected(inputs),
                                      lambda dtype: program.tolerance(dtype, inputs))  # noqa: B023 - called within this iteration
        if message:
            return message
    return None


def test_threads_share_one_executable(client):
    executable = compiled_program(client, ADD)
    device = executable.addressable_devices[0]
    _hammer(lambda i: _run_many(client, executable, ADD, device, i))


def test_threads_share_one_multi_output_executable(client):
    program = PROGRAMS_BY_NAME["mixed_outputs"]
    executable = compiled_program(client, program)
    device = executable.addressable_devices[0]
    _hammer(lambda i: _run_many(client, executable, program, device, i))


def test_threads_with_device_complete_events(client):
    executable = compiled_program(client, ADD)
    device = executable.addressable_devices[0]
    _hammer(lambda i: _run_many(client, executable, ADD, device, i, device_events=True))


@requires(devices=2)
def test_threads_on_different_devices(client):
    devices = client.addressable_devices[:2]
    executables = [
        client.compile(ADD.text, compile_options=CompileOptions(device_assignment=[[d.id]]).to_bytes()) for d in devices
    ]
    try:
        _hammer(lambda i: _run_many(client, executables[i % len(devices)], ADD, devices[i % len(devices)], i))
    finally:
        for executable in executables:
            executable.close()


@requires(devices=2)
def test_threads_share_one_portable_executable_on_different_devices(client):
    devices = client.addressable_devices[:2]
    executable = client.compile(ADD.text, compile_options=CompileOptions(compile_portable_executable=True).to_bytes())
    try:
        def worker(i):
            device = devices[i % len(devices)]
            for iteration in range(PER_THREAD):
                inputs = ADD.inputs(seed=5000 + 100 * i + iteration)
                outputs = executable.execute([client.buffer_from_numpy(a, device) for a in inputs], device=device)
                message, _ = mismatch_message(f"thread {i} on device {device.id} execution {iteration}",
                                              [out.to_numpy() for out in outputs], ADD.expected(inputs),
                                              lambda dtype: ADD.tolerance(dtype, inputs))  # noqa: B023 - called within this iteration
                if message:
                    return message
            return None

        _hammer(worker)
    finally:
        executable.close()
