"""The short wire form of a passed phase report (pjrt_cts.runner.files.report_wire): what it keeps, what it leaves to
pytest's own form, and that a pass read back is the pass written."""
from __future__ import annotations

from typing import Any

import pytest

from pjrt_cts.runner.files import report_wire


def _report(**changes: Any) -> pytest.TestReport:
    fields: dict[str, Any] = dict(
        nodeid="suites/execute/test_x.py::test_y[a]", location=("suites/execute/test_x.py", 12, "test_y[a]"),
        keywords={"test_y[a]": 1, "execute": 1}, outcome="passed", longrepr=None, when="call", sections=[],
        duration=0.25, start=10.0, stop=10.25, user_properties=[])
    fields.update(changes)
    return pytest.TestReport(**fields)


def test_a_pass_read_back_is_the_pass_written() -> None:
    report = _report(pjrt_cts={"details": {"max_abs_err": 0.0}, "tags": ["golden"]})
    data = report_wire.pytest_report_to_serializable(report)
    assert data is not None and data["$report_type"] == "TestReport" and "keywords" not in data
    data["item_index"] = 7  # what xdist adds after the hook
    back = report_wire.pytest_report_from_serializable(data)
    assert back is not None
    for field in ("nodeid", "location", "outcome", "when", "duration", "start", "stop", "longrepr", "sections",
                  "user_properties", "pjrt_cts", "item_index"):
        assert getattr(back, field) == getattr(report, field, 7), field


@pytest.mark.parametrize("changes", [
    {"outcome": "failed", "longrepr": "boom"},
    {"outcome": "skipped", "longrepr": ("x.py", 1, "NOT_SUPPORTED: no slot")},
    {"sections": [("Captured stdout call", "hello")]},
    {"user_properties": [("key", "value")]},
], ids=["failed", "skipped", "sections", "user-properties"])
def test_every_other_report_keeps_pytests_form(changes: dict[str, Any]) -> None:
    report = _report(**changes)
    assert report_wire.pytest_report_to_serializable(report) is None
    assert report_wire.pytest_report_from_serializable({"$report_type": "TestReport", "nodeid": "x"}) is None
