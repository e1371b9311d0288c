"""PJRT_Executable_OptimizedProgram: two-call protocol (size query with code=NULL, then copy)."""
from __future__ import annotations

from pjrt_cts.runtime import protobuf_wire as wire
from pjrt_cts.testing import compiled_program, not_applicable, programs_param, requires, unsupported_if_unimplemented

KNOWN_FORMATS = ("hlo", "hlo_with_config", "mlir")
HLO_MODULE_FIELD = 1  # HloModuleProtoWithConfig.hlo_module
HLO_MODULE_NAME_FIELD = 1  # HloModuleProto.name
pytestmark = requires("Executable_OptimizedProgram")


def _optimized_program(executable) -> tuple[str, bytes]:
    with unsupported_if_unimplemented("PJRT_Executable_OptimizedProgram"):
        return executable.optimized_program()


@programs_param()
def test_optimized_program_has_a_known_format_and_code(plugin, client, program):
    fmt, code = _optimized_program(compiled_program(client, program))
    assert fmt in KNOWN_FORMATS, f"PJRT_Executable_OptimizedProgram format {fmt!r} is not one of {KNOWN_FORMATS}"
    assert code, "PJRT_Executable_OptimizedProgram returned an empty program"


@programs_param()
def test_optimized_program_size_is_stable(plugin, client, program):
    """The size query must predict the copy: two calls report the same code_size."""
    executable = compiled_program(client, program)
    first = _optimized_program(executable)
    second = executable.optimized_program()
    assert (first[0], len(first[1])) == (second[0], len(second[1])), (
        f"PJRT_Executable_OptimizedProgram of one executable changes between calls: {first[0]!r} {len(first[1])} B "
        f"vs {second[0]!r} {len(second[1])} B"
    )


@programs_param()
def test_optimized_hlo_module_is_named_after_the_program(plugin, client, program):
    fmt, code = _optimized_program(compiled_program(client, program))
    if fmt not in ("hlo", "hlo_with_config"):
        not_applicable(f"PJRT_Executable_OptimizedProgram returns {fmt!r}, not an HLO module")
    module = code if fmt == "hlo" else next(v for n, _, v in wire.iter_fields(code)
                                            if n == HLO_MODULE_FIELD and isinstance(v, bytes))
    names = [v for n, _, v in wire.iter_fields(module) if n == HLO_MODULE_NAME_FIELD and isinstance(v, bytes)]
    assert names and names[0].decode(errors="replace") == program.name, (
        f"PJRT_Executable_OptimizedProgram: the HloModuleProto is named {names[0] if names else None!r}, "
        f"the program's module is {program.name!r}"
    )
