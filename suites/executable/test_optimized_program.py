"""PJRT_Executable_OptimizedProgram: two-call protocol (size query with code=NULL, then copy)
(pjrt_cts.testing.executable_checks, shared with the aot layer)."""
from __future__ import annotations

from pjrt_cts.testing import compiled_program, programs_param, requires
from pjrt_cts.testing.executable_checks import check_optimized_program, optimized_module_name, optimized_program

pytestmark = requires("Executable_OptimizedProgram")


@programs_param()
def test_optimized_program_has_a_known_format_and_code(plugin, client, program):
    check_optimized_program(*optimized_program(compiled_program(client, program)))


@programs_param()
def test_optimized_program_size_is_stable(plugin, client, program):
    """The size query must predict the copy: two calls report the same code_size."""
    executable = compiled_program(client, program)
    first = optimized_program(executable)
    second = executable.optimized_program()
    assert (first[0], len(first[1])) == (second[0], len(second[1])), (
        f"PJRT_Executable_OptimizedProgram of one executable changes between calls: {first[0]!r} {len(first[1])} B "
        f"vs {second[0]!r} {len(second[1])} B"
    )


@programs_param()
def test_optimized_hlo_module_is_named_after_the_program(plugin, client, program):
    name = optimized_module_name(*optimized_program(compiled_program(client, program)))
    assert name == program.name, (
        f"PJRT_Executable_OptimizedProgram: the HloModuleProto is named {name!r}, the program's module is "
        f"{program.name!r}"
    )
