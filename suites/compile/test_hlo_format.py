"""Format "hlo": the HloModuleProto inside PJRT_Executable_OptimizedProgram compiles and runs the same.

PJRT_Executable_OptimizedProgram returns "hlo_with_config" (HloModuleProtoWithConfig: field 1 is the
HloModuleProto) or "hlo". Plugins that do not compile "hlo" (INVALID_ARGUMENT "Unknown program format",
UNIMPLEMENTED) are NOT_SUPPORTED for the round trip; "hlo_with_config" is a header-listed input format that the
XLA plugins only produce, so rejecting it is NOT_SUPPORTED too.

The recompile runs isolated: the XLA CPU plugins abort (CHECK failure "Instruction ... must have a parent")
recompiling their own optimized HLO for some programs (constant-only, zero-size).
"""
from __future__ import annotations

import pytest

from _programs import ADD, assert_matches_program, compiled_program, first_line, programs_param, run
from pjrt_cts.model import NotSupported
from pjrt_cts.runtime import PjrtError
from pjrt_cts.runtime import protobuf_wire as wire
from pjrt_cts.suite_support import require_slot, unimplemented_is_not_supported

HLO_MODULE_FIELD = 1  # HloModuleProtoWithConfig.hlo_module


def _optimized_hlo_module(plugin, executable) -> bytes:
    require_slot(plugin, "Executable_OptimizedProgram")
    fmt, code = unimplemented_is_not_supported(executable.optimized_program)
    if fmt == "hlo":
        return code
    if fmt != "hlo_with_config":
        raise NotSupported(f"PJRT_Executable_OptimizedProgram returns format {fmt!r}, not an HLO module")
    modules = [value for number, _, value in wire.iter_fields(code) if number == HLO_MODULE_FIELD]
    assert len(modules) == 1 and isinstance(modules[0], bytes) and modules[0], (
        "PJRT_Executable_OptimizedProgram: an 'hlo_with_config' program must hold exactly one HloModuleProto "
        f"(field {HLO_MODULE_FIELD}), found {len(modules)}"
    )
    return modules[0]


def _compile_or_not_supported(client, code: bytes, fmt: str):
    try:
        return client.compile(code, format=fmt)
    except PjrtError as error:
        if error.code == "UNIMPLEMENTED" or (error.code == "INVALID_ARGUMENT" and "format" in error.message.lower()):
            raise NotSupported(f"PJRT_Client_Compile does not accept format {fmt!r}: {error.code}: "
                               f"{first_line(error.message)}") from None
        raise


HLO_ROUND_TRIP_PROGRAMS = ["add_f32", "two_outputs_f32", "constant_s32", "reduce_sum_f32", "dot_f32",
                           "convert_f32_s32", "mixed_outputs", "negate_zero_size_f32"]


@pytest.mark.isolated
@programs_param(HLO_ROUND_TRIP_PROGRAMS)
def test_optimized_hlo_recompiles_and_runs(plugin, client, program):
    module = _optimized_hlo_module(plugin, compiled_program(client, program))
    with _compile_or_not_supported(client, module, "hlo") as executable:
        inputs = program.inputs()
        assert_matches_program(program, run(executable, client, inputs), inputs,
                               "PJRT_LoadedExecutable_Execute of the program recompiled from format 'hlo'")


def test_hlo_recompile_keeps_output_signature(plugin, client):
    original = compiled_program(client, ADD)
    with _compile_or_not_supported(client, _optimized_hlo_module(plugin, original), "hlo") as executable:
        assert executable.output_element_types == original.output_element_types, (
            "PJRT_Executable_OutputElementTypes differ between the 'mlir' compile and its 'hlo' recompile: "
            f"{executable.output_element_types} vs {original.output_element_types}"
        )
        assert executable.output_dimensions == original.output_dimensions, (
            "PJRT_Executable_OutputDimensions differ between the 'mlir' compile and its 'hlo' recompile"
        )


def test_hlo_with_config_compiles_or_is_not_supported(plugin, client):
    require_slot(plugin, "Executable_OptimizedProgram")
    fmt, code = unimplemented_is_not_supported(compiled_program(client, ADD).optimized_program)
    if fmt != "hlo_with_config":
        raise NotSupported(f"PJRT_Executable_OptimizedProgram returns {fmt!r}, not 'hlo_with_config'")
    with _compile_or_not_supported(client, code, "hlo_with_config") as executable:
        inputs = ADD.inputs()
        assert_matches_program(ADD, run(executable, client, inputs), inputs,
                               "PJRT_LoadedExecutable_Execute of the program compiled from 'hlo_with_config'")
