"""junit.xml: a deviation shared with XLA is a passed testcase that names the deviation; findings name defects."""
from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from pjrt_cts.runner.files.junit import write_junit
from pjrt_cts.schema import TestRecord


def _record(name: str, outcome: str, defect: str | None = None, expected: dict | None = None) -> TestRecord:
    return TestRecord.from_json({
        "id": f"execute.golden_cases.test_{name}[spec.maximum.nan.f32]", "layer": "execute", "outcome": outcome,
        "duration": 0.25, "message": f"{outcome}: returns the non-NaN operand", "expected": expected, "defect": defect})


def test_shared_deviation_is_a_passed_testcase_naming_the_deviation(tmp_path: Path) -> None:
    tests = [_record("shared", "SHARED_DEVIATION", "nan-not-propagated-by-max-min"),
             _record("waived", "XFAIL", "subnormals-flushed", {"outcome": "XFAIL", "actual": "FAIL"}),
             _record("passed", "PASS")]
    write_junit(tests, tmp_path / "junit.xml")
    suite = ET.parse(tmp_path / "junit.xml").getroot()[0]
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors"), suite.get("skipped")) == ("3", "0", "0", "1")
    shared = suite.find("testcase[@name='test_shared[spec.maximum.nan.f32]']")
    assert shared is not None
    assert [child.tag for child in shared] == ["properties", "system-out"]  # neither failure nor skipped
    properties = {p.get("name"): p.get("value") for p in shared.iter("property")}
    assert properties == {"outcome": "SHARED_DEVIATION", "defect": "nan-not-propagated-by-max-min",
                          "shared_deviation": "nan-not-propagated-by-max-min"}
    assert shared.find("system-out").text.startswith(
        "SHARED_DEVIATION (nan-not-propagated-by-max-min): deviates from the StableHLO spec as XLA does")
    waived = suite.find("testcase[@name='test_waived[spec.maximum.nan.f32]']")
    assert waived.find("skipped") is not None
    assert {p.get("name"): p.get("value") for p in waived.iter("property")}["defect"] == "subnormals-flushed"
    passed = suite.find("testcase[@name='test_passed[spec.maximum.nan.f32]']")
    assert [p.get("name") for p in passed.iter("property")] == ["outcome"]
