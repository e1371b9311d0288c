"""Every single-device golden case executes and matches its reference output within the case's tolerance.

A case runs as part of its program, compiled from the portable artifact a framework sends (shared with
compile.golden_programs): the program is executed once per worker and each case compares its own results.
When the plugin cannot compile or run a grouped program, the case runs its own program instead, so a rejected
op costs only its own cases. Cases needing several devices (features num_devices:N, spmd, replicas) are the
multidevice layer's and are not collected here.
"""
from __future__ import annotations

from pjrt_cts.testing import case_expected, golden_case_outputs, golden_param, mismatch_message


@golden_param()
def test_case_matches_reference(record_details, client, case):
    actual, how = golden_case_outputs(client, case)
    what = f"PJRT_LoadedExecutable_Execute of golden case {case.id} (as {how})"
    if case.spec is not None:  # the expected values are the StableHLO spec's, not XLA's (golden/README.md)
        what += f"; expected values from the StableHLO spec reference ({case.spec['section']})"
        if case.spec_vs_xla:  # a deviation XLA itself has: say so, an XLA-based plugin inherits it
            what += f"; XLA differs here too ({case.spec_vs_xla['kind']}: pjrt-cts golden list --by spec-vs-xla)"
    message, details = mismatch_message(what, actual, case_expected(case), lambda _dtype: case.tolerance)
    if details:
        record_details(dict(details, case_id=case.id, op=",".join(case.ops), expected_source=case.expected_source))
    assert message is None, message
