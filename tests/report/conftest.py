"""Shared fixtures: a realistic synthetic results.json and helpers to derive variants from it."""
from __future__ import annotations

import copy
import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from pjrt_cts.judgment.levels import all_mandatory_ids
from pjrt_cts.judgment.contradictions import FAILURE_DETAILS, NO_FINDING
from pjrt_cts.judgment.outcomes import BAD_OUTCOMES, Outcome
from pjrt_cts.profiles import get_profile

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: runs the real suite against the bundled plugin (seconds, not ms)")
SYNTHETIC = FIXTURES / "synthetic_results.json"


def load_synthetic() -> dict[str, Any]:
    return json.loads(SYNTHETIC.read_text(encoding="utf-8"))


def record_of(results: dict[str, Any], test_id: str) -> dict[str, Any]:
    matches = [test for test in results["tests"] if test["id"] == test_id]
    assert len(matches) == 1, f"{test_id} is not exactly once in the results"
    return matches[0]


def set_outcome(results: dict[str, Any], test_id: str, outcome: Outcome, message: str = "") -> dict[str, Any]:
    """The test's record as the runner would write it with `outcome`: no finding's evidence on a record that is no
    finding (pjrt_cts.judgment.contradictions), and the summary's counts restated."""
    restate(record_of(results, test_id), outcome, message)
    return recount(results)


def restate(record: dict[str, Any], outcome: Outcome, message: str) -> None:
    """`record` given `outcome` as the runner would write it: a record that is no finding keeps no defect and no
    failure's details; a second observation and an expectation belong to the outcome they were made for."""
    record["outcome"] = outcome.value
    record["message"] = message
    record["confirmation"] = None
    if outcome in NO_FINDING:
        record["defect"] = None
        record["details"] = {key: value for key, value in (record.get("details") or {}).items()
                             if key not in FAILURE_DETAILS}
    if outcome not in (Outcome.XFAIL, Outcome.XPASS):
        record["expected"] = None


def recount(results: dict[str, Any]) -> dict[str, Any]:
    """The summary's outcome counts (in total and by layer) recomputed from the records, as the runner writes them."""
    summary = results.get("summary")
    if isinstance(summary, dict):
        totals: Counter[str] = Counter(test["outcome"] for test in results["tests"])
        by_layer: dict[str, Counter[str]] = {}
        for test in results["tests"]:
            by_layer.setdefault(test["layer"], Counter())[test["outcome"]] += 1
        summary["totals"] = dict(sorted(totals.items()))
        summary["by_layer"] = {layer: dict(sorted(counts.items())) for layer, counts in sorted(by_layer.items())}
    return results


def bundled_expectations_sha256(profile: str = "cpu") -> str:
    """The SHA-256 of the expectations file the profile ships: what a run judged by it records."""
    path = get_profile(profile).expectations_path
    assert path is not None, f"the {profile} profile ships no expectations file"
    return hashlib.sha256(path.read_bytes()).hexdigest()


def make_clean(results: dict[str, Any]) -> dict[str, Any]:
    """Every bad or NOT_SUPPORTED result turned PASS, and a PASS for every mandatory test of the level
    contracts the synthetic run lacks: a run that reaches every level, judged by the cpu profile's own expectations
    file (the one it names)."""
    clean = copy.deepcopy(results)
    clean["expectations"] = dict(clean.get("expectations") or {}, sha256=bundled_expectations_sha256())
    for test in clean["tests"]:
        if Outcome(test["outcome"]) in BAD_OUTCOMES or test["outcome"] == Outcome.NOT_SUPPORTED.value:
            restate(test, Outcome.PASS, "")
    present = {test["id"] for test in clean["tests"]}
    for test_id in all_mandatory_ids():
        if test_id not in present:
            clean["tests"].append({"id": test_id, "nodeid": "", "layer": test_id.split(".", 1)[0], "outcome": "PASS",
                                   "duration": 0.001, "message": "", "details": {}, "tags": [], "expected": None,
                                   "repro": ""})
    return recount(clean)


@pytest.fixture
def synthetic() -> dict[str, Any]:
    return load_synthetic()


@pytest.fixture
def clean(synthetic: dict[str, Any]) -> dict[str, Any]:
    return make_clean(synthetic)


def write_json(path: Path, data: dict[str, Any]) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path
