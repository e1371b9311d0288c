"""PJRT_ExecuteContext (API 0.52) passed as PJRT_ExecuteOptions.context (0.64): what JAX does on every execute.

JAX's C API client, for every execution on a plugin whose platform is cpu, cuda, rocm or oneapi, creates a
context, adds the FFI user data of its host callbacks to it (FFI.user_data_add, where the plugin advertises the
FFI extension; `jax.debug.print`, `pure_callback` and `io_callback` reach Python so), passes it to
PJRT_LoadedExecutable_Execute and destroys it as soon as Execute returns, before the outputs are ready. So:

- an execution with a context, empty or holding user data, gives the same bits as one without;
- a context destroyed as Execute returns, while the program may still run, leaves the outputs intact (isolated:
  a plugin that reads the destroyed context may crash, which is a finding);
- create (+ user data) / destroy pairs do not grow the process.

That a custom call sees the user data during the execution needs a handler: extensions.ffi builds one.
PJRT_ExecuteContext_Destroy of a NULL context is a robustness case (null_inputs, with the other NULL handles).
"""
from __future__ import annotations

import ctypes
from typing import Any

import pytest

from pjrt_cts.runtime import ExecuteContext, FfiExtension, MissingFunction
from pjrt_cts.runtime.execute_context import CONTEXT_OPTION_SINCE_MINOR
from pjrt_cts.testing import (assert_bit_exact, assert_growth_below, compiled_program, measure_growth,
                              not_applicable, programs_param, requires, run)
from pjrt_cts.testing.ffi_handlers import datum_type_id
from pjrt_cts.testing.mid_sizes import MID_SIZE_PROGRAMS

pytestmark = requires("ExecuteContext_Create", "ExecuteContext_Destroy")

SAME_BITS_PROGRAMS = ["add_f32", "dot_f32", "mixed_outputs", "exp_f32"]
# ~20 ms on XLA:CPU, which runs it on its thread pool: Execute returns before the outputs are ready (a 512^3 matmul
# takes ~3 ms and is sometimes done by then).
STILL_RUNNING_PROGRAM = next(p for p in MID_SIZE_PROGRAMS if p.name == "sort.1d.65536.f32")
# Contexts created right after the destroy: they take the freed memory, so a plugin still reading the destroyed
# context reads one of them.
REUSERS = 8
# An XLA:CPU context holding one user datum is ~176 bytes (measured: 20,000 contexts never destroyed grew RSS by
# 3.4 MiB). 50,000 pairs (~1-2 s) of one that is never freed would grow RSS by ~8 MiB; the bound of 2 MiB (42 bytes
# a pair) lies well above what freed contexts leave (0.0 MiB over 100,000 pairs on both XLA CPU plugins: page
# granularity and allocator pools settle in the warm-up) and well below such a leak. 2,000 pairs, as the robustness
# layer counts executables, would hide a 176-byte leak in page noise (0.3 MiB).
LEAK_PAIRS = 50_000
LEAK_BOUND_MIB = 2.0


@pytest.fixture
def context_option(plugin: Any) -> None:
    """The tests that pass a context need PJRT_ExecuteOptions.context, which a plugin before 0.64 does not have."""
    if plugin.api_version[1] < CONTEXT_OPTION_SINCE_MINOR:
        not_applicable(f"the plugin's API {plugin.version_string} predates PJRT_ExecuteOptions.context "
                       f"(0.{CONTEXT_OPTION_SINCE_MINOR}): it cannot be handed a context")


class _Payload(ctypes.Structure):
    """User data as JAX adds it: a pointer the plugin only forwards to custom calls (no deleter)."""

    _fields_ = [("value", ctypes.c_int64)]


def _context_with_user_data(plugin: Any, payload: _Payload) -> ExecuteContext:
    context = ExecuteContext.create(plugin)
    ffi = FfiExtension(plugin)
    ffi.add_user_data(context, datum_type_id(ffi), ctypes.addressof(payload))
    return context


def _assert_same_bits(actual: list[Any], expected: list[Any], program: Any, what: str) -> None:
    __tracebackhide__ = True
    for index, (got, want) in enumerate(zip(actual, expected)):
        assert_bit_exact(got, want, f"output {index} of {program.name} executed with {what}, against the same "
                                    "execution without a context")


@programs_param(SAME_BITS_PROGRAMS)
@pytest.mark.usefixtures("context_option")
def test_execute_with_an_empty_context_gives_the_same_bits(client: Any, plugin: Any, program: Any) -> None:
    executable, inputs = compiled_program(client, program), program.inputs(seed=3)
    expected = run(executable, client, inputs)
    with ExecuteContext.create(plugin) as context:
        actual = run(executable, client, inputs, context=context)
    _assert_same_bits(actual, expected, program, "an empty PJRT_ExecuteContext (PJRT_ExecuteOptions.context)")


@programs_param(SAME_BITS_PROGRAMS)
@pytest.mark.usefixtures("context_option")
def test_execute_with_ffi_user_data_gives_the_same_bits(client: Any, plugin: Any, program: Any) -> None:
    """JAX's every execute: a context holding user data (FFI.user_data_add). NOT_SUPPORTED without the extension."""
    executable, inputs = compiled_program(client, program), program.inputs(seed=4)
    expected = run(executable, client, inputs)
    payload = _Payload(value=42)
    with _context_with_user_data(plugin, payload) as context:
        actual = run(executable, client, inputs, context=context)
    _assert_same_bits(actual, expected, program, "a PJRT_ExecuteContext holding FFI user data")


@pytest.mark.isolated
@pytest.mark.usefixtures("context_option")
def test_context_destroyed_as_execute_returns_leaves_the_outputs_intact(client: Any, plugin: Any,
                                                                        record_details: Any) -> None:
    """JAX destroys the context right after Execute returns; the outputs may still be computing then."""
    program = STILL_RUNNING_PROGRAM
    executable, inputs = compiled_program(client, program), program.inputs(seed=5)
    expected = run(executable, client, inputs)
    device = executable.addressable_devices[0]
    buffers = [client.buffer_from_numpy(array, device) for array in inputs]
    payload = _Payload(value=7)
    try:
        context = _context_with_user_data(plugin, payload)
    except MissingFunction:  # no FFI extension: an empty context
        context = ExecuteContext.create(plugin)
    outputs = executable.execute(buffers, context=context)
    context.close()  # PJRT_ExecuteContext_Destroy before the outputs are awaited
    with outputs[0].ready_event() as ready:
        record_details(outputs_ready_when_context_destroyed=ready.is_ready())
    reusers = [ExecuteContext.create(plugin) for _ in range(REUSERS)]
    actual = [output.to_numpy() for output in outputs]
    for reuser in reusers:
        reuser.close()
    _assert_same_bits(actual, expected, program, "a PJRT_ExecuteContext destroyed as PJRT_LoadedExecutable_Execute "
                                                 "returned")


@pytest.mark.timeout(300)
@pytest.mark.nondeterministic("resident-memory growth measured on a live process")
def test_create_destroy_pairs_do_not_leak(plugin: Any, record_details: Any) -> None:
    """50,000 x PJRT_ExecuteContext_Create, FFI.user_data_add (where the plugin has FFI, as JAX does), Destroy."""
    payload = _Payload(value=1)
    try:
        _context_with_user_data(plugin, payload).close()
        with_user_data = True
    except MissingFunction:
        with_user_data = False

    def cycle() -> None:
        (_context_with_user_data(plugin, payload) if with_user_data else ExecuteContext.create(plugin)).close()

    record_details(with_user_data=with_user_data)
    assert_growth_below("PJRT_ExecuteContext create/destroy", LEAK_PAIRS, measure_growth(LEAK_PAIRS, cycle),
                        LEAK_BOUND_MIB, record_details)
