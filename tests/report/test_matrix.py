"""summary.json (pjrt_cts.judgment.summary) and the conformance matrix (`pjrt-cts matrix`, pjrt_cts.report.matrix)."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from pjrt_cts.cli.main import main
from pjrt_cts.judgment.outcomes import Outcome
from pjrt_cts.judgment.results import ResultsError
from pjrt_cts.judgment.summary import load_summary, run_summary, summary_contradictions, write_summary
from pjrt_cts.judgment.verdict import judge_results
from pjrt_cts.report.matrix import (defect_grid, diff_summaries, platform_text, render_matrix_html, render_matrix_markdown,
                                    sorted_rows)
from pjrt_cts.schema import DefectCount, Results, RunSummary

from .conftest import SYNTHETIC, make_clean, record_of, set_outcome

SHARED_ID = "execute.golden.test_case_matches_reference[elementwise.tanh.bf16.r2]"


def _clean_with_defects(synthetic: dict[str, Any]) -> dict[str, Any]:
    """A run that reaches every level, with one defect shared with XLA and one waived."""
    clean = make_clean(synthetic)
    shared = record_of(clean, SHARED_ID)
    shared.update(outcome=Outcome.SHARED_DEVIATION.value, defect="subnormals-flushed")
    waived = next(test for test in clean["tests"] if test["outcome"] == "PASS" and test["id"] != SHARED_ID)
    waived.update(outcome=Outcome.XFAIL.value, defect="rng-expander-aborts",
                  expected={"pattern": waived["id"], "outcome": "FAIL", "reason": "as XLA", "actual": "FAIL"})
    return clean


def _defect(defect_id: str, *, bad: int = 0, waived: int = 0, shared: int = 0) -> DefectCount:
    return DefectCount(id=defect_id, title=f"{defect_id} <b>title</b>", scope="xla", tests=bad + waived + shared,
                       bad=bad, waived=waived, shared=shared)


def _summary(name: str, version: str, *defects: DefectCount, devices: int = 4) -> RunSummary:
    return RunSummary(distribution=name, distribution_version=version, api_version="0.115", platform_name="cpu",
                      device_kind="cpu", device_count=devices, machine="x86_64, 2 CPUs", tests=100,
                      verdict="CONFORMANT", level="Core", levels=("Core",), line="CONFORMANT · level Core",
                      wall_seconds=12.5, defects=defects)


# -- summary.json ----------------------------------------------------------------------------------------------


def test_summary_of_a_results_file_carries_identity_and_the_verdict_of_judge_results(synthetic: dict[str, Any]) -> None:
    results = Results.from_json(synthetic)
    summary = run_summary(results)
    judged = judge_results(results)
    assert (summary.verdict, summary.level, summary.line) == (judged.verdict, judged.level, judged.line())
    assert summary.tests == len(synthetic["tests"]) == sum(summary.outcomes.values())
    assert summary.api_version == "0.115" and summary.platform_name == "cpu"
    assert (summary.device_kind, summary.device_count) == ("cpu", 4)
    assert summary.plugin_sha256 == synthetic["plugin"]["sha256"]
    assert summary.wall_seconds == synthetic["wall_seconds"]
    assert summary.machine == "2 CPUs, Linux-6.1.0-x86_64-with-glibc2.36"
    assert summary.distribution is None  # the synthetic environment does not list the plugin's package
    assert isinstance(summary.to_json()["tests"], int)  # a count: no per-test records


def test_summary_counts_defects_as_the_verdict_line_does(synthetic: dict[str, Any]) -> None:
    results = Results.from_json(_clean_with_defects(synthetic))
    summary = run_summary(results)
    judged = judge_results(results)
    assert summary.verdict == "CONFORMANT" and summary.levels[-1] == summary.level
    assert {d.id for d in summary.defects} >= {"subnormals-flushed", "rng-expander-aborts"}
    assert (summary.own_defects, summary.shared_defects, summary.waived_defects) == (
        0, judged.shared["defects"], len(judged.waived_defects))
    assert summary.spec_mark == judged.spec_mark()


def test_distribution_as_recorded_else_from_the_environment_packages(synthetic: dict[str, Any]) -> None:
    synthetic["environment"]["packages"]["lammps-jax-pjrt-cpu"] = "0.11.2"
    summary = run_summary(Results.from_json(synthetic))
    assert (summary.distribution, summary.distribution_version) == ("lammps-jax-pjrt-cpu", "0.11.2")
    synthetic["plugin"]["distribution"] = {"name": "jax-cuda13-pjrt", "version": "0.12.0.1"}
    summary = run_summary(Results.from_json(synthetic))
    assert (summary.distribution, summary.distribution_version) == ("jax-cuda13-pjrt", "0.12.0.1")


def test_summary_round_trips_through_its_file(synthetic: dict[str, Any], tmp_path: Path) -> None:
    summary = run_summary(Results.from_json(_clean_with_defects(synthetic)))
    assert RunSummary.from_json(json.loads(summary.dumps())) == summary
    write_summary(summary, tmp_path / "summary.json")
    assert load_summary(tmp_path / "summary.json") == summary
    assert load_summary(SYNTHETIC) == run_summary(Results.from_json(json.loads(SYNTHETIC.read_text())))


def test_a_summary_of_another_format_or_version_or_with_unknown_keys_is_refused(tmp_path: Path) -> None:
    data = _summary("p", "1").to_json()
    (tmp_path / "future.json").write_text(json.dumps(dict(data, schema_version=2)), encoding="utf-8")
    (tmp_path / "other.json").write_text(json.dumps({"format": "something else"}), encoding="utf-8")
    (tmp_path / "extra.json").write_text(json.dumps(dict(data, vendor_claim="Full")), encoding="utf-8")
    for name in ("future.json", "other.json", "extra.json"):
        with pytest.raises(ResultsError):
            load_summary(tmp_path / name)


def _honest_summary(synthetic: dict[str, Any]) -> RunSummary:
    summary = run_summary(Results.from_json(_clean_with_defects(synthetic)))
    assert summary_contradictions(summary) == [] and summary.verdict == "CONFORMANT"
    return summary


@pytest.mark.parametrize("claim, words", [
    # issue 53's reproduction: a row that says CONFORMANT · Multi-device · spec ✓ beside its own counts
    (dict(outcomes={"ERROR": 16929, "SKIP": 132}, tests=17061, spec_mark="spec ✓", defects=()),
     ["16929 bad outcome(s)", "no test passed", "spec ✓ beside {ERROR: 16929, SKIP: 132}"]),
    (dict(outcomes={"NOT_SUPPORTED": 16704, "SKIP": 134}, tests=16838), ["no test passed"]),
    (dict(verdict="INCOMPLETE", reasons=("partial selection",), line="INCOMPLETE: partial selection"),
     ["INCOMPLETE with a level (Multi-device): a level belongs to a CONFORMANT run only"]),
    (dict(level="Full"), ["level Full, but the levels reached are ['Core', 'Full', 'Multi-device']"]),
    (dict(level=None, levels=()), ["CONFORMANT without a level"]),
    (dict(tests=5), ["5 tests, but its outcomes count"]),
    (dict(line="CONFORMANT · level Full"), ["its line 'CONFORMANT · level Full' is not the verdict's"]),
    (dict(defects=()), ["its defects count 0 waived test(s), its outcomes 2", "its defects count 0 shared test(s)"]),
])
def test_a_summary_whose_claims_its_own_counts_contradict_is_refused(synthetic: dict[str, Any], tmp_path: Path,
                                                                     claim: dict[str, Any], words: list[str],
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    forged = dataclasses.replace(_honest_summary(synthetic), **claim)
    problems = summary_contradictions(forged)
    for part in words:
        assert any(part in problem for problem in problems), problems
    path = tmp_path / "summary.json"
    path.write_text(forged.dumps(), encoding="utf-8")
    with pytest.raises(ResultsError, match="contradicts itself"):
        load_summary(path)
    assert main(["matrix", str(path), "--markdown"]) == 2
    assert "contradicts itself" in capsys.readouterr().err


def test_a_summary_of_a_run_that_is_not_conformant_carries_no_level(synthetic: dict[str, Any]) -> None:
    clean = make_clean(synthetic)
    summary = run_summary(Results.from_json(clean))
    assert (summary.verdict, summary.level, summary.levels) == ("CONFORMANT", "Multi-device",
                                                                ("Core", "Full", "Multi-device"))
    set_outcome(clean, "robustness.fuzz.test_compile_survives_mutated_program[seed6]", Outcome.FAIL, "boom")
    failing = run_summary(Results.from_json(clean))  # robustness is in no level: every contract is still met
    assert failing.verdict == "NON_CONFORMANT" and (failing.level, failing.levels) == (None, ())
    assert summary_contradictions(failing) == []


# -- the matrix ------------------------------------------------------------------------------------------------


def _three() -> list[RunSummary]:
    return [
        _summary("xla-cpu-pjrt", "0.0.1", _defect("subnormals-flushed", shared=3), _defect("old-only", waived=1)),
        _summary("jax-cuda13-pjrt", "0.12.0.1", _defect("subnormals-flushed", waived=2), _defect("cuda-own", bad=1),
                 devices=2),
        _summary("jax-cuda13-pjrt", "0.11.2", _defect("cuda-own", bad=4), devices=2),
    ]


def test_rows_are_sorted_by_plugin_then_version_numerically() -> None:
    rows = sorted_rows(_three())
    assert [(r.distribution, r.distribution_version) for r in rows] == [
        ("jax-cuda13-pjrt", "0.11.2"), ("jax-cuda13-pjrt", "0.12.0.1"), ("xla-cpu-pjrt", "0.0.1")]


def test_the_platform_column_names_the_platform_once() -> None:
    def platform(name: str | None, version: str | None) -> str:
        return platform_text(dataclasses.replace(_summary("p", "1"), platform_name=name, platform_version=version))

    assert platform("cuda", "cuda 13000") == "cuda 13000"
    assert platform("cuda", "12.8") == "cuda 12.8"
    assert platform("cpu", "cpu") == "cpu"
    assert platform(None, None) == "–"


def test_the_grid_marks_a_defect_several_plugins_share() -> None:
    rows = sorted_rows(_three())
    grid = {row.defect: row for row in defect_grid(rows)}
    shared = grid["subnormals-flushed"]
    assert (shared.plugins, shared.runs) == (2, 2)
    assert [cell.kind for cell in shared.cells] == ["", "waived", "shared"]
    own = grid["cuda-own"]  # two versions of one plugin: not shared by several plugins
    assert [cell.kind for cell in own.cells] == ["own", "own", ""] and (own.plugins, own.runs) == (1, 2)
    assert [row.defect for row in defect_grid(rows)] == ["subnormals-flushed", "cuda-own", "old-only"]
    page = render_matrix_html(_three())
    assert page.count('<tr class="several">') == 1


def test_unclassified_findings_of_several_plugins_are_not_a_shared_defect_and_come_last() -> None:
    rows = sorted_rows([_summary("a", "1", _defect("unclassified", bad=9), _defect("x", bad=1)),
                        _summary("b", "1", _defect("unclassified", bad=5))])
    grid = defect_grid(rows)
    assert [row.defect for row in grid] == ["x", "unclassified"]
    assert grid[1].plugins == 2 and not grid[1].shared_by_several
    assert 'class="several"' not in render_matrix_html(rows)


def test_diff_of_two_versions_lists_fixed_introduced_and_unchanged() -> None:
    old = _summary("p", "1", _defect("gone", bad=1), _defect("kept", waived=2))
    new = _summary("p", "2", _defect("kept", shared=3), _defect("new", bad=1))
    diff = diff_summaries(old, new)
    assert [c.defect for c in diff.fixed] == ["gone"]
    assert [c.defect for c in diff.introduced] == ["new"]
    assert [c.defect for c in diff.unchanged] == ["kept"]
    assert diff.unchanged[0].counts() == "2 tests, waived → 3 tests, shared"
    assert diff.caveat == ""
    markdown = render_matrix_markdown([old, new], [(old, new)])
    assert "- fixed (1): `gone`" in markdown and "- introduced (1): `new`" in markdown


def test_the_diff_says_when_the_runs_covered_different_layers() -> None:
    old = dataclasses.replace(_summary("p", "1"), layers_run=("abi", "client"))
    new = dataclasses.replace(_summary("p", "2"), layers_run=("abi", "client", "execute"))
    assert "new only: execute" in diff_summaries(old, new).caveat


def test_the_diff_says_when_one_run_had_no_device_or_the_runs_had_different_devices() -> None:
    on_gpu = dataclasses.replace(_summary("p", "1", _defect("gone", bad=1)), device_kind="GPU", device_count=1)
    no_device = dataclasses.replace(_summary("p", "2"), device_kind=None, device_count=0)
    assert "the new run had no device" in diff_summaries(on_gpu, no_device).caveat
    assert "the old run had no device" in diff_summaries(no_device, on_gpu).caveat
    two_gpus = dataclasses.replace(on_gpu, distribution_version="2", device_count=2)
    assert diff_summaries(on_gpu, two_gpus).caveat == "the runs had different devices (1× GPU, 2× GPU)"
    assert "Note: the new run had no device" in render_matrix_markdown([on_gpu, no_device], [(on_gpu, no_device)])


def test_the_diff_names_the_pjrt_api_versions_when_they_differ() -> None:
    old, new = _summary("p", "1"), dataclasses.replace(_summary("p", "2"), api_version="0.116")
    assert diff_summaries(old, new).api_change == "0.115 → 0.116"
    assert diff_summaries(old, old).api_change == ""
    assert "PJRT API: 0.115 → 0.116" in render_matrix_markdown([old, new], [(old, new)])
    assert "PJRT API: 0.115 → 0.116" in render_matrix_html([old, new], [(old, new)])


def test_the_page_is_deterministic_and_self_contained() -> None:
    summaries = _three()
    pairs = [(summaries[2], summaries[1])]
    page = render_matrix_html(summaries, pairs)
    assert render_matrix_html(list(reversed(summaries)), pairs) == page  # input order does not matter
    assert render_matrix_markdown(summaries, pairs) == render_matrix_markdown(list(reversed(summaries)), pairs)
    assert "<script" not in page and "http" not in page.replace("http-equiv", "")
    assert "&lt;b&gt;title&lt;/b&gt;" in page and "<b>title</b>" not in page  # catalogue text is escaped


def test_markdown_tables_escape_pipes() -> None:
    summary = dataclasses.replace(_summary("p", "1"), verdict="INCOMPLETE", reasons=("a | b",))
    markdown = render_matrix_markdown([summary])
    assert "INCOMPLETE: a \\| b" in markdown
    assert markdown.startswith("# PJRT plugin conformance matrix\n")


def test_cli_writes_the_same_bytes_twice_from_results_and_summaries(synthetic: dict[str, Any], tmp_path: Path) -> None:
    clean = tmp_path / "clean" / "results.json"
    clean.parent.mkdir()
    clean.write_text(json.dumps(_clean_with_defects(synthetic)), encoding="utf-8")
    write_summary(load_summary(clean), tmp_path / "summary.json")
    files = [str(SYNTHETIC), str(tmp_path / "summary.json")]
    for suffix, extra in (("html", []), ("md", ["--markdown"])):
        first, second = tmp_path / f"a.{suffix}", tmp_path / f"b.{suffix}"
        for out in (first, second):
            assert main(["matrix", *files, "--diff", str(SYNTHETIC), str(clean), "-o", str(out), *extra]) == 0
        assert first.read_bytes() == second.read_bytes()
        assert str(tmp_path) not in first.read_text(encoding="utf-8")  # no path of the generating machine
    assert main(["matrix", str(tmp_path / "missing.json")]) == 2
