"""Every single-device golden case executes and matches its reference output within the case's tolerance.

Cases needing several devices (features num_devices:N, spmd, replicas) are the multidevice layer's and are
not collected here. Executables are compiled from the case's StableHLO text once per worker (shared with
compile.golden_programs.test_golden_program_compiles_from_text).
"""
from __future__ import annotations

from pjrt_cts.testing import case_expected, compiled_golden, golden_param, mismatch_message, run_golden


@golden_param()
def test_case_matches_reference(record_details, client, case):
    executable = compiled_golden(client, case, "text")
    actual = run_golden(executable, client, case)
    message, details = mismatch_message(f"PJRT_LoadedExecutable_Execute of golden case {case.id}",
                                        actual, case_expected(case), lambda _dtype: case.tolerance)
    if details:
        record_details(dict(details, case_id=case.id, op=",".join(case.ops)))
    assert message is None, message
