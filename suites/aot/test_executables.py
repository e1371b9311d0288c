"""Executables compiled without a device: the hand-written programs (pjrt_cts.testing.PROGRAMS) compiled by
PJRT_Compile for this layer's `topology` (the run's first created topology, else the client's own), each once per
worker and cached; the tests that compile again compile their own.

What a framework reads of an ahead-of-time executable before any device exists: its name, replica and partition
counts, outputs (count, dimensions, element types, memory kinds), its fingerprint (the same for two compiles of one
program, different for different programs), its serialization (bytes; the same bytes for two compiles where the
fingerprints say they are the same executable), cost analysis, compiled memory stats and optimized program. The
optional functions (Fingerprint, cost analysis, memory stats, OptimizedProgram, OutputMemoryKinds) may answer
UNIMPLEMENTED (NOT_SUPPORTED); a wrong answer is a FAIL.
"""
from __future__ import annotations

from typing import Any

from pjrt_cts.judgment.outcomes import HardeningFinding
from pjrt_cts.runtime import buffer_type_of
from pjrt_cts.testing import (PROGRAMS, compile_cached, not_applicable, programs_param, requires,
                              unsupported_if_unimplemented)
from pjrt_cts.testing.executable_checks import (check_cost_counts, check_cost_names_unique, check_cost_properties_typed,
                                                check_memory_stats_cover, check_memory_stats_not_negative,
                                                check_optimized_program, compiled_memory_stats, cost_analysis,
                                                optimized_module_name, optimized_program, output_memory_kinds)

WHERE = "compiled by PJRT_Compile for a topology"


def _compiled(topology: Any, program: Any) -> Any:
    with unsupported_if_unimplemented("PJRT_Compile"):
        return compile_cached(topology, ("aot", program.name), lambda: topology.compile(program.text))


def _fingerprint(executable: Any) -> str:
    with unsupported_if_unimplemented("PJRT_Executable_Fingerprint"):
        return str(executable.fingerprint)


@programs_param()
def test_signature_is_the_programs(topology, program):
    executable = _compiled(topology, program)
    expected = program.expected(program.inputs())
    seen = (executable.name, executable.num_replicas, executable.num_partitions, executable.num_outputs,
            executable.output_dimensions, executable.output_element_types)
    wanted = (program.name, 1, 1, len(expected), [tuple(array.shape) for array in expected],
              [buffer_type_of(array.dtype) for array in expected])
    assert seen == wanted, (
        f"PJRT_Executable_Name / NumReplicas / NumPartitions / NumOutputs / OutputDimensions / OutputElementTypes of "
        f"{program.name} {WHERE}: {seen}, the program's are {wanted}")


@requires("Executable_OutputMemoryKinds")
@programs_param()
def test_output_memory_kinds_are_one_named_kind(topology, program):
    """No program here places an output in another memory: each output has the same, named kind."""
    executable = _compiled(topology, program)
    kinds = output_memory_kinds(executable)
    assert len(kinds) == executable.num_outputs and all(kinds) and len(set(kinds)) <= 1, (
        f"PJRT_Executable_OutputMemoryKinds of {program.name} {WHERE}: {kinds} for {executable.num_outputs} outputs "
        "(one non-empty kind per output, the same for all: the program places none elsewhere)")


@requires("Executable_Serialize")
@programs_param()
def test_serialize_returns_bytes(topology, program):
    assert _compiled(topology, program).serialize(), f"PJRT_Executable_Serialize of {program.name} {WHERE} returned no bytes"


@requires("Executable_Fingerprint")
@programs_param()
def test_fingerprint_is_stable_across_compiles(topology, program):
    first = _fingerprint(_compiled(topology, program))
    with topology.compile(program.text) as again:
        second = _fingerprint(again)
    assert first == second, (
        f"PJRT_Executable_Fingerprint of two compiles of {program.name} {WHERE} differ: {first!r} vs {second!r}")


@requires("Executable_Fingerprint")
def test_fingerprints_of_different_programs_differ(topology):
    seen: dict[str, str] = {}
    for program in PROGRAMS:
        value = _fingerprint(_compiled(topology, program))
        assert value not in seen, (
            f"PJRT_Executable_Fingerprint {value!r} {WHERE} is shared by {seen.get(value)} and {program.name}")
        seen[value] = program.name


@requires("Executable_Fingerprint", "Executable_Serialize")
@programs_param()
def test_serialization_is_stable_where_fingerprints_are(topology, program):
    """Two compiles the plugin fingerprints alike are one executable, and a build that ships serialized executables
    wants them reproducible: other bytes are a WARNING (the header promises no byte-identical serialization)."""
    executable = _compiled(topology, program)
    with topology.compile(program.text) as again:
        if _fingerprint(again) != _fingerprint(executable):
            not_applicable("the two compiles' fingerprints differ: the plugin does not say they are one executable "
                           "(test_fingerprint_is_stable_across_compiles reports it)")
        first, second = executable.serialize(), again.serialize()
    if first != second:
        at = next((i for i, (a, b) in enumerate(zip(first, second)) if a != b), min(len(first), len(second)))
        raise HardeningFinding(f"PJRT_Executable_Serialize of two compiles of {program.name} {WHERE} with the same "
                               f"PJRT_Executable_Fingerprint differ ({len(first)} and {len(second)} bytes, first "
                               f"difference at byte {at}): the serialization is not reproducible")


@requires("Executable_GetCostAnalysis")
@programs_param()
def test_cost_analysis_is_typed_unique_and_not_negative(topology, program):
    items = cost_analysis(_compiled(topology, program))
    check_cost_properties_typed(items)
    check_cost_names_unique(items)
    check_cost_counts(items)


@requires("Executable_GetCompiledMemoryStats")
@programs_param()
def test_memory_stats_are_not_negative_and_cover_the_program(topology, program):
    stats = compiled_memory_stats(_compiled(topology, program))
    check_memory_stats_not_negative(stats)
    inputs = program.inputs()
    check_memory_stats_cover(stats, "argument", sum(array.nbytes for array in inputs), program.name)
    check_memory_stats_cover(stats, "output", sum(array.nbytes for array in program.expected(inputs)), program.name)


@requires("Executable_OptimizedProgram")
@programs_param()
def test_optimized_program_parses(topology, program):
    """The optimized program has a known format; in an HLO format its HloModuleProto parses and is the program's."""
    fmt, code = optimized_program(_compiled(topology, program))
    check_optimized_program(fmt, code)
    name = optimized_module_name(fmt, code)
    assert name == program.name, (
        f"PJRT_Executable_OptimizedProgram of {program.name} {WHERE}: the HloModuleProto is named {name!r}")
