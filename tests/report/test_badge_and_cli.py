from __future__ import annotations

import copy
import json
import xml.etree.ElementTree as ET
from pathlib import Path

from pjrt_cts.schema import Results
from pjrt_cts.cli.main import main
from pjrt_cts.report.badge import COLOR_FAILING, COLOR_LEVEL, COLOR_NONE, COLOR_TOP, badge_message, badge_svg

from .conftest import write_json

SVG = "{http://www.w3.org/2000/svg}"


SPEC_CASE = "execute.golden_cases.test_case_matches_reference[spec.maximum.nan.f32]"


def _spec_record(outcome: str, defect: str | None = None) -> dict:
    return {"id": SPEC_CASE, "nodeid": "", "layer": "execute", "outcome": outcome, "duration": 0.01,
            "message": "returns XLA's value" if defect else "", "details": {}, "tags": [], "expected": None,
            "repro": "", "defect": defect}


def test_badge_messages(synthetic, clean) -> None:
    assert badge_message(Results.from_json(synthetic)) == ("failing (8 bad)", COLOR_FAILING)
    assert [t["outcome"] for t in clean["tests"]].count("XFAIL") == 1
    assert badge_message(Results.from_json(clean)) == ("Multi-device · 1 waived defect", COLOR_TOP)
    core_only = copy.deepcopy(clean)
    core_only["tests"] = [t for t in core_only["tests"] if t["layer"] != "versioning"]
    assert badge_message(Results.from_json(core_only))[0].startswith("Core · ") and badge_message(Results.from_json(core_only))[1] == COLOR_LEVEL
    assert badge_message(Results.from_json({"tests": []})) == ("no results", COLOR_NONE)


def test_badge_shows_the_spec_mark(clean) -> None:
    """The level with the verdict's spec mark: ✓ when every spec case equals the spec, ✗ when one deviates
    (even as XLA does: a shared deviation meets the level, not the mark)."""
    exact = copy.deepcopy(clean)
    exact["tests"].append(_spec_record("PASS"))
    assert badge_message(Results.from_json(exact))[0] == "Multi-device · spec ✓ · 1 waived defect"
    shared = copy.deepcopy(clean)
    shared["tests"] = [t for t in shared["tests"] if t["outcome"] != "XFAIL"]
    shared["tests"].append(_spec_record("SHARED_DEVIATION", "nan-not-propagated-by-max-min"))
    assert badge_message(Results.from_json(shared)) == ("Multi-device · spec ✗", COLOR_TOP)
    root = ET.fromstring(badge_svg(Results.from_json(shared)))
    assert root.find(f"{SVG}title").text == "PJRT conformance: Multi-device · spec ✗"


def test_badge_is_valid_svg_with_escaped_text(clean) -> None:
    root = ET.fromstring(badge_svg(Results.from_json(clean), label="PJRT <cpu> & co"))
    assert root.tag == f"{SVG}svg" and int(root.attrib["width"]) > 100
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert "PJRT <cpu> & co" in texts
    assert root.find(f"{SVG}title").text.startswith("PJRT <cpu> & co: Multi-device")


def test_badge_grows_with_its_text(clean) -> None:
    short = ET.fromstring(badge_svg(Results.from_json(clean), label="x"))
    long = ET.fromstring(badge_svg(Results.from_json(clean), label="a much longer label"))
    assert int(long.attrib["width"]) > int(short.attrib["width"])


def test_cli_badge_report_and_diff(tmp_path: Path, synthetic, clean, capsys) -> None:
    (tmp_path / "old").mkdir()
    old = write_json(tmp_path / "old" / "results.json", synthetic)
    new = write_json(tmp_path / "new.json", clean)
    assert main(["badge", str(new), "-o", str(tmp_path / "b.svg")]) == 0
    ET.parse(tmp_path / "b.svg")
    assert main(["report", str(old)]) == 0
    assert (tmp_path / "old" / "report.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert main(["report", str(new), "-o", str(tmp_path / "r" / "x.html")]) == 0
    assert (tmp_path / "r" / "x.html").is_file()
    capsys.readouterr()
    assert main(["diff", str(old), str(new), "--format", "json"]) == 0
    diff = json.loads(capsys.readouterr().out)
    bad = sum(1 for t in synthetic["tests"] if t["outcome"] in ("FAIL", "CRASH", "TIMEOUT", "XPASS", "ERROR"))
    not_supported = sum(1 for t in synthetic["tests"] if t["outcome"] == "NOT_SUPPORTED")
    assert diff["kind_counts"]["fix"] == bad  # make_clean turned each bad result into PASS
    assert diff["kind_counts"]["coverage gain"] == not_supported
    assert main(["diff", str(old), str(new), "--format", "markdown"]) == 0
    assert "| test" in capsys.readouterr().out
    assert main(["report", str(tmp_path / "nope.json")]) == 2
