"""junit.xml from the test records: one <testsuite> per layer, for CI systems that render JUnit.

A SHARED_DEVIATION (the plugin returns XLA's answer where XLA deviates from the spec) is a passed testcase,
neither a failure nor a skip: it meets the levels. Its `shared_deviation` property and <system-out> name the
deviation, so a CI view still shows it. Every finding carries the `defect` it was attributed to.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path
from typing import Any

from pjrt_cts.outcomes import Outcome

_FAILURE = {Outcome.FAIL, Outcome.XPASS, Outcome.FLAKY}
_ERROR = {Outcome.CRASH, Outcome.TIMEOUT, Outcome.ERROR}
_SKIPPED = {Outcome.NOT_SUPPORTED, Outcome.SKIP, Outcome.XFAIL}
_OUTCOMES = {outcome.value: outcome for outcome in Outcome}  # Outcome(value) is slow for ~17,000 records


def write_junit(tests: list[dict[str, Any]], path: Path, name: str = "pjrt-cts") -> None:
    by_layer: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for test in tests:
        by_layer[test["layer"]].append(test)
    root = ET.Element("testsuites", name=name)
    for layer in sorted(by_layer):
        cases = by_layer[layer]
        outcomes = [_OUTCOMES[t["outcome"]] for t in cases]
        suite = ET.SubElement(root, "testsuite", name=layer, tests=str(len(cases)),
                              failures=str(sum(outcome in _FAILURE for outcome in outcomes)),
                              errors=str(sum(outcome in _ERROR for outcome in outcomes)),
                              skipped=str(sum(outcome in _SKIPPED for outcome in outcomes)),
                              time=f"{sum(t['duration'] or 0 for t in cases):.3f}")
        for test in cases:
            classname, _, case_name = test["id"].rpartition(".") if "[" not in test["id"] else _split_param(test["id"])
            case = ET.SubElement(suite, "testcase", classname=classname or layer, name=case_name or test["id"],
                                 time=f"{test['duration'] or 0:.3f}")
            properties = ET.SubElement(case, "properties")
            ET.SubElement(properties, "property", name="outcome", value=test["outcome"])
            if test.get("expected"):
                ET.SubElement(properties, "property", name="expected", value=test["expected"]["outcome"])
            if test.get("defect"):
                ET.SubElement(properties, "property", name="defect", value=str(test["defect"]))
            outcome = _OUTCOMES[test["outcome"]]
            message = test.get("message") or ""
            first = message.splitlines()[0] if message else outcome.value
            if outcome is Outcome.SHARED_DEVIATION:
                deviation = str(test.get("defect") or "a deviation XLA shares")
                ET.SubElement(properties, "property", name="shared_deviation", value=deviation)
                ET.SubElement(case, "system-out").text = (
                    f"SHARED_DEVIATION ({deviation}): deviates from the StableHLO spec as XLA does"
                    + (f"\n{message}" if message else ""))
            if outcome in _FAILURE:
                ET.SubElement(case, "failure", message=f"{outcome.value}: {first}", type=outcome.value).text = message
            elif outcome in _ERROR:
                ET.SubElement(case, "error", message=f"{outcome.value}: {first}", type=outcome.value).text = message
            elif outcome in _SKIPPED:
                ET.SubElement(case, "skipped", message=f"{outcome.value}: {first}", type=outcome.value)
    tree = ET.ElementTree(root)
    ET.indent(tree)
    tree.write(path, encoding="utf-8", xml_declaration=True)


def _split_param(test_id: str) -> tuple[str, str, str]:
    """'a.b.test_x[p.q]' splits at the last dot before the parameter list."""
    base, bracket, params = test_id.partition("[")
    classname, _, name = base.rpartition(".")
    return classname, ".", name + bracket + params
