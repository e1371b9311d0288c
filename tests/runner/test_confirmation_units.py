"""Confirmation, consistency and the run binding as pure functions (pjrt_cts.runner.controller.confirmation, .consistency,
.binding); the end-to-end runs are in test_confirmation_run.py and test_runner_resume.py."""
from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from pjrt_cts.golden.corpus import write_manifest_json
from pjrt_cts.runner.binding import RunBinding, bind
from pjrt_cts.runner.controller.confirmation import (ConfirmationSummary, apply_confirmations, cause_class, fold, needs_confirmation,
                                          twin_observations)
from pjrt_cts.runner.controller.consistency import apply_consistency
from pjrt_cts.runner.controller.expectations import Expectation, Expectations, apply_expectation
from pjrt_cts.judgment.outcomes import Outcome
from pjrt_cts.schema import Expected, TestRecord

GOLDEN = "execute.golden_cases.test_case_matches_reference"


def record(test_id: str, outcome: str, message: str = "", **details: Any) -> TestRecord:
    return TestRecord(id=test_id, nodeid=f"suites/execute/test_golden_cases.py::x[{test_id}]", layer="execute",
                      outcome=Outcome(outcome), message=message, details=dict(details), duration=0.1)


# -- confirmation ---------------------------------------------------------------------------------


def test_what_is_rerun() -> None:
    assert needs_confirmation(record("a", "FAIL"))
    assert needs_confirmation(record("a", "CRASH"))
    assert needs_confirmation(replace(record("a", "XFAIL"), expected=Expected.from_json({"actual": "FAIL"})))
    assert needs_confirmation(record("a", "NOT_SUPPORTED", unsupported_by="unimplemented"))
    assert needs_confirmation(record("a", "NOT_SUPPORTED", unsupported_by="declared"))  # the plugin's word, observed twice
    assert not needs_confirmation(record("a", "NOT_SUPPORTED", unsupported_by="reported"))
    assert not needs_confirmation(record("a", "NOT_SUPPORTED", unsupported_by="devices"))
    assert not needs_confirmation(record("a", "PASS"))
    assert not needs_confirmation(record("a", "SHARED_DEVIATION"))
    assert not needs_confirmation(record("a", "FAIL", blocked_by="abi.preflight.x"))
    assert not needs_confirmation(record("a", "ERROR", not_run=True))
    assert not needs_confirmation(replace(record("a", "FAIL"), tags=("nondeterministic",)))


def test_isolated_twins_of_one_own_program_confirm_each_other_without_a_rerun() -> None:
    def crash(function: str, program: str, signal: str = "SIGABRT", tags: tuple = ("isolated",)) -> TestRecord:
        return replace(record(program, "CRASH", "isolated subprocess killed", signal=signal),
                       nodeid=f"suites/{function}[{program}]", tags=tags)

    compile_test = "compile/test_golden_programs.py::test_golden_program_compiles"
    execute_test = "execute/test_golden_cases.py::test_case_matches_reference"
    records = [crash(compile_test, "spec.sort.f6"), crash(execute_test, "spec.sort.f6"),
               crash(compile_test, "spec.iota.f6"), crash(execute_test, "spec.iota.f6", "SIGSEGV"),  # different cause
               crash(compile_test, "spec.pad.f6", tags=()), crash(execute_test, "spec.pad.f6", tags=())]  # one process
    paired = twin_observations(records)
    assert set(paired) == {records[0].nodeid, records[1].nodeid}
    summary = ConfirmationSummary()
    folded = apply_confirmations(records, {}, summary)
    assert [r.confirmation is not None for r in folded] == [True, True, False, False, False, False]
    assert summary.by_twin == 2 and summary.confirmed == 2 and "isolated twin" in summary.line()


def test_the_cause_class_ignores_magnitudes_and_indexes_but_not_the_kind_of_failure() -> None:
    one = record("a", "FAIL", "max abs error 0.0123 (rel 1e-3) at index (3, 2)")
    two = record("a", "FAIL", "max abs error 7.5 (rel 0.2) at index (0, 1)")
    other = record("a", "FAIL", "PJRT_Client_Compile: INTERNAL: iota dimension cannot go beyond the rank")
    assert cause_class(one) == cause_class(two) != cause_class(other)
    in_pack = record("a", "FAIL", "Execute of golden case a (as grouped program spec.pack_common_9): output 0 differs")
    alone = record("a", "FAIL", "Execute of golden case a (as its own program (current portable artifact)): output 0 differs")
    assert cause_class(in_pack) == cause_class(alone)  # which program computed it is not the kind of failure
    assert cause_class(record("a", "CRASH", signal="SIGSEGV")) != cause_class(record("a", "CRASH", signal="SIGABRT"))


def test_two_errors_of_one_exception_type_are_a_confirmed_error_not_flaky() -> None:
    """An ERROR is the suite's own setup failing (a helper that does not build): its kind is the exception type,
    however its message differs from process to process (temporary file names)."""
    def build_error(suffix: str) -> TestRecord:
        return record("a", "ERROR", f"pjrt_cts.native.NativeBuildError: building libffi_handlers.so failed "
                                    f"(gcc -o /root/.cache/pjrt-cts/native/ee54/.libffi_handlers.so.{suffix}.tmp)")

    folded = fold(build_error("p2dzuk"), build_error("lay1ocu1"))
    assert folded.outcome is Outcome.ERROR and folded.confirmation is not None and folded.confirmation.confirmed
    other = record("a", "ERROR", "pjrt_cts.runtime.errors.PjrtError: PJRT_Client_Create failed: INTERNAL: no GPU")
    assert fold(build_error("x"), other).outcome is Outcome.FLAKY  # another kind of error
    assert fold(build_error("x"), record("a", "FAIL", build_error("x").message)).outcome is Outcome.FLAKY
    # A FAIL is the plugin's answer: its message still decides (only numbers blanked).
    assert cause_class(record("a", "FAIL", "AssertionError: x is 'ab'")) != cause_class(
        record("a", "FAIL", "AssertionError: x is 'cd'"))


def test_two_equal_observations_confirm_two_different_ones_are_flaky_with_both() -> None:
    first = record("a", "NOT_SUPPORTED", "PJRT_Client_Compile: UNIMPLEMENTED: Stable sorting of more than 2^31-1",
                   unsupported_by="unimplemented")
    confirmed = fold(first, replace(first))
    assert confirmed.outcome == "NOT_SUPPORTED" and confirmed.confirmation.confirmed is True
    second = record("a", "FAIL", "PJRT_Client_Compile: INTERNAL: iota dimension cannot go beyond the operation rank")
    flaky = fold(first, second)
    assert flaky.outcome == "FLAKY"
    assert "Stable sorting" in flaky.message and "iota dimension" in flaky.message
    assert [o["outcome"] for o in flaky.details["observations"]] == ["NOT_SUPPORTED", "FAIL"]


def test_apply_confirmations_counts() -> None:
    summary = ConfirmationSummary()
    records = [record("a", "FAIL", "x"), record("b", "FAIL", "y"), record("c", "PASS")]
    second = {records[0].nodeid: record("a", "FAIL", "x"), records[1].nodeid: record("b", "PASS")}
    folded = apply_confirmations(records, second, summary)
    assert [r.outcome for r in folded] == ["FAIL", "FLAKY", "PASS"]
    assert (summary.confirmed, summary.flaky) == (1, ["b"])


def test_a_flaky_record_is_waived_only_by_an_intermittent_entry() -> None:
    off = replace(record(f"{GOLDEN}[spec.sort.LT_SIGNED.stable.payload.dim_minus2.s32]", "FAIL", "off by 2^32"),
                  details={"mismatch": {"kinds": ["int:int"], "offsets": [4294967296.0]}})  # its evidence
    flaky = fold(off, record(f"{GOLDEN}[spec.sort.LT_SIGNED.stable.payload.dim_minus2.s32]", "PASS"))
    steady = Expectation(pattern="defect:sort-negative-dimension-mishandled", outcome=Outcome.FAIL, reason="r",
                         defect="sort-negative-dimension-mishandled")
    assert apply_expectation(flaky, Expectations(entries=[steady])).outcome == "FLAKY"
    intermittent = Expectation(pattern=steady.pattern, outcome=Outcome.FAIL, reason="r", defect=steady.defect,
                               intermittent=True)
    waived = apply_expectation(flaky, Expectations(entries=[intermittent]))
    assert waived.outcome == "XFAIL" and waived.defect == "sort-negative-dimension-mishandled"
    assert waived.expected.actual == "FLAKY"


# -- consistency ----------------------------------------------------------------------------------


def test_unimplemented_for_one_case_of_a_supported_op_and_type_is_a_fail_naming_the_others() -> None:
    unimplemented = record(f"{GOLDEN}[sort.dim0_stable_cmp_gt.s32]", "NOT_SUPPORTED",
                           "PJRT_Client_Compile: UNIMPLEMENTED: Stable sorting of more than 2^31-1 elements",
                           unsupported_by="unimplemented")
    passing = record(f"{GOLDEN}[sort.dim0_stable_cmp_lt.s32]", "PASS")
    judged = apply_consistency([unimplemented, passing])
    assert judged[0].outcome == "FAIL"
    assert "sort.dim0_stable_cmp_lt.s32" in judged[0].message and "Stable sorting" in judged[0].message
    assert judged[0].details["consistency"]["was"] == "NOT_SUPPORTED"
    assert apply_consistency(judged) == judged  # idempotent
    # without a passing case of that op and type, it is a gap the plugin may have
    alone = apply_consistency([unimplemented, record(f"{GOLDEN}[sort.dim0_stable_cmp_lt.s32]", "FAIL")])
    assert alone[0].outcome == "NOT_SUPPORTED"


def test_a_declared_gap_is_held_to_the_rules_like_an_unimplemented_one() -> None:
    declared = record(f"{GOLDEN}[sort.dim0_stable_cmp_gt.s32]", "NOT_SUPPORTED",
                      "sort.dim0_stable_cmp_gt.s32: the current portable artifact is StableHLO 1.17.0, newer than the "
                      "plugin's declared stablehlo_current_version 0.9.0; PJRT_Client_Compile: INVALID_ARGUMENT: no",
                      unsupported_by="declared")
    judged = apply_consistency([declared, record(f"{GOLDEN}[sort.dim0_stable_cmp_lt.s32]", "PASS")])[0]
    assert judged.outcome == "FAIL" and judged.details["consistency"]["rule"] == "op_element_type"
    assert judged.message.startswith("NOT_SUPPORTED on the plugin's declaration for one case of an op")
    core = apply_consistency([replace(declared, id=f"{GOLDEN}[conv.1d.f32]")])[0]
    assert core.outcome == "FAIL" and "mandatory for level Core" in core.message
    assert apply_consistency([declared])[0].outcome == "NOT_SUPPORTED"  # no evidence against the declaration


def test_a_declared_artifact_is_contradicted_only_by_a_read_of_the_same_version() -> None:
    artifacts = "compile.golden_programs.test_golden_artifact_version_compiles"
    declared = record(f"{artifacts}[sort.dim0_stable_cmp_gt.s32-current]", "NOT_SUPPORTED",
                      "the current portable artifact is StableHLO 1.17.0, newer than the plugin's declared "
                      "stablehlo_current_version 1.13.3; PJRT_Client_Compile: INVALID_ARGUMENT: unknown sort_v2",
                      unsupported_by="declared")
    other_version = record(f"{artifacts}[sort.dim0_stable_cmp_lt.s32-intermediate]", "PASS")
    ran = record(f"{GOLDEN}[sort.dim0_stable_cmp_lt.s32]", "PASS")  # from the artifact a framework sends
    assert apply_consistency([declared, other_version, ran])[0].outcome == "NOT_SUPPORTED"  # an older encoding
    same_version = record(f"{artifacts}[sort.dim0_stable_cmp_lt.s32-current]", "PASS")
    judged = apply_consistency([declared, same_version])[0]
    assert judged.outcome == "FAIL" and judged.details["consistency"]["supported_by"] == ["sort.dim0_stable_cmp_lt.s32"]


def test_a_static_gap_is_never_converted() -> None:
    gap = record(f"{GOLDEN}[sort.dim0_stable_cmp_gt.s32]", "NOT_SUPPORTED", "requires 2 devices", unsupported_by="devices")
    assert apply_consistency([gap, record(f"{GOLDEN}[sort.dim0_stable_cmp_lt.s32]", "PASS")])[0].outcome == "NOT_SUPPORTED"


def test_unimplemented_on_a_core_mandatory_test_is_a_fail() -> None:
    core = record(f"{GOLDEN}[conv.1d.f32]", "NOT_SUPPORTED", "PJRT_Client_Compile: UNIMPLEMENTED: no conv",
                  unsupported_by="unimplemented")
    judged = apply_consistency([core])[0]
    assert judged.outcome == "FAIL" and "mandatory for level Core" in judged.message


def test_preload_reads_the_corpus_once_in_the_background_and_judging_waits_for_it(monkeypatch) -> None:
    import functools
    import threading

    from pjrt_cts.runner.controller import consistency

    reads: list[str] = []

    @functools.lru_cache(maxsize=1)
    def slow_read() -> tuple[dict, dict]:
        reads.append(threading.current_thread().name)
        time.sleep(0.2)
        return {"sort.dim0_stable_cmp_gt.s32": ("stablehlo.sort", ("s32",))}, {}

    monkeypatch.setattr(consistency, "_read_corpus", slow_read)
    monkeypatch.setattr(consistency, "_preloading", None)
    consistency.preload()
    consistency.preload()  # idempotent: one reader
    assert consistency._case_keys() == {"sort.dim0_stable_cmp_gt.s32": ("stablehlo.sort", ("s32",))}
    assert reads == ["pjrt-cts-consistency-preload"]


def test_judging_with_nothing_to_judge_still_waits_for_a_reader_started(monkeypatch) -> None:
    """The record that started it was changed by its rerun: the reader must still end before the run forks the copy
    that writes the report."""
    from pjrt_cts.runner.controller import consistency

    monkeypatch.setattr(consistency, "_read_corpus", lambda: time.sleep(0.2) or ({}, {}))
    monkeypatch.setattr(consistency, "_preloading", None)
    consistency.preload()
    passing = record(f"{GOLDEN}[sort.dim0_stable_cmp_lt.s32]", "PASS")
    assert consistency.apply_consistency([passing]) == [passing]
    assert consistency._preloading is not None and not consistency._preloading.is_alive()


def test_the_controller_preloads_the_corpus_when_its_last_test_is_recorded_and_the_rules_judge_one(
        tmp_path: Path, monkeypatch) -> None:
    import io

    from pjrt_cts.judgment.results import JsonlWriter
    from pjrt_cts.runner.controller import consistency
    from pjrt_cts.runner.controller.recorder import Controller
    from pjrt_cts.runner.controller.progress import Progress

    started: list[bool] = []
    monkeypatch.setattr(consistency, "preload", lambda: started.append(True))

    def controller() -> Controller:
        made = Controller(log_dir=tmp_path, writer=JsonlWriter(tmp_path / f"{len(started)}.jsonl"),
                          expectations=Expectations(), progress=Progress(io.StringIO(), enabled=False),
                          repro=lambda nodeid: "", timeout=60.0, workers=1, done_nodeids=set(), done_ids=[])
        made.pending_nodeids = {"a", "b"}
        made._total_set = True
        return made

    unimplemented = replace(record(f"{GOLDEN}[sort.dim0_stable_cmp_gt.s32]", "NOT_SUPPORTED",
                                   unsupported_by="unimplemented"), nodeid="a")
    judged_first = controller()
    judged_first._emit(unimplemented)
    assert started == []  # a test is still to run
    judged_first._emit(replace(record(f"{GOLDEN}[sort.dim0_stable_cmp_lt.s32]", "PASS"), nodeid="b"))
    assert started == [True]
    nothing_judged = controller()
    for nodeid in ("a", "b"):
        nothing_judged._emit(replace(record(f"{GOLDEN}[sort.dim0_stable_cmp_lt.s32]", "PASS"), nodeid=nodeid))
    assert started == [True]  # no record the rules judge: the corpus is not needed


# -- binding --------------------------------------------------------------------------------------


def _bind(tmp_path: Path, plugin: bytes, **changes: Any) -> RunBinding:
    path = tmp_path / "libvendor.so"
    path.write_bytes(plugin)
    suites = tmp_path / "suites"
    suites.mkdir(exist_ok=True)
    (suites / "test_x.py").write_text("def test_x(): pass\n")
    corpus = tmp_path / "golden"
    corpus.mkdir(exist_ok=True)
    write_manifest_json(corpus, "{}")
    facts = dict(plugin_path=path, profile="cpu", create_options={"a": 1}, expectations_sha256="e",
                 suite_version="1", suites_dir=suites, corpus_dir=corpus, plugin_environment={},
                 user_settings={"timeout": 120.0})
    facts.update(changes)
    return bind(**facts)


def test_the_binding_names_every_fact_that_differs(tmp_path: Path) -> None:
    old = _bind(tmp_path, b"build 1")
    assert old.differences(_bind(tmp_path, b"build 1")) == []
    new = _bind(tmp_path, b"build 2", create_options={"a": 2}, expectations_sha256="f",
                plugin_environment={"XLA_FLAGS": "--xla_a"}, user_settings={"timeout": 30.0})
    differences = old.differences(new)
    assert [d.split(":")[0] for d in differences] == ["plugin binary (SHA-256)", "client create options",
                                                      "expectations file (SHA-256)", "plugin environment",
                                                      "user settings"]
    (tmp_path / "suites" / "test_y.py").write_text("def test_y(): pass\n")
    differences = old.differences(_bind(tmp_path, b"build 1"))
    assert [d.split(":")[0] for d in differences] == ["suites (SHA-256 of the test files)", "suites"]
    assert differences[1] == "suites: suites/test_y.py only now"
    assert RunBinding.from_dict(old.to_dict()) == old
    assert RunBinding.from_dict({"plugin_sha256": "x"}) is None


def test_a_grouped_program_unimplemented_while_every_op_and_type_it_holds_runs_is_a_fail() -> None:
    from pjrt_cts.golden import load_manifest

    manifest = load_manifest()
    pack = manifest.program_of(manifest.case("sort.dim0_stable_keyonly.s32"))
    assert pack.grouped
    program = record(f"compile.golden_programs.test_golden_program_compiles[{pack.id}]", "NOT_SUPPORTED",
                     "PJRT_Client_Compile: UNIMPLEMENTED: Stable sorting of more than 2^31-1 elements",
                     unsupported_by="unimplemented")
    evidence = [record(f"{GOLDEN}[{case.id}]", "PASS") for case in pack.cases]
    judged = apply_consistency([program, *evidence])[0]
    assert judged.outcome == "FAIL" and judged.details["consistency"]["rule"] == "grouped_program"
    assert "stablehlo.sort on " in judged.message and judged.details["consistency"]["members"]
    assert apply_consistency([program])[0].outcome == "NOT_SUPPORTED"  # no evidence: a gap the plugin may have
    # A pack's artifact is not its members': a declared one (vhlo.composite_v2 unknown to an older reader) stands.
    declared = replace(program, message="the current portable artifact is StableHLO 1.17.0, newer than the plugin's "
                       "declared stablehlo_current_version 1.13.3; PJRT_Client_Compile: UNKNOWN: vhlo.composite_v2",
                       details={"unsupported_by": "declared"})
    assert apply_consistency([declared, *evidence])[0].outcome == "NOT_SUPPORTED"


def test_an_element_type_gap_contradicted_by_a_golden_case_on_that_type_is_a_fail() -> None:
    gap = record("transfer.dtypes.test_round_trip_is_bit_exact[f8e4m3fn]", "NOT_SUPPORTED",
                 "requires element type F8E4M3FN: PJRT_Client_BufferFromHostBuffer: UNIMPLEMENTED: no",
                 unsupported_by="element_type", unsupported_subject="f8e4m3fn")
    evidence = record(f"{GOLDEN}[spec.add.f8e4m3fn]", "PASS")
    judged = apply_consistency([gap, evidence])[0]
    assert judged.outcome == "FAIL" and judged.details["consistency"]["rule"] == "element_type"
    assert "spec.add.f8e4m3fn" in judged.message
    assert apply_consistency([gap])[0].outcome == "NOT_SUPPORTED"
