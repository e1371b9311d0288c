"""Every golden program compiled by PJRT_Compile for each topology of the run, without a client or a device: the
portable artifact a framework sends compiles, and the executable's name, replica and partition counts, output count,
dimensions and element types are the program's (the compile layer's checks, pjrt_cts.testing.signatures).

- Every single-device program (packs and the cases that are their own program), for every topology.
- Alone: one packed f32 case per op x element types as its own program (a pack that compiles cannot hide an op the
  plugin rejects alone), for every topology.
- Every format: one case's program per family from its text and from every portable artifact version it ships.
- Multi-device: every replicated and SPMD program, with its device assignment over the first devices of the
  multi-device topology (its multi-device variant where the profile gives one); a program needing more devices than
  every topology has is NOT_SUPPORTED.

Nothing runs. UNIMPLEMENTED from PJRT_Compile is NOT_SUPPORTED; a program XLA itself rejects (spec_vs_xla) rejected
alike is SHARED_DEVIATION; any other error names the program, the topology and the plugin's answer. A compile that
aborted XLA when the corpus was generated runs in a child process (`isolated`), as in the compile layer. Each test
records the topologies it compiled for (`details.compiled_for`: label -> the source compiled), which the run's AOT note
counts.
"""
from __future__ import annotations

from typing import Any, Callable

import pytest

from pjrt_cts.golden.corpus import GoldenProgram
from pjrt_cts.runtime import PjrtError, buffer_type_of
from pjrt_cts.runtime.compile_options import compile_options_bytes
from pjrt_cts.testing.corpus import (compiled_for_topology, golden_program_param, golden_version_param,
                                     multi_device_programs, one_program_per_family, read_case, representative_cases)
from pjrt_cts.testing.deviations import raise_if_rejected_as_by_xla
from pjrt_cts.testing.requirements import unsupported_for_devices
from pjrt_cts.testing.signatures import check_name, check_output_signature

# A 128-case pack compiled for every topology of the run: libtpu 0.0.52 takes 224 s of one core for
# linalg.pack_complex_0 per topology (118 s elementwise.pack_complex_0, 106 s linalg.pack_wide_0), several times
# that on a loaded 2-core CI machine: far more than the run's default 120 s.
pytestmark = pytest.mark.timeout(1800)


def _compile_for_each(aot_topologies: list[Any], program: Any, record_details: Callable[..., None], *,
                      source: str | None = None, multi_device: bool = False) -> None:
    """Compile `program` for every topology that has its devices; check each executable; record where it compiled."""
    case = program.cases[0]
    devices = case.num_replicas * case.num_partitions if multi_device else 1
    compiled: dict[str, str] = {}
    targets = [(t.label, t.multi if multi_device else t.single) for t in aot_topologies]
    fitting = [(label, topology) for label, topology in targets if len(topology.device_descriptions) >= devices]
    if not fitting:
        unsupported_for_devices(f"{program.id} needs {devices} devices; the run's topologies have "
                                + ", ".join(f"{label}: {len(t.device_descriptions)}" for label, t in targets))
    for label, topology in fitting:
        how = f"for topology {label}"
        options = _multi_device_options(case, topology) if multi_device else None
        try:
            executable, version = compiled_for_topology(topology, program, source, options)
        except PjrtError as error:
            raise_if_rejected_as_by_xla(program, error)  # XLA rejects this valid program too: SHARED_DEVIATION
            raise AssertionError(f"PJRT_Compile of golden program {program.id} {how} (from its "
                                 f"{source or 'framework'} artifact): {error.code}: {error.message}") from None
        with executable:
            how += f", from its {version} artifact"
            check_name(program, executable, how)
            _check_counts(program, executable, how, case if multi_device else None)
            if multi_device:
                _check_device_outputs(program, executable, how)
            else:
                check_output_signature(program, executable, how)
        compiled[label] = version
        record_details(compiled_for=dict(compiled))


def _multi_device_options(case: Any, topology: Any) -> bytes:
    """Replica r, partition p on the topology's device r * partitions + p, as the multidevice layer assigns them."""
    ids = [description.id for description in topology.device_descriptions]
    replicas, partitions = case.num_replicas, case.num_partitions
    assignment = [[ids[r * partitions + p] for p in range(partitions)] for r in range(replicas)]
    return compile_options_bytes(replicas, partitions, assignment, case.use_spmd_partitioning)


def _check_counts(program: Any, executable: Any, how: str, case: Any) -> None:
    expected = (case.num_replicas, case.num_partitions) if case is not None else (1, 1)
    counts = (executable.num_replicas, executable.num_partitions)
    assert counts == expected, (
        f"PJRT_Executable_NumReplicas / NumPartitions of golden program {program.id} ({how}): {counts}, the program "
        f"asks for {expected}")


def _check_device_outputs(program: Any, executable: Any, how: str) -> None:
    """A multi-device program's outputs are one device's: the shapes and types of its expected row."""
    row = read_case(program.cases[0], "expected outputs", program.cases[0].expected_rows)[0]
    expected = ([tuple(array.shape) for array in row], [buffer_type_of(array.dtype) for array in row])
    seen = (executable.output_dimensions, executable.output_element_types) if executable.num_outputs == len(row) else None
    assert seen == expected, (
        f"PJRT_Executable_NumOutputs / OutputDimensions / OutputElementTypes of golden program {program.id} ({how}): "
        f"{executable.num_outputs} outputs {seen}, one device's outputs are {len(row)}: {expected}")


@golden_program_param()
def test_golden_program_compiles_for_topology(aot_topologies, program, record_details):
    _compile_for_each(aot_topologies, program, record_details)


@golden_program_param("case", programs=[GoldenProgram.of_case(case) for case in representative_cases()])
def test_case_compiles_alone_for_topology(aot_topologies, case, record_details):
    _compile_for_each(aot_topologies, case, record_details)


@golden_version_param(one_program_per_family(), "program,version")
def test_golden_artifact_version_compiles_for_topology(aot_topologies, program, version, record_details):
    _compile_for_each(aot_topologies, program, record_details, source=version)


@golden_program_param(programs=one_program_per_family())
def test_golden_program_compiles_for_topology_from_text(aot_topologies, program, record_details):
    _compile_for_each(aot_topologies, program, record_details, source="text")


@golden_program_param(programs=multi_device_programs())
def test_multi_device_program_compiles_for_topology(aot_topologies, program, record_details):
    _compile_for_each(aot_topologies, program, record_details, multi_device=True)
