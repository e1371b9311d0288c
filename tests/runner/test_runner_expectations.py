"""Expectations TOML: parsing, matching, XFAIL/XPASS, SKIP entries and unknown patterns."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from pjrt_cts.judgment.outcomes import Outcome
from pjrt_cts.runner.controller.expectations import Expectations, ExpectationsError, apply_expectation
from pjrt_cts.schema import TestRecord
from runner_cli import FIXTURE_SUITES, by_id, load_json, run_cli

MIXED = FIXTURE_SUITES / "mixed" / "suites"

EXPECTATIONS = """
[[expectation]]
id = "client.basic.test_fail"
outcome = "FAIL"
cause = "lists differ"
reason = "lists really differ"
url = "https://example.org/issue/1"

[[expectation]]
id = "client.basic.test_fixture_error"
outcome = "ERROR"
cause = "fixture exploded"
reason = "the fixture is broken on purpose"

[[expectation]]
id = "client.basic.test_details"
outcome = "FAIL"
cause = "NaN not propagated"
reason = "waives another failure than the one that happens: must stay FAIL"

[[expectation]]
id = "client.basic.test_pass"
outcome = "FAIL"
cause = "anything"
reason = "fixed since"

[[expectation]]
id = "client.basic.test_param[*]"
outcome = "SKIP"
reason = "takes too long on this plugin"

[[expectation]]
id = "client.basic.test_not_supported"
outcome = "NOT_SUPPORTED"
reason = "documented gap"

[[expectation]]
id = "client.nonexistent.test_gone"
outcome = "FAIL"
cause = "stale cause"
reason = "stale entry"

[[expectation]]
id = "robustness.crashes.test_abort_shared"
outcome = "CRASH"
cause = "SIGABRT in abort_shared"
reason = "layer not run here, so not judged unknown"
"""


def _record(test_id: str, outcome: str, message: str = "") -> TestRecord:
    return TestRecord(id=test_id, nodeid=test_id, layer="client", outcome=Outcome(outcome), message=message)


def _load(tmp_path: Path, text: str) -> Expectations:
    path = tmp_path / "expectations.toml"
    path.write_text(text)
    return Expectations.load(path)


@pytest.mark.parametrize(
    ("actual", "message", "expected", "final"),
    [
        ("FAIL", "max abs err inf: NaN dropped", "FAIL", "XFAIL"),
        ("CRASH", "killed by SIGABRT: NaN dropped", "CRASH", "XFAIL"),
        ("TIMEOUT", "exceeded the 120s per-test timeout in PJRT_Event_Await", "TIMEOUT", "XFAIL"),
        ("TIMEOUT", "exceeded the 120s per-test timeout in PJRT_Client_Compile", "TIMEOUT", "TIMEOUT"),
        ("ERROR", "fixture: NaN dropped", "ERROR", "XFAIL"),
        # Another failure than the one waived is reported as what it is.
        ("CRASH", "killed by SIGSEGV: NaN dropped", "FAIL", "CRASH"),
        ("FAIL", "wrong shape", "FAIL", "FAIL"),
        ("TIMEOUT", "", "CRASH", "TIMEOUT"),
        ("PASS", "", "CRASH", "XPASS"),
        ("WARNING", "", "FAIL", "XPASS"),
        ("NOT_SUPPORTED", "UNIMPLEMENTED", "FAIL", "NOT_SUPPORTED"),
        ("PASS", "", "NOT_SUPPORTED", "PASS"),
        ("WARNING", "", "WARNING", "WARNING"),
    ],
)
def test_apply_expectation(tmp_path: Path, actual: str, message: str, expected: str, final: str) -> None:
    # a CRASH cause names the signal, a TIMEOUT cause the PJRT function the test hangs in
    cause = {"FAIL": "NaN dropped", "ERROR": "NaN dropped", "CRASH": "SIGABRT.*NaN dropped",
             "TIMEOUT": "in PJRT_Event_Await"}.get(expected)
    line = f'cause = "{cause}"\n' if cause else ""
    expectations = _load(tmp_path, f'[[expectation]]\nid = "client.x.test_y"\noutcome = "{expected}"\n{line}reason = "r"\n')
    record = apply_expectation(_record("client.x.test_y", actual, message), expectations)
    assert record.outcome == final
    assert record.expected is not None
    assert {k: v for k, v in record.expected.to_json().items() if k != "mismatch"} == {
        "pattern": "client.x.test_y", "outcome": expected, "cause": cause, "reason": "r", "url": None, "actual": actual}
    assert (record.expected.mismatch is not None) is (final == actual and final in ("FAIL", "CRASH", "TIMEOUT", "ERROR"))
    assert apply_expectation(record, expectations) == record  # idempotent: keeps the actual outcome


INTERMITTENT = '[[expectation]]\nid = "client.x.test_y"\noutcome = "FAIL"\ncause = "heap"\nreason = "r"\nintermittent = true\n'


@pytest.mark.parametrize(("actual", "message", "final"), [
    ("FAIL", "crashed: heap corruption", "XFAIL"),  # when it shows: waived like any failure
    ("PASS", "", "PASS"),  # when it does not: PASS, not XPASS
    ("FAIL", "wrong shape", "FAIL"),  # another failure is still what it is
])
def test_an_intermittent_failure_is_waived_when_it_shows_and_passes_when_not(tmp_path: Path, actual: str,
                                                                              message: str, final: str) -> None:
    expectations = _load(tmp_path, INTERMITTENT)
    record = apply_expectation(_record("client.x.test_y", actual, message), expectations)
    assert record.outcome == final
    assert record.expected.intermittent is True
    assert apply_expectation(record, expectations) == record


@pytest.mark.parametrize(("text", "complaint"), [
    (INTERMITTENT.replace("true", '"yes"'), r"Expected `bool`, got `str` - at `\$\.expectation\[0\]\.intermittent`"),
    ('[[expectation]]\nid = "client.x.test_y"\noutcome = "NOT_SUPPORTED"\nreason = "r"\nintermittent = true\n', "failing outcomes only"),
])
def test_intermittent_is_a_boolean_for_failures_only(tmp_path: Path, text: str, complaint: str) -> None:
    with pytest.raises(ExpectationsError, match=complaint):
        _load(tmp_path, text)


@pytest.mark.parametrize("outcome", ["FAIL", "CRASH", "TIMEOUT", "ERROR"])
def test_a_failure_waiver_needs_a_cause(tmp_path: Path, outcome: str) -> None:
    with pytest.raises(ExpectationsError, match="needs 'cause'"):
        _load(tmp_path, f'[[expectation]]\nid = "client.x.test_y"\noutcome = "{outcome}"\nreason = "r"\n')


def test_entry_usage_shows_over_matching_and_other_failures(tmp_path: Path) -> None:
    from pjrt_cts.runner.controller.expectations import entry_usage

    expectations = _load(tmp_path, '[[expectation]]\nid = "client.x.test_y[*]"\noutcome = "FAIL"\ncause = "NaN"\nreason = "r"\n')
    records = [apply_expectation(_record(f"client.x.test_y[{i}]", outcome, message), expectations)
               for i, (outcome, message) in enumerate([("FAIL", "NaN"), ("PASS", ""), ("FAIL", "shape")])]
    (usage,) = entry_usage(expectations, records)
    assert (usage["waived"], usage["passed"], usage["other_failure"], usage["matched"]) == (1, 1, 1, 3)


def test_first_matching_entry_wins(tmp_path: Path) -> None:
    expectations = _load(tmp_path, EXPECTATIONS)
    assert expectations.match("client.basic.test_param[f32]").outcome.value == "SKIP"
    assert expectations.match("client.basic.test_other") is None


def test_unknown_patterns_only_judged_for_layers_that_ran(tmp_path: Path) -> None:
    expectations = _load(tmp_path, EXPECTATIONS)
    ids = ["client.basic.test_fail", "client.basic.test_fixture_error", "client.basic.test_pass", "client.basic.test_details",
           "client.basic.test_param[f32]", "client.basic.test_not_supported"]
    assert expectations.unknown_patterns(ids, ["client"]) == ["client.nonexistent.test_gone"]
    assert "robustness.crashes.test_abort_shared" in expectations.unknown_patterns(ids, ["client", "robustness"])


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        ('[[expectation]]\noutcome = "FAIL"\nreason = "r"\n', "'id'"),
        ('[[expectation]]\nid = "client.x.test_y"\noutcome = "FAIL"\n', r"missing required field `reason` - at `\$\.expectation\[0\]`"),
        ('[[expectation]]\nid = "client.x.test_y"\noutcome = "FAIL"\nreason = " "\n', r"Expected `str` matching regex .* - at `\$\.expectation\[0\]\.reason`"),
        ('[[expectation]]\nid = "client.x.test_y"\noutcome = "BROKEN"\nreason = "r"\n', r"Invalid enum value 'BROKEN' - at `\$\.expectation\[0\]\.outcome`"),
        ('[[expectation]]\nid = "client.x.test_y"\noutcome = "PASS"\nreason = "r"\n', "Invalid enum value 'PASS'"),
        ('[[expectation]]\nid = "client.x.test_y"\nreason = "r"\n', r"'outcome' \(one of CRASH, ERROR, FAIL, NOT_SUPPORTED, SKIP, TIMEOUT, WARNING\) is required"),
        ('[[expectation]]\nid = "client.x.test_y"\noutcome = "FAIL"\nreason = "r"\nbug = 1\n', r"unknown field `bug` - at `\$\.expectation\[0\]`"),
        ("[[expectation]\n", "expectations.toml"),
    ],
)
def test_malformed_files_are_rejected_with_the_reason(tmp_path: Path, text: str, complaint: str) -> None:
    with pytest.raises(ExpectationsError, match=complaint):
        _load(tmp_path, text)


@pytest.mark.slow
def test_expectations_end_to_end(tmp_path: Path, fake_plugin: Path) -> None:
    expectations = tmp_path / "expectations.toml"
    expectations.write_text(EXPECTATIONS)
    out = tmp_path / "out"
    proc = run_cli("run", str(fake_plugin), "--suites-dir", str(MIXED), "--layers", "client", "-n", "1",
                   "--expectations", str(expectations), "--out", str(out))
    results = load_json(out / "results.json")
    tests = by_id(results)
    assert tests["client.basic.test_fail"]["outcome"] == "XFAIL"
    assert tests["client.basic.test_fail"]["expected"]["actual"] == "FAIL"
    assert tests["client.basic.test_fail"]["expected"]["url"] == "https://example.org/issue/1"
    assert tests["client.basic.test_fixture_error"]["outcome"] == "XFAIL"
    assert tests["client.basic.test_details"]["outcome"] == "FAIL"  # waiver for another cause: not waived
    assert "another failure" in tests["client.basic.test_details"]["expected"]["mismatch"]
    assert tests["client.basic.test_pass"]["outcome"] == "XPASS"
    assert tests["client.basic.test_param[f32]"]["outcome"] == "SKIP"
    assert "takes too long" in tests["client.basic.test_param[bf16]"]["message"]
    assert tests["client.basic.test_not_supported"]["outcome"] == "NOT_SUPPORTED"
    assert results["expectations"]["file"] == str(expectations)
    assert results["expectations"]["unknown_patterns"] == ["client.nonexistent.test_gone"]
    usage = {entry["pattern"]: entry for entry in results["expectations"]["entries"]}
    assert usage["client.basic.test_pass"]["passed"] == 1
    assert "warning: expectation client.basic.test_pass matches 1 passing test(s) (XPASS)" in proc.stdout
    assert "warning: expectation pattern matches no test: client.nonexistent.test_gone" in proc.stdout
    assert proc.returncode == 1  # XPASS and the remaining FAILs


@pytest.mark.parametrize(
    ("test_id", "pattern", "matches"),
    [
        ("transfer.round_trip.test_x[f8e4m3b11fnuz-2]", "transfer.round_trip.test_*[f8e4m3b11fnuz-*]", True),
        ("transfer.round_trip.test_x[f32-2]", "transfer.round_trip.test_*[f8e4m3b11fnuz-*]", False),
        ("client.a.test_b[1]", "client.a.test_b[?]", True),
        ("client.a.test_b[1]", "client.a.test_b", False),
        ("client.a.test_b", "*", True),
    ],
)
def test_brackets_in_patterns_are_literal(test_id: str, pattern: str, matches: bool) -> None:
    from pjrt_cts.judgment.outcomes import id_matches

    assert id_matches(test_id, pattern) is matches


# -- issue 27: no catch-alls, causes that pin the failure, waivers by defect ------------------------------------

CATCH_ALL = '[[expectation]]\nid = "*"\noutcome = "FAIL"\ncause = "."\nreason = "r"\nintermittent = true\n'


@pytest.mark.parametrize(("text", "complaint"), [
    (CATCH_ALL, "must name one test function"),
    ('[[expectation]]\nid = "execute.*"\noutcome = "FAIL"\ncause = "x y z"\nreason = "r"\n', "one test function"),
    ('[[expectation]]\nid = "execute.golden_cases.test_*"\noutcome = "FAIL"\ncause = "x y"\nreason = "r"\n',
     "one test function"),
    ('[[expectation]]\nid = "nolayer.area.test_y"\noutcome = "FAIL"\ncause = "x y"\nreason = "r"\n', "one test function"),
    ('[[expectation]]\nid = "client.x.test_y"\noutcome = "FAIL"\ncause = "."\nreason = "r"\n', "generic FAIL of the test"),
    ('[[expectation]]\nid = "client.x.test_y"\noutcome = "FAIL"\ncause = "differs from the reference"\nreason = "r"\n',
     "generic FAIL of the test"),
    ('[[expectation]]\nid = "client.x.test_y"\noutcome = "CRASH"\ncause = "SIGABRT"\nreason = "r"\n', "generic CRASH"),
    ('[[expectation]]\nid = "client.x.test_y[*]"\noutcome = "FAIL"\ncause = "index \\\\[3\\\\]"\nreason = "r"\n'
     'intermittent = true\n', "applies to one test"),
    ('[[expectation]]\ndefect = "no-such-defect"\nreason = "r"\n', "not in the defect catalogue"),
    ('[[expectation]]\ndefect = "subnormals-flushed"\nid = "client.x.test_y"\nreason = "r"\n', "takes 'defect'"),
    ('[[expectation]]\ndefect = "subnormals-flushed"\n', "missing required field `reason`"),
    ('[[expectation]]\ndefect = "subnormals-flushed"\noutcome = "CRASH"\nreason = "r"\n', "takes 'defect'"),
])
def test_catch_alls_generic_causes_and_unknown_defects_are_rejected(tmp_path: Path, text: str, complaint: str) -> None:
    with pytest.raises(ExpectationsError, match=complaint):
        _load(tmp_path, text)


def test_a_pinned_cause_is_accepted(tmp_path: Path) -> None:
    expectations = _load(tmp_path, '[[expectation]]\nid = "execute.golden_cases.test_case_matches_reference[spec.x.f64]"\n'
                         'outcome = "FAIL"\ncause = "first mismatch at index \\\\[2\\\\]: actual 0, expected 5e-324"\n'
                         'reason = "r"\n')
    wrong_everywhere = "output 0 differs from the reference: 48 of 48 elements differ, first mismatch at index [0]: actual 7, expected 1"
    record = apply_expectation(_record("execute.golden_cases.test_case_matches_reference[spec.x.f64]", "FAIL",
                                       wrong_everywhere), expectations)
    assert record.outcome == "FAIL"  # a larger, different mismatch is not the waived one


def _golden(case: str, outcome: str, message: str, deviation: str | None = None) -> TestRecord:
    record = _record(f"execute.golden_cases.test_case_matches_reference[{case}]", outcome, message)
    return replace(record, details={"deviation": deviation} if deviation else {})


def test_a_defect_waiver_covers_exactly_the_records_attributed_to_it(tmp_path: Path) -> None:
    expectations = _load(tmp_path, '[[expectation]]\ndefect = "subnormals-flushed"\nreason = "FTZ"\n')
    flushed = apply_expectation(_golden("spec.sqrt.f32", "FAIL", "differs", deviation="subnormals-flushed"), expectations)
    assert (flushed.outcome, flushed.defect) == ("XFAIL", "subnormals-flushed")
    assert flushed.expected.pattern == "defect:subnormals-flushed"
    other = apply_expectation(_golden("spec.sqrt.f32", "FAIL", "differs", deviation="f64-computed-in-f32"), expectations)
    assert (other.outcome, other.defect) == ("FAIL", "f64-computed-in-f32")
    unexplained = apply_expectation(_golden("elementwise.add.f32", "FAIL", "differs"), expectations)
    assert (unexplained.outcome, unexplained.defect) == ("FAIL", "unclassified")
    shared = apply_expectation(_golden("spec.sqrt.subnormal.f32", "SHARED_DEVIATION", "XLA's value",
                                       deviation="subnormals-flushed"), expectations)
    assert shared.outcome == "SHARED_DEVIATION" and shared.expected is None  # needs no waiver
    passed = apply_expectation(_golden("spec.sqrt.f32", "PASS", ""), expectations)
    assert passed.outcome == "PASS" and passed.defect is None  # never XPASS through a defect waiver
    assert apply_expectation(flushed, expectations) == flushed  # idempotent


def test_a_crash_is_attributed_by_the_catalogue_whichever_layer_meets_it(tmp_path: Path) -> None:
    expectations = _load(tmp_path, '[[expectation]]\ndefect = "rng-expander-aborts"\nreason = "CHECK"\n')
    for test in ("compile.golden_programs.test_golden_program_compiles", "execute.golden_cases.test_case_matches_reference"):
        crash = replace(_record(f"{test}[spec.rng.uniform_one_value.u8]", "CRASH",
                                "worker gw0 killed by SIGABRT in PJRT_Client_Compile while running this test"),
                        details={"signal": "SIGABRT", "function": "PJRT_Client_Compile"})
        record = apply_expectation(crash, expectations)
        assert (record.outcome, record.defect) == ("XFAIL", "rng-expander-aborts")
        elsewhere = replace(crash, details={"signal": "SIGABRT", "function": "PJRT_LoadedExecutable_Execute"})
        assert apply_expectation(elsewhere, expectations).outcome == "CRASH"  # an abort while executing: another


# -- issue 53 item 2: a cause pins what its test cannot show by chance ------------------------------------------
GOLDEN_CASES = "execute.golden_cases.test_case_matches_reference"


@pytest.mark.parametrize(("outcome", "cause"), [
    ("FAIL", "elements differ"), ("FAIL", "max abs err"), ("FAIL", "first mismatch"), ("FAIL", "\\\\d+ of \\\\d+ elements"),
    ("FAIL", "differs from the reference"), ("FAIL", "max rel err \\\\d"),
    ("FAIL", "first mismatch at index \\\\[0\\\\]: actual np\\\\.float32\\\\(0\\\\.0\\\\)"),  # all zeros
    ("FAIL", "actual np\\\\.float32\\\\(nan\\\\)"), ("FAIL", "golden case spec\\\\.add\\\\.f32"),
    ("FAIL", "PJRT_Client_Compile failed: INTERNAL"), ("FAIL", "INVALID_ARGUMENT"), ("FAIL", "UNIMPLEMENTED: "),
    ("ERROR", "SuiteError"), ("CRASH", "killed by SIGSEGV"), ("CRASH", "SIGABRT.*while running this test"),
])
def test_a_cause_matching_a_generic_failure_of_its_test_is_rejected(tmp_path: Path, outcome: str, cause: str) -> None:
    text = (f'[[expectation]]\nid = "{GOLDEN_CASES}[spec.add.f32]"\noutcome = "{outcome}"\ncause = "{cause}"\n'
            'reason = "r"\n')
    with pytest.raises(ExpectationsError, match=f"matches a generic {outcome} of the test"):
        _load(tmp_path, text)


@pytest.mark.parametrize(("outcome", "cause", "complaint"), [
    ("CRASH", "Check failed: replica_count > 0", "names the signal"),
    ("TIMEOUT", "exceeded the 120s", "names the hang point"),
    ("TIMEOUT", "timeout", "names the hang point"),
])
def test_crash_and_timeout_causes_name_the_signal_and_the_hang_point(tmp_path: Path, outcome: str, cause: str,
                                                                     complaint: str) -> None:
    text = f'[[expectation]]\nid = "client.x.test_y"\noutcome = "{outcome}"\ncause = "{cause}"\nreason = "r"\n'
    with pytest.raises(ExpectationsError, match=complaint):
        _load(tmp_path, text)


@pytest.mark.parametrize(("outcome", "cause"), [
    ("FAIL", "3 of 104 elements differ.*first mismatch at index \\\\[57\\\\]: actual np\\\\.float64\\\\(-1\\\\.5707963"),
    ("FAIL", "PJRT_Client_Compile failed: INTERNAL: RET_CHECK failure .* llvm_module != nullptr"),
    ("CRASH", "SIGABRT in PJRT_Client_Compile"), ("CRASH", "SIGABRT.*Check failed: replica_count > 0"),
    ("TIMEOUT", "in PJRT_Event_Await"),
])
def test_a_cause_pinning_the_observed_failure_is_accepted(tmp_path: Path, outcome: str, cause: str) -> None:
    text = (f'[[expectation]]\nid = "{GOLDEN_CASES}[spec.atan2.f64]"\noutcome = "{outcome}"\ncause = "{cause}"\n'
            'reason = "r"\n')
    (entry,) = _load(tmp_path, text).entries
    assert entry.cause == cause.replace("\\\\", "\\")
