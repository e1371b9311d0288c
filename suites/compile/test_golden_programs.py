"""Every single-device golden program compiles from StableHLO text and from a portable artifact.

- From text: PJRT_Client_Compile succeeds and the executable's output signature (NumOutputs,
  OutputElementTypes, OutputDimensions) is the manifest's.
- From bytecode: the portable artifact a framework sends (the newest the plugin declares readable, versioned
  StableHLO targeting its `stablehlo_current_version`) compiles, runs and matches the reference.
- Every artifact version, for one case per family: each version compiles and matches. A version outside the
  plugin's declared [stablehlo_minimum_version, stablehlo_current_version] is still tried; only if that attempt
  fails is it NOT_SUPPORTED (the declaration explains the failure, it never replaces the attempt).
UNIMPLEMENTED from PJRT_Client_Compile is NOT_SUPPORTED, naming the plugin's message. Multi-device cases
(num_devices:N, spmd, replicas) belong to the multidevice layer and are not collected.
"""
from __future__ import annotations

from typing import Any, Callable

from pjrt_cts.golden import dtypes as golden_dtypes
from pjrt_cts.runtime import buffer_type_of
from pjrt_cts.testing import (case_expected, compiled_golden, framework_artifact_version, golden_param,
                              golden_version_param, mismatch_message, one_case_per_family, run_golden)


def _check_matches(record_details: Callable[..., None], client: Any, case: Any, executable: Any, what: str) -> None:
    actual = run_golden(executable, client, case)
    message, details = mismatch_message(f"PJRT_LoadedExecutable_Execute of golden case {case.id} {what}",
                                        actual, case_expected(case), lambda _dtype: case.tolerance)
    if details:
        record_details(dict(details, case_id=case.id, op=",".join(case.ops)))
    assert message is None, message


@golden_param()
def test_golden_program_compiles_from_text(client, case):
    executable = compiled_golden(client, case, "text")
    expected_dims = [tuple(spec["shape"]) for spec in case.output_specs]
    expected_types = [buffer_type_of(golden_dtypes.dtype_of(spec["dtype"])) for spec in case.output_specs]
    assert executable.num_outputs == len(case.output_specs), (
        f"PJRT_Executable_NumOutputs of golden case {case.id}: {executable.num_outputs}, the program returns "
        f"{len(case.output_specs)}"
    )
    assert executable.output_dimensions == expected_dims, (
        f"PJRT_Executable_OutputDimensions of golden case {case.id}: {executable.output_dimensions}, "
        f"the manifest says {expected_dims}"
    )
    assert executable.output_element_types == expected_types, (
        f"PJRT_Executable_OutputElementTypes of golden case {case.id}: "
        f"{[getattr(t, 'name', t) for t in executable.output_element_types]}, "
        f"the manifest says {[t.name for t in expected_types]}"
    )


@golden_param()
def test_golden_program_compiles_from_bytecode(record_details, plugin, client, case):
    version = framework_artifact_version(plugin, case)
    _check_matches(record_details, client, case, compiled_golden(client, case, version),
                   f"compiled from its {version} portable artifact")


@golden_version_param(one_case_per_family())
def test_golden_artifact_version_compiles(record_details, client, case, version):
    _check_matches(record_details, client, case, compiled_golden(client, case, version),
                   f"compiled from its {version} portable artifact")
