"""Every single-device golden program compiles from the portable artifact a framework sends, with the
output signature the manifest records; representative cases compile alone; the StableHLO text and every
artifact version compile for a sample.

What a plugin compiles is a *program*: the corpus packs the cases of one family and element-type class into
programs of up to 128 cases whose arguments and results are the cases' (golden/README.md, "Packed programs");
other cases are their own program. The execute layer checks every case's results.

- From bytecode: the artifact a framework sends (the newest the plugin declares readable, versioned StableHLO
  targeting its `stablehlo_current_version`) compiles; NumOutputs, OutputElementTypes and OutputDimensions are
  the manifest's. A pack that does not compile fails here, naming which of its cases the plugin also rejects on
  their own (those cases' execute tests report them too).
- Alone: one packed f32 case per op x element types also compiles as its own program (a pack that compiles can
  never hide a plugin that rejects the op in a program of its own).
- From text: one case's program per family (text is not a compatibility format; frameworks send bytecode).
- Every artifact version, for one case's program per family: each version compiles and matches the reference. A
  version outside the plugin's declared [stablehlo_minimum_version, stablehlo_current_version] is still tried;
  only if that attempt fails is it NOT_SUPPORTED (the declaration explains the failure, never replaces it).
UNIMPLEMENTED from PJRT_Client_Compile is NOT_SUPPORTED, naming the plugin's message. A `spec` program that XLA
itself rejects (the manifest's spec_vs_xla) and the plugin rejects too is SHARED_DEVIATION. Multi-device cases
(num_devices:N, spmd, replicas) belong to the multidevice layer and are not collected.
"""
from __future__ import annotations

from typing import Any, Callable

from pjrt_cts.testing.deviations import raise_if_rejected_as_by_xla
from pjrt_cts.testing.signatures import check_output_signature
from pjrt_cts.runtime import PjrtError
from pjrt_cts.testing import (attempt, case_expected, compiled_for_framework, compiled_golden, golden_param,
                              golden_program_param, golden_version_param, mismatch_message, one_program_per_family,
                              read_case, representative_cases, run, run_golden)


def _members_rejected_alone(client: Any, program: Any) -> list[str]:
    """The cases of a grouped program that the plugin also fails to compile as their own programs."""
    rejected = []
    for case in program.cases:
        try:
            compiled_for_framework(client, case)
        except PjrtError as error:
            rejected.append(f"{case.id} ({error.code})")
    return rejected


@golden_program_param()
def test_golden_program_compiles(client, program):
    try:
        with attempt(program):  # a compile that kills the worker sends the cases to their own programs
            executable, version = compiled_for_framework(client, program)
    except PjrtError as error:
        raise_if_rejected_as_by_xla(program, error)  # XLA rejects this valid program too: SHARED_DEVIATION
        if not program.grouped:
            raise
        alone = _members_rejected_alone(client, program)
        explained = (f"; compiled alone, the plugin also rejects {len(alone)} of its {len(program.cases)} cases: "
                     f"{', '.join(alone[:5])}{' ...' if len(alone) > 5 else ''}" if alone else
                     f"; yet each of its {len(program.cases)} cases compiles on its own")
        raise AssertionError(f"packed golden program {program.id}: {error}{explained}") from None
    check_output_signature(program, executable, f"from its {version} portable artifact")


@golden_param(cases=representative_cases())
def test_case_compiles_alone(client, case):
    from pjrt_cts.golden.corpus import GoldenProgram

    executable, version = compiled_for_framework(client, case)
    check_output_signature(GoldenProgram.of_case(case), executable, f"alone, from its {version} portable artifact")


@golden_program_param(programs=one_program_per_family())
def test_golden_program_compiles_from_text(client, program):
    check_output_signature(program, compiled_golden(client, program, "text"), "from StableHLO text")


def _check_matches(record_details: Callable[..., None], client: Any, program: Any, executable: Any, what: str) -> None:
    if program.grouped:
        outputs = run(executable, client, read_case(program, "inputs", program.inputs))
    else:  # a case's own program may fix argument layouts
        outputs = run_golden(executable, client, program.cases[0])
    for case in program.cases:
        actual = [outputs[index] for index in program.output_range(case)]
        message, details = mismatch_message(f"PJRT_LoadedExecutable_Execute of golden case {case.id} (program "
                                            f"{program.id}) {what}", actual, case_expected(case),
                                            lambda _dtype: case.tolerance)  # noqa: B023 - called within this iteration
        if details:
            record_details(dict(details, case_id=case.id, op=",".join(case.ops)))
        assert message is None, message


@golden_version_param(one_program_per_family(), "program,version")
def test_golden_artifact_version_compiles(record_details, client, program, version):
    _check_matches(record_details, client, program, compiled_golden(client, program, version),
                   f"compiled from its {version} portable artifact")
