"""A deviation mutant counts as caught only when the run's diagnosis names the defect it injects (synthetic records).

The records carry `defect` as the diagnosis (pjrt_cts.judgment.defects.diagnosis) sets it; the mutant's catalogue entry
says which id it must be (`names`).
"""
from __future__ import annotations

from pathlib import Path

from pjrt_cts.judgment.levels import all_mandatory_ids
from pjrt_cts.schema import TestRecord
from pjrt_cts.proxy.catalogue import DEFECTS, DEFECTS_BY_NAME, Defect
from pjrt_cts.selftest.naming import NO_FINDING, naming
from pjrt_cts.selftest.suite_run import SuiteRunResult
from pjrt_cts.selftest.judging import CAUGHT, MISSED, UNNAMED, Baseline, judge, mutation_score

SPEC_MAX = "execute.golden_cases.test_case_matches_reference[spec.maximum.f32]"
SPEC_MIN = "execute.golden_cases.test_case_matches_reference[spec.minimum.f32]"
DEFECT_ID = "nan-not-propagated-by-max-min"
UNDIAGNOSED = object()  # a record written before the diagnosis existed: no `defect` key at all


def _record(test_id: str, outcome: str, defect: object = UNDIAGNOSED) -> TestRecord:
    # As the runner writes them (judgment.contradictions): a PASS has no message, an XFAIL its expectation entry.
    record = {"id": test_id, "layer": "execute", "outcome": outcome, "message": "" if outcome == "PASS" else f"{outcome} here"}
    if outcome == "XFAIL":
        record["expected"] = {"pattern": test_id, "outcome": "FAIL", "reason": "known", "actual": "FAIL"}
    if defect is not UNDIAGNOSED:
        record["defect"] = defect
    return TestRecord.from_json(record)


def _run(*records: TestRecord) -> SuiteRunResult:
    return SuiteRunResult("mutant", Path("."), records={record.id: record for record in records})


BASELINE = Baseline.from_run(_run(*(_record(test_id, "PASS", None) for test_id in [*all_mandatory_ids(), SPEC_MAX, SPEC_MIN])))
MUTANT = Defect("nan_demo", "execute", "demo", (SPEC_MAX, SPEC_MIN), ("execute",), names=DEFECT_ID)


def test_a_catch_the_diagnosis_names_is_caught_and_named() -> None:
    verdict = judge(MUTANT, _run(_record(SPEC_MAX, "FAIL", DEFECT_ID), _record(SPEC_MIN, "FAIL", DEFECT_ID)),
                    BASELINE, ["execute"])
    assert (verdict.status, verdict.named, verdict.correct) == (CAUGHT, True, True)
    assert verdict.naming is not None and verdict.naming.summary(DEFECT_ID) == "yes (2/2)"
    assert verdict.to_json()["named"] is True and verdict.to_json()["attributions"] == {DEFECT_ID: 2}


def test_a_catch_attributed_elsewhere_is_unnamed_and_not_correct() -> None:
    verdict = judge(MUTANT, _run(_record(SPEC_MAX, "FAIL", "unclassified"), _record(SPEC_MIN, "FAIL", DEFECT_ID)),
                    BASELINE, ["execute"])
    assert verdict.status == CAUGHT and verdict.named  # a tie counts for the injected defect
    verdict = judge(MUTANT, _run(_record(SPEC_MAX, "FAIL", "unclassified"), _record(SPEC_MIN, "FAIL", "unclassified")),
                    BASELINE, ["execute"])
    assert (verdict.status, verdict.named, verdict.correct) == (UNNAMED, False, False)
    assert f"did not name {DEFECT_ID}" in verdict.explanation and "unclassified (2)" in verdict.explanation
    assert mutation_score([verdict]) == 0.0


def test_records_without_a_diagnosis_cannot_name_anything() -> None:
    verdict = judge(MUTANT, _run(_record(SPEC_MAX, "FAIL")), BASELINE, ["execute"])
    assert verdict.status == UNNAMED and "carry no diagnosis" in verdict.explanation


def test_a_missed_defect_is_judged_missed_not_unnamed() -> None:
    verdict = judge(MUTANT, _run(_record(SPEC_MAX, "PASS", None)), BASELINE, ["execute"])
    assert (verdict.status, verdict.named) == (MISSED, None)


def test_new_findings_the_profile_waives_as_the_injected_defect_are_caught_and_named() -> None:
    # The profile waives the defect itself (`defect = "..."`): the mutant's findings are XFAIL, the verdict stays.
    shared = Baseline.from_run(_run(*(_record(test_id, "PASS", None) for test_id in all_mandatory_ids()),
                                    _record(SPEC_MAX, "SHARED_DEVIATION", DEFECT_ID), _record(SPEC_MIN, "XFAIL", DEFECT_ID)))
    verdict = judge(MUTANT, _run(_record(SPEC_MAX, "XFAIL", DEFECT_ID), _record(SPEC_MIN, "XFAIL", DEFECT_ID)),
                    shared, ["execute"])
    assert (verdict.status, verdict.named, verdict.verdict) == (CAUGHT, True, "CONFORMANT")
    assert verdict.catching_tests == [SPEC_MAX]  # SPEC_MIN was a waived finding already
    assert f"the profile waives {DEFECT_ID}" in verdict.explanation
    unnamed = judge(MUTANT, _run(_record(SPEC_MAX, "XFAIL", "unclassified")), shared, ["execute"])
    assert unnamed.status == MISSED and "all waived, but the diagnosis did not name" in unnamed.explanation
    assert judge(MUTANT, _run(_record(SPEC_MIN, "XFAIL", DEFECT_ID)), shared, ["execute"]).status == MISSED


def test_defects_that_name_nothing_are_judged_by_the_verdict_alone() -> None:
    plain = Defect("plain_demo", "execute", "demo", (SPEC_MAX,), ("execute",))
    verdict = judge(plain, _run(_record(SPEC_MAX, "FAIL", "unclassified")), BASELINE, ["execute"])
    assert (verdict.status, verdict.named) == (CAUGHT, None)


def test_naming_counts_records_without_a_finding_separately() -> None:
    result = naming(DEFECT_ID, [_record(SPEC_MAX, "NOT_SUPPORTED", None), _record(SPEC_MIN, "FAIL", DEFECT_ID),
                                _record("x", "FAIL", DEFECT_ID)])
    assert result.named and result.attributions == {NO_FINDING: 1, DEFECT_ID: 2}
    assert not naming(DEFECT_ID, []).named


def test_table_shows_the_named_column_and_the_count() -> None:
    from pjrt_cts.selftest import SelftestOptions, SelftestReport
    from pjrt_cts.selftest.table import render_table

    verdicts = [judge(MUTANT, _run(_record(SPEC_MAX, "FAIL", DEFECT_ID)), BASELINE, ["execute"]),
                judge(Defect("other_demo", "execute", "demo", (SPEC_MIN,), ("execute",), names="f64-computed-in-f32"),
                      _run(_record(SPEC_MIN, "FAIL", "unclassified")), BASELINE, ["execute"])]
    passthrough = _run(*BASELINE.records.values())
    report = SelftestReport(verdicts, passthrough, BASELINE, None, {}, 1.0,
                            SelftestOptions(target=Path("x.so"), out_dir=Path(".")), ["execute"])
    lines = render_table(report).splitlines()
    assert "named" in lines[0].split()
    assert "yes (1/1)" in next(line for line in lines if line.startswith("nan_demo "))
    unnamed = next(line for line in lines if line.startswith("other_demo "))
    assert "UNNAMED !" in unnamed and " no " in unnamed
    assert "deviation mutants named by the diagnosis: 1/2 (not named: other_demo)" in lines
    assert report.to_json()["deviations_named"] == {"defects": 2, "named": 1}


def test_catalogue_names_the_value_deviation_mutants() -> None:
    from pjrt_cts.judgment.defects import defect_ids

    assert {name: DEFECTS_BY_NAME[name].names for name in (
        "subnormal_results_flushed", "nan_not_propagated_by_max", "f64_results_rounded_to_f32",
        "converts_round_toward_zero")} == {
        "subnormal_results_flushed": "subnormals-flushed", "nan_not_propagated_by_max": DEFECT_ID,
        "f64_results_rounded_to_f32": "f64-computed-in-f32", "converts_round_toward_zero": "convert-rounds-toward-zero"}
    assert {defect.names for defect in DEFECTS if defect.names} <= set(defect_ids())
