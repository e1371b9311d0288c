"""PJRT_Executable_GetCompiledMemoryStats: sizes are not negative and cover the program's arguments/outputs
(pjrt_cts.testing.executable_checks, shared with the aot layer)."""
from __future__ import annotations

from pjrt_cts.testing import compiled_program, programs_param, requires
from pjrt_cts.testing.executable_checks import (check_memory_stats_cover, check_memory_stats_not_negative,
                                                compiled_memory_stats)

pytestmark = requires("Executable_GetCompiledMemoryStats")


@programs_param()
def test_memory_stats_are_not_negative(plugin, client, program):
    check_memory_stats_not_negative(compiled_memory_stats(compiled_program(client, program)))


@programs_param()
def test_argument_size_covers_the_arguments(plugin, client, program):
    stats = compiled_memory_stats(compiled_program(client, program))
    check_memory_stats_cover(stats, "argument", sum(array.nbytes for array in program.inputs()), program.name)


@programs_param()
def test_output_size_covers_the_outputs(plugin, client, program):
    stats = compiled_memory_stats(compiled_program(client, program))
    needed = sum(array.nbytes for array in program.expected(program.inputs()))
    check_memory_stats_cover(stats, "output", needed, program.name)
