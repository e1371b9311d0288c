"""A grouped program's crash has one identity (its compile test), whichever layer's test meets it first."""
from __future__ import annotations

from pathlib import Path

from pjrt_cts.testing.corpus import attempt_markers, golden_manifest, grouped_program_crash


def _grouped_member() -> tuple[str, str]:
    manifest = golden_manifest()
    program = next(p for p in manifest.programs if p.grouped and not p.is_multi_device)
    return program.id, program.cases[0].id


def _mark(out: Path, program: str, state: str) -> None:
    attempt_markers(out).mkdir(parents=True, exist_ok=True)
    (attempt_markers(out) / program).write_text(state)


def test_a_member_case_that_died_inside_its_group_names_the_group(tmp_path: Path) -> None:
    program, case = _grouped_member()
    nodeid = f"suites/execute/test_golden_cases.py::test_case_matches_reference[{case}]"
    assert grouped_program_crash(nodeid, tmp_path) is None  # no attempt marked: the crash is the case's
    _mark(tmp_path, program, "started")
    assert grouped_program_crash(nodeid, tmp_path) == (
        f"suites/compile/test_golden_programs.py::test_golden_program_compiles[{program}]")
    _mark(tmp_path, program, "done")  # the group finished: the case died on its own
    assert grouped_program_crash(nodeid, tmp_path) is None


def test_other_tests_and_cases_that_are_their_own_program_keep_their_crash(tmp_path: Path) -> None:
    program, case = _grouped_member()
    _mark(tmp_path, program, "started")
    own = next(p for p in golden_manifest().programs if not p.grouped and not p.is_multi_device)
    _mark(tmp_path, own.id, "started")
    assert grouped_program_crash(f"suites/execute/test_golden_cases.py::test_case_matches_reference[{own.id}]",
                                 tmp_path) is None
    assert grouped_program_crash(f"suites/compile/test_golden_programs.py::test_golden_program_compiles[{program}]",
                                 tmp_path) is None
