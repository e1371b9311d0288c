"""Format "hlo": the HloModuleProto inside PJRT_Executable_OptimizedProgram compiles and runs the same.

PJRT_Executable_OptimizedProgram returns "hlo_with_config" (HloModuleProtoWithConfig: field 1 is the
HloModuleProto) or "hlo". Accepting "hlo" or "hlo_with_config" as input is optional (header-listed formats):
UNIMPLEMENTED is NOT_SUPPORTED, INVALID_ARGUMENT a WARNING ("not supported" is UNIMPLEMENTED's job); the XLA
plugins produce "hlo_with_config" but reject it as input with INVALID_ARGUMENT.

The recompile runs isolated: the XLA CPU plugins abort (CHECK failure "Instruction ... must have a parent")
recompiling their own optimized HLO for some programs (constant-only, zero-size).
"""
from __future__ import annotations

import pytest

from pjrt_cts.runtime import protobuf_wire as wire
from pjrt_cts.testing import (ADD, assert_matches_program, compiled_program, not_applicable, optional_input,
                              programs_param, requires, run, unsupported_if_unimplemented)

HLO_MODULE_FIELD = 1  # HloModuleProtoWithConfig.hlo_module


pytestmark = requires("Executable_OptimizedProgram")


def _optimized_program(executable) -> tuple[str, bytes]:
    with unsupported_if_unimplemented("PJRT_Executable_OptimizedProgram"):
        return executable.optimized_program()


def _optimized_hlo_module(executable) -> bytes:
    fmt, code = _optimized_program(executable)
    if fmt == "hlo":
        return code
    if fmt != "hlo_with_config":
        not_applicable(f"PJRT_Executable_OptimizedProgram returns format {fmt!r}, not an HLO module")
    modules = [value for number, _, value in wire.iter_fields(code) if number == HLO_MODULE_FIELD]
    assert len(modules) == 1 and isinstance(modules[0], bytes) and modules[0], (
        "PJRT_Executable_OptimizedProgram: an 'hlo_with_config' program must hold exactly one HloModuleProto "
        f"(field {HLO_MODULE_FIELD}), found {len(modules)}"
    )
    return modules[0]


def _compile_optional_format(client, code: bytes, fmt: str):
    with optional_input("PJRT_Client_Compile", f"program format {fmt!r}"):
        return client.compile(code, format=fmt)


HLO_ROUND_TRIP_PROGRAMS = ["add_f32", "two_outputs_f32", "constant_s32", "reduce_sum_f32", "dot_f32",
                           "convert_f32_s32", "mixed_outputs", "negate_zero_size_f32"]


@pytest.mark.isolated
@programs_param(HLO_ROUND_TRIP_PROGRAMS)
def test_optimized_hlo_recompiles_and_runs(client, program):
    module = _optimized_hlo_module(compiled_program(client, program))
    with _compile_optional_format(client, module, "hlo") as executable:
        inputs = program.inputs()
        assert_matches_program(program, run(executable, client, inputs), inputs,
                               "PJRT_LoadedExecutable_Execute of the program recompiled from format 'hlo'")


def test_hlo_recompile_keeps_output_signature(client):
    original = compiled_program(client, ADD)
    with _compile_optional_format(client, _optimized_hlo_module(original), "hlo") as executable:
        assert executable.output_element_types == original.output_element_types, (
            "PJRT_Executable_OutputElementTypes differ between the 'mlir' compile and its 'hlo' recompile: "
            f"{executable.output_element_types} vs {original.output_element_types}"
        )
        assert executable.output_dimensions == original.output_dimensions, (
            "PJRT_Executable_OutputDimensions differ between the 'mlir' compile and its 'hlo' recompile"
        )


def test_hlo_with_config_compiles_or_is_not_supported(client):
    fmt, code = _optimized_program(compiled_program(client, ADD))
    if fmt != "hlo_with_config":
        not_applicable(f"PJRT_Executable_OptimizedProgram returns {fmt!r}, not 'hlo_with_config'")
    with _compile_optional_format(client, code, "hlo_with_config") as executable:
        inputs = ADD.inputs()
        assert_matches_program(ADD, run(executable, client, inputs), inputs,
                               "PJRT_LoadedExecutable_Execute of the program compiled from 'hlo_with_config'")
