"""A NOT_SUPPORTED decided by what the plugin reports about itself (`unsupported_by = "reported"`) is no SKIP: the
verdict line counts it (pjrt_cts.judgment.verdict)."""
from __future__ import annotations

from pjrt_cts.judgment.verdict import judge_results
from pjrt_cts.schema import Results


def test_the_line_counts_tests_not_supported_by_the_plugins_report(clean) -> None:
    clean["tests"].append({"id": "multiprocess.coexistence.test_two_nodes", "layer": "multiprocess",
                           "outcome": "NOT_SUPPORTED", "details": {"unsupported_by": "reported"},
                           "message": "no multi-node scheme: PJRT_Client_PlatformName answered 'host'"})
    judged = judge_results(Results.from_json(clean))
    assert judged.by_report == 1
    assert judged.line() == ("CONFORMANT · level Multi-device · 1 waived defect (1 test) · 1 test NOT_SUPPORTED by "
                             "what the plugin reports")
