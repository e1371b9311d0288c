"""Every single-device golden case executes and matches its reference output within the case's tolerance.

A case runs as part of its program, compiled from the portable artifact a framework sends (shared with
compile.golden_programs): the program is executed once per worker and each case compares its own results.
When the plugin cannot compile or run a grouped program, the case runs its own program instead, so a rejected
op costs only its own cases. Cases needing several devices (features num_devices:N, spmd, replicas) are the
multidevice layer's and are not collected here.

A `spec` case whose expected value is the StableHLO spec's and where XLA itself deviates (`spec_vs_xla`): a
plugin that returns exactly XLA's value, or rejects the program as XLA does, is SHARED_DEVIATION (the semantics
JAX users get; pjrt_cts.testing.deviations). A wrong value is diagnosed against the known deviations either way.
"""
from __future__ import annotations

from pjrt_cts.runtime import PjrtError
from pjrt_cts.testing import (case_expected, case_inputs, case_xla_expected, golden_case_outputs, golden_param,
                              mismatch_message)
from pjrt_cts.testing.deviations import judge_mismatch, raise_if_rejected_as_by_xla


@golden_param()
def test_case_matches_reference(record_details, client, case):
    try:
        actual, how = golden_case_outputs(client, case)
    except PjrtError as error:
        raise_if_rejected_as_by_xla(case, error)
        raise
    what = f"PJRT_LoadedExecutable_Execute of golden case {case.id} (as {how})"
    if case.spec is not None:  # the expected values are the StableHLO spec's, not XLA's (golden/README.md)
        what += f"; expected values from the StableHLO spec reference ({case.spec['section']})"
        if case.spec_vs_xla:  # a deviation XLA itself has: say so, an XLA-based plugin inherits it
            what += f"; XLA differs here too ({case.spec_vs_xla['kind']}: pjrt-cts golden list --by spec-vs-xla)"
    message, details = mismatch_message(what, actual, case_expected(case), lambda _dtype: case.tolerance)
    if details:
        record_details(dict(details, case_id=case.id, op=",".join(case.ops), expected_source=case.expected_source))
    if message is not None:
        judge_mismatch(case, actual, message, inputs=lambda: case_inputs(case), xla_expected=lambda: case_xla_expected(case),
                       record_details=record_details,
                       mismatch=lambda got, xla: mismatch_message(what, got, xla, lambda _dtype: case.tolerance)[0])
