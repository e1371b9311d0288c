"""The typed shapes of results.json (pjrt_cts.schema): they round-trip, and files written before them still load."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from pjrt_cts.judgment.outcomes import Outcome
from pjrt_cts.judgment.results import build_results, load_results, read_jsonl, write_results
from pjrt_cts.schema import Confirmation, Expected, Observation, PhaseInfo, Results, TestRecord

# Written by build_results/write_json_atomic of the commit before the records were typed (2cdf57f), from varied
# records: an expectation with a mismatch, a defect waiver, an intermittent one, a confirmation, a FLAKY record's
# observations, an integer duration, run facts; and no shard or quick section.
BEFORE = Path(__file__).resolve().parent / "fixtures" / "results_v1_before_typed_records.json"


def _before() -> dict:
    return json.loads(BEFORE.read_text(encoding="utf-8"))


def test_a_file_written_before_the_typed_records_loads_and_writes_back_unchanged(tmp_path: Path) -> None:
    results = load_results(BEFORE)
    assert {test.outcome for test in results.tests} >= {Outcome.XFAIL, Outcome.FLAKY, Outcome.CRASH}
    write_results(results, tmp_path / "results.json")
    assert (tmp_path / "results.json").read_text(encoding="utf-8") == BEFORE.read_text(encoding="utf-8")


def test_build_results_writes_what_it_wrote_before_for_the_same_records(tmp_path: Path) -> None:
    before = _before()
    facts = {key: before[key] for key in ("binding", "selection", "confirmation")}
    rebuilt = build_results(
        tool_version=before["tool"]["version"], started_at=before["started_at"], finished_at=before["finished_at"],
        wall_seconds=before["wall_seconds"], command=before["command"], profile=before["profile"],
        plugin=before["plugin"], environment=before["environment"], expectations=before["expectations"],
        compatibility=before["compatibility"], tests=[TestRecord.from_json(test) for test in before["tests"]],
        facts=facts).to_json()
    # `defects` is the diagnosis's table, recomputed from the records with the catalogue of the day
    assert {k: v for k, v in rebuilt.items() if k != "defects"} == {k: v for k, v in before.items() if k != "defects"}
    assert list(rebuilt) == list(before)


@pytest.mark.parametrize("index", range(len(json.loads(BEFORE.read_text(encoding="utf-8"))["tests"])))
def test_every_record_round_trips(index: int) -> None:
    data = _before()["tests"][index]
    record = TestRecord.from_json(data)
    assert record.to_json() == data and list(record.to_json()) == list(data)
    assert TestRecord.from_json(record.to_json()) == record


def test_nested_shapes_are_typed() -> None:
    tests = load_results(BEFORE).by_id()
    waived = tests["execute.golden_cases.test_case_matches_reference[spec.sqrt.f32]"]
    assert waived.expected == Expected(pattern="defect:subnormals-flushed", outcome=Outcome.FAIL, cause=None,
                                       reason="FTZ", url=None, actual=Outcome.FAIL, defect="subnormals-flushed")
    assert waived.actual_outcome is Outcome.FAIL and waived.outcome is Outcome.XFAIL
    assert waived.confirmation == Confirmation(Outcome.FAIL, "differs", 0.01, True)
    flaky = tests["client.basic.test_flaky"]
    first, second = (Observation.from_json(seen) for seen in flaky.details["observations"])
    assert (first.outcome, second.outcome) == (Outcome.FAIL, Outcome.PASS)
    assert [seen.to_json() for seen in (first, second)] == flaky.details["observations"]
    assert tests["robustness.crashes.test_abort"].duration == 1  # an integer duration stays one


def test_a_jsonl_line_carries_compatibility_and_the_file_entry_does_not(tmp_path: Path) -> None:
    record = TestRecord(id="client.a.test_b", nodeid="suites/client/test_a.py::test_b", layer="client",
                        outcome=Outcome.PASS, compatibility={"stablehlo_current_version": "1.2.3"})
    assert "compatibility" not in record.to_json()
    assert record.to_json(private=True)["compatibility"] == {"stablehlo_current_version": "1.2.3"}
    from pjrt_cts.judgment.results import JsonlWriter

    writer = JsonlWriter(tmp_path / "results.jsonl")
    writer.write(record)
    writer.close()
    assert read_jsonl(tmp_path / "results.jsonl") == [record]


def test_partial_and_odd_records_take_defaults() -> None:
    slim = TestRecord.from_json({"id": "client.devices.test_x", "outcome": "PASS"})  # a slim gate baseline's entry
    assert (slim.layer, slim.nodeid, slim.details, slim.tags, slim.expected) == ("client", "", {}, (), None)
    assert TestRecord.from_json({"id": "a.b.c", "outcome": "NO_SUCH"}).outcome is Outcome.ERROR
    legacy = Expected.from_json({"pattern": "a.b.test_c", "status": "FAIL", "reason": "r"})  # the first files' key
    assert legacy.outcome is legacy.actual is Outcome.FAIL
    updated = dataclasses.replace(slim, outcome=Outcome.FAIL)
    assert (slim.outcome, updated.outcome) == (Outcome.PASS, Outcome.FAIL)


def test_results_keep_sections_they_do_not_know_in_place() -> None:
    data = {**_before(), "bench": {"dispatch": 1.0}}
    assert Results.from_json(data).to_json() == data and list(Results.from_json(data).to_json()) == list(data)


def test_phase_info_omits_what_it_does_not_carry() -> None:
    assert PhaseInfo().to_json() == {}
    info = PhaseInfo(outcome=Outcome.WARNING, message="m", tags=("donation",))
    assert info.to_json() == {"outcome": "WARNING", "message": "m", "tags": ["donation"]}
    assert PhaseInfo.from_json(info.to_json()) == info and PhaseInfo.from_json(None) == PhaseInfo()
