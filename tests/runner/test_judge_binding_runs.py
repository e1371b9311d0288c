"""Runs bound to their judge (issue 53, item 6), end to end: a golden file that is not the manifest's fails the run
that reads it; a run checks the mandatory lists against the suites it ran before judging.

Both need a pjrt-cts other than this checkout (an altered corpus, edited lists): a copy laid out as a wheel
installs it (pjrt_cts.selftest.edited_judge.copy_installation), run from outside the checkout.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pjrt_cts.golden.archive import archive_members, read_all, write_archives
from pjrt_cts.golden.corpus import load_manifest
from pjrt_cts.judgment.outcomes import LAYERS
from pjrt_cts.judgment.verdict import EXIT_INCOMPLETE, EXIT_NON_CONFORMANT
from pjrt_cts.selftest.edited_judge import copy_environment, copy_installation

from runner_cli import load_json, run_cli

pytestmark = pytest.mark.slow  # copies of pjrt-cts and `pjrt-cts run` in subprocesses


def _in_copy(site: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], cwd=cwd, env={**os.environ, **copy_environment(site)},
                          capture_output=True, text=True, timeout=600, check=False, stdin=subprocess.DEVNULL)


def test_a_golden_file_other_than_the_manifests_fails_the_run_that_reads_it(tmp_path: Path) -> None:
    package = copy_installation(tmp_path / "site")
    golden = package / "_data" / "golden"
    case = next(case for case in load_manifest().cases if case.id.startswith("elementwise.add.f32"))
    data_path = case.files["data"]["path"]
    family = data_path.split("/", 1)[0]
    members = [f"{family}/{member}" for member in archive_members(golden)[f"{family}.bundle"]]
    files = read_all(golden, members)
    files[data_path] = files[data_path][:-1] + bytes([files[data_path][-1] ^ 1])  # one bit of the file
    write_archives(golden, files)

    test_id = f"execute.golden_cases.test_case_matches_reference[{case.id}]"
    out = tmp_path / "out"
    run = _in_copy(tmp_path / "site", "-m", "pjrt_cts", "run", "--id", test_id, "--out", str(out), "-n", "1",
                   "--no-progress", "--no-report", cwd=tmp_path)
    assert run.returncode == EXIT_NON_CONFORMANT, run.stdout[-3000:] + run.stderr[-3000:]
    record = next(test for test in load_json(out / "results.json")["tests"] if test["id"] == test_id)
    assert record["outcome"] == "ERROR"
    assert f"MemberAltered: golden corpus file {data_path} has SHA-256" in record["message"]
    assert f"error: 1 test(s) read a golden corpus file that is not the one its manifest records, first {test_id}" in run.stdout


def test_lists_that_disagree_with_the_tree_are_found_before_judging(tmp_path: Path) -> None:
    """The check a full run makes (runner/controller/contract_check.py) in a pjrt-cts whose Core list lost one test."""
    package = copy_installation(tmp_path / "site")
    core = package / "judgment" / "mustpass" / "core.txt"
    lines = core.read_text(encoding="utf-8").splitlines(keepends=True)
    dropped = next(line for line in lines if not line.startswith("#"))
    core.write_text("".join(line for line in lines if line != dropped), encoding="utf-8")
    check = _in_copy(tmp_path / "site", "-c", "import json; from pjrt_cts.resources import golden_dir, suites_dir; "
                     "from pjrt_cts.runner.controller.contract_check import ContractCheck; "
                     "print(json.dumps(ContractCheck(suites_dir(), golden_dir(), None).result()))", cwd=tmp_path)
    assert check.returncode == 0, check.stderr[-3000:]
    result = json.loads(check.stdout)
    assert result["checked"] is True
    assert f"Core: the tree no longer matches the committed list: 1 added (e.g. {dropped.strip()})" in result["problems"]


def _all_layers_tree(root: Path) -> Path:
    """A suite tree with one passing test in every layer: a selection that could be CONFORMANT, whose tests are
    not the mandatory lists' at all."""
    suites = root / "suites"
    for layer in LAYERS:
        (suites / layer).mkdir(parents=True)
        (suites / layer / f"test_{layer}.py").write_text("def test_one():\n    pass\n", encoding="utf-8")
    (suites / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    return suites


def test_a_run_that_could_be_conformant_checks_its_lists_before_judging(fake_plugin: Path, tmp_path: Path) -> None:
    suites = _all_layers_tree(tmp_path)
    out = tmp_path / "out"
    run = run_cli("run", str(fake_plugin), "--suites-dir", str(suites), "-n", "1", "--out", str(out), "--no-progress",
                  "--no-report", env={"PJRT_CTS_CACHE_DIR": str(tmp_path / "cache")})
    assert run.returncode == EXIT_INCOMPLETE, run.stdout[-3000:] + run.stderr[-3000:]
    results = load_json(out / "results.json")
    assert results["contract"]["checked"] is False  # the lists' features select nothing here: no answer
    assert results["summary"]["reasons"][0].startswith("the mandatory lists could not be checked against the suites: ")

    partial = run_cli("run", str(fake_plugin), "--suites-dir", str(suites), "-n", "1", "--out", str(out),
                      "--no-progress", "--no-report", "--id", "abi.*")
    assert partial.returncode == EXIT_INCOMPLETE
    assert "contract" not in load_json(out / "results.json")  # a partial selection is never CONFORMANT: no check
