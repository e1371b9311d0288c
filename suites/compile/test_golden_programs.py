"""Every single-device golden program compiles from StableHLO text and from a portable artifact.

- From text: PJRT_Client_Compile succeeds and the executable's output signature (NumOutputs,
  OutputElementTypes, OutputDimensions) is the manifest's.
- From bytecode: the newest portable artifact the plugin can read (what JAX sends: versioned StableHLO
  targeting the plugin's `stablehlo_current_version`) compiles, runs and matches the reference.
- Every artifact version, for one case per family: each version the plugin declares readable compiles and
  matches; versions outside [stablehlo_minimum_version, stablehlo_current_version] are NOT_SUPPORTED.
Multi-device cases (num_devices:N, spmd, replicas) belong to the multidevice layer and are not collected.
"""
from __future__ import annotations

import pytest

from _programs import (artifact_unreadable_reason, compiled_golden, golden_param, golden_version_params,
                       mismatch_message, newest_readable_version, one_case_per_family, record_details, run_golden)
from pjrt_cts.golden import dtypes as golden_dtypes
from pjrt_cts.model import NotSupported
from pjrt_cts.runtime import buffer_type_of


def _check_matches(request, client, case, executable, what: str) -> None:
    actual = run_golden(executable, client, case)
    message, details = mismatch_message(f"PJRT_LoadedExecutable_Execute of golden case {case.id} {what}",
                                        actual, case.expected(), lambda _dtype: case.tolerance)
    if details:
        record_details(request, dict(details, case_id=case.id, op=",".join(case.ops)))
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
def test_golden_program_compiles_from_bytecode(request, plugin, client, case):
    version = newest_readable_version(plugin, case)
    _check_matches(request, client, case, compiled_golden(client, case, version),
                   f"compiled from its {version} portable artifact")


@pytest.mark.parametrize("case,version", golden_version_params(one_case_per_family()))
def test_golden_artifact_version_compiles(request, plugin, client, case, version):
    reason = artifact_unreadable_reason(plugin, case, version)
    if reason is not None:
        raise NotSupported(reason)
    _check_matches(request, client, case, compiled_golden(client, case, version),
                   f"compiled from its {version} portable artifact")
