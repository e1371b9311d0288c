"""PJRT_Executable_GetCompileOptions returns the CompileOptionsProto the executable was compiled with; the
returned bytes compile the same executable again and can override a deserialized executable's options."""
from __future__ import annotations

import pytest

from pjrt_cts.runtime import CompileOptions
from pjrt_cts.testing import (ADD, assert_matches_program, compiled_program, programs_param, requires, run,
                              unsupported_if_unimplemented)

pytestmark = requires("Executable_GetCompileOptions")
VARIANTS = {
    "default": lambda devices: CompileOptions(),
    "device_assignment_last_device": lambda devices: CompileOptions(device_assignment=[[devices[-1].id]]),
    "replicas2": lambda devices: CompileOptions(num_replicas=2),
    "partitions2_spmd": lambda devices: CompileOptions(num_partitions=2, use_spmd_partitioning=True),
    "portable": lambda devices: CompileOptions(compile_portable_executable=True),
}


def _returned_options(plugin, executable) -> bytes:
    with unsupported_if_unimplemented("PJRT_Executable_GetCompileOptions"):
        data = executable.compile_options()
    assert data, "PJRT_Executable_GetCompileOptions returned no bytes"
    return data


VARIANT_PARAMS = [pytest.param(name, id=name, marks=requires(devices=2) if name in ("replicas2", "partitions2_spmd") else [])
                  for name in VARIANTS]


@pytest.mark.parametrize("variant", VARIANT_PARAMS)
def test_compile_options_round_trip(plugin, client, devices, variant):
    sent = VARIANTS[variant](devices)
    with client.compile(ADD.text, compile_options=sent.to_bytes()) as executable:
        got = CompileOptions.from_bytes(_returned_options(plugin, executable))
    assert (got.num_replicas, got.num_partitions) == (sent.num_replicas, sent.num_partitions), (
        f"PJRT_Executable_GetCompileOptions: num_replicas/num_partitions {got.num_replicas}/{got.num_partitions}, "
        f"compiled with {sent.num_replicas}/{sent.num_partitions}"
    )
    assert got.use_spmd_partitioning == sent.use_spmd_partitioning, (
        f"PJRT_Executable_GetCompileOptions: use_spmd_partitioning {got.use_spmd_partitioning}, compiled with {sent.use_spmd_partitioning}"
    )
    if sent.device_assignment is not None:
        assert got.device_assignment == sent.device_assignment, (
            f"PJRT_Executable_GetCompileOptions: device assignment {got.device_assignment}, compiled with {sent.device_assignment}"
        )
    assert got.compile_portable_executable == sent.compile_portable_executable, (
        f"PJRT_Executable_GetCompileOptions: compile_portable_executable {got.compile_portable_executable}, "
        f"compiled with {sent.compile_portable_executable}"
    )


@programs_param()
def test_returned_options_recompile_the_program(plugin, client, program):
    options = _returned_options(plugin, compiled_program(client, program))
    with client.compile(program.text, compile_options=options) as again:
        inputs = program.inputs(seed=21)
        assert_matches_program(program, run(again, client, inputs), inputs,
                               "PJRT_LoadedExecutable_Execute after compiling with GetCompileOptions' bytes")


@programs_param()
def test_returned_options_are_stable(plugin, client, program):
    executable = compiled_program(client, program)
    assert _returned_options(plugin, executable) == _returned_options(plugin, executable), (
        "PJRT_Executable_GetCompileOptions of one executable differs between calls"
    )


@requires("Executable_Serialize", "Executable_DeserializeAndLoad")
def test_deserialize_with_overridden_compile_options(plugin, client):
    executable = compiled_program(client, ADD)
    options = _returned_options(plugin, executable)
    with client.deserialize_executable(executable.serialize(), compile_options=options) as restored:
        inputs = ADD.inputs(seed=22)
        assert_matches_program(ADD, run(restored, client, inputs), inputs,
                               "DeserializeAndLoad with overridden_serialized_compile_options")
