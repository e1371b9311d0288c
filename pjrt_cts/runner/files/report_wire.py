"""The wire form of a passed phase report: what a worker sends the controller (through xdist) and a child its worker
(through its reports file) for the ~95 % of phase reports that are a plain pass.

pytest's own form (`pytest_report_to_serializable`) carries the item's keywords (every marker, parametrization id and
parent name), its sections and user properties, and costs ~37 µs to write and ~41 µs to read per report, three reports a
test. Nothing reads those fields of a passed report here (the controller's records take outcome, phase, times and the
`pjrt_cts` fields), so a pass without sections or user properties travels as those alone, about half the cost on each
side; every other report keeps pytest's form. Both hooks are pytest's public ones; this module is registered in every
process that loads the runner's plugin, whatever its role (runner/worker/plugin.py), so each side reads what the other writes.

PYTEST_DONT_REWRITE: its asserts stay as written (tests/house/test_asserts_as_written.py says why).
"""
from __future__ import annotations

from typing import Any

import pytest

PASSED_PHASE = "pjrt-cts-passed-phase"  # the marker of the short form; `$report_type` as in pytest's, for its readers
_FIELDS = frozenset({"$report_type", PASSED_PHASE, "nodeid", "location", "when", "duration", "start", "stop"})


@pytest.hookimpl(tryfirst=True)
def pytest_report_to_serializable(report: Any) -> dict[str, Any] | None:
    if (type(report) is not pytest.TestReport or report.outcome != "passed" or report.longrepr is not None
            or report.sections or report.user_properties):
        return None  # pytest's form
    data: dict[str, Any] = {"$report_type": "TestReport", PASSED_PHASE: 1, "nodeid": report.nodeid,
                            "location": report.location, "when": report.when, "duration": report.duration,
                            "start": report.start, "stop": report.stop}
    fields = getattr(report, "pjrt_cts", None)
    if fields:
        data["pjrt_cts"] = fields
    return data


@pytest.hookimpl(tryfirst=True)
def pytest_report_from_serializable(data: dict[str, Any]) -> pytest.TestReport | None:
    if PASSED_PHASE not in data:
        return None
    location = data["location"]
    # The rest become attributes, as in pytest's form: the `pjrt_cts` fields (worker/outcomes.py) and what xdist adds.
    extra = {key: value for key, value in data.items() if key not in _FIELDS}
    return pytest.TestReport(nodeid=data["nodeid"], location=(location[0], location[1], location[2]), keywords={},
                             outcome="passed", longrepr=None, when=data["when"], sections=[],
                             duration=data["duration"], start=data["start"], stop=data["stop"], user_properties=[],
                             **extra)
