"""PJRT_Executable_GetCompiledMemoryStats: sizes are not negative and cover the program's arguments/outputs."""
from __future__ import annotations

from pjrt_cts.testing import compiled_program, programs_param, requires, unsupported_if_unimplemented

pytestmark = requires("Executable_GetCompiledMemoryStats")


def _stats(plugin, executable) -> dict[str, int]:
    with unsupported_if_unimplemented("PJRT_Executable_GetCompiledMemoryStats"):
        return executable.compiled_memory_stats()


@programs_param()
def test_memory_stats_are_not_negative(plugin, client, program):
    stats = _stats(plugin, compiled_program(client, program))
    negative = {name: value for name, value in stats.items() if value < 0}
    assert not negative, f"PJRT_Executable_GetCompiledMemoryStats reports negative sizes: {negative}"


@programs_param()
def test_argument_size_covers_the_arguments(plugin, client, program):
    stats = _stats(plugin, compiled_program(client, program))
    needed = sum(array.nbytes for array in program.inputs())
    total = stats["argument_size_in_bytes"] + stats.get("host_argument_size_in_bytes", 0)
    assert total >= needed, (
        f"PJRT_Executable_GetCompiledMemoryStats argument_size_in_bytes={stats['argument_size_in_bytes']} "
        f"(host {stats.get('host_argument_size_in_bytes', 0)}) is less than the {needed} bytes of {program.name}'s arguments"
    )


@programs_param()
def test_output_size_covers_the_outputs(plugin, client, program):
    stats = _stats(plugin, compiled_program(client, program))
    needed = sum(array.nbytes for array in program.expected(program.inputs()))
    total = stats["output_size_in_bytes"] + stats.get("host_output_size_in_bytes", 0)
    assert total >= needed, (
        f"PJRT_Executable_GetCompiledMemoryStats output_size_in_bytes={stats['output_size_in_bytes']} "
        f"(host {stats.get('host_output_size_in_bytes', 0)}) is less than the {needed} bytes of {program.name}'s outputs"
    )
