"""junit.xml from the test records: one <testsuite> per layer, for CI systems that render JUnit.

A SHARED_DEVIATION (the plugin returns XLA's answer where XLA deviates from the spec) is a passed testcase,
neither a failure nor a skip: it meets the levels. Its `shared_deviation` property and <system-out> name the
deviation, so a CI view still shows it. Every finding carries the `defect` it was attributed to.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path
from typing import Iterable

from pjrt_cts.judgment.outcomes import Outcome
from pjrt_cts.schema import TestRecord


def write_junit(tests: Iterable[TestRecord], path: Path, name: str = "pjrt-cts") -> None:
    by_layer: dict[str, list[TestRecord]] = defaultdict(list)
    for test in tests:
        by_layer[test.layer].append(test)
    root = ET.Element("testsuites", name=name)
    for layer in sorted(by_layer):
        cases = by_layer[layer]
        kinds = [test.outcome.junit_kind for test in cases]
        suite = ET.SubElement(root, "testsuite", name=layer, tests=str(len(cases)),
                              failures=str(kinds.count("failure")), errors=str(kinds.count("error")),
                              skipped=str(kinds.count("skipped")),
                              time=f"{sum(t.duration or 0 for t in cases):.3f}")
        for test in cases:
            classname, _, case_name = test.id.rpartition(".") if "[" not in test.id else _split_param(test.id)
            case = ET.SubElement(suite, "testcase", classname=classname or layer, name=case_name or test.id,
                                 time=f"{test.duration or 0:.3f}")
            properties = ET.SubElement(case, "properties")
            outcome = test.outcome
            ET.SubElement(properties, "property", name="outcome", value=outcome.value)
            if test.expected is not None:
                ET.SubElement(properties, "property", name="expected", value=test.expected.outcome.value)
            if test.defect:
                ET.SubElement(properties, "property", name="defect", value=test.defect)
            message = test.message
            first = message.splitlines()[0] if message else outcome.value
            if outcome is Outcome.SHARED_DEVIATION:
                deviation = test.defect or "a deviation XLA shares"
                ET.SubElement(properties, "property", name="shared_deviation", value=deviation)
                ET.SubElement(case, "system-out").text = (
                    f"SHARED_DEVIATION ({deviation}): deviates from the StableHLO spec as XLA does"
                    + (f"\n{message}" if message else ""))
            kind = outcome.junit_kind  # failure | error | skipped (pjrt_cts.judgment.outcomes), None for a pass
            if kind is not None:
                element = ET.SubElement(case, kind, message=f"{outcome.value}: {first}", type=outcome.value)
                if kind != "skipped":
                    element.text = message
    tree = ET.ElementTree(root)
    ET.indent(tree)
    tree.write(path, encoding="utf-8", xml_declaration=True)


def _split_param(test_id: str) -> tuple[str, str, str]:
    """'a.b.test_x[p.q]' splits at the last dot before the parameter list."""
    base, bracket, params = test_id.partition("[")
    classname, _, name = base.rpartition(".")
    return classname, ".", name + bracket + params
