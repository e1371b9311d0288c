"""A real `pjrt-cts run` of the bundled CPU plugin (a small subset), its report opened in headless Chromium."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pjrt_cts.judgment.outcomes import BAD_OUTCOMES, Outcome
from pjrt_cts.judgment.results import anchor_for, check_schema

from .html_probe import Probe
from .test_report_browser import CHROMIUM, assert_renders, chromium, console_lines

# A few seconds of real work: the StableHLO-text compile tests and the golden compare cases (two packs).
SUBSET = ["--layers", "compile,execute", "--id", "compile.stablehlo_text.*", "--id", "execute.golden_cases.*[compare.*]"]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not CHROMIUM.exists(),
        reason="headless Chromium not installed: apt-get update && apt-get install -y --no-install-recommends chromium",
    ),
]


@pytest.fixture(scope="module")
def real_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("real-run")
    run = subprocess.run(
        [sys.executable, "-m", "pjrt_cts", "run", *SUBSET, "--out", str(out), "--no-progress"],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert run.returncode in (0, 1, 3), run.stdout[-3000:] + run.stderr[-3000:]  # a subset: INCOMPLETE
    return out


def test_real_run_report_renders_in_chromium(real_run: Path) -> None:
    results = json.loads((real_run / "results.json").read_text(encoding="utf-8"))
    check_schema(results)
    report = real_run / "report.html"
    assert report.is_file(), "pjrt-cts run did not write report.html"
    assert_renders(report, real_run / "report.png")

    run = chromium("--dump-dom", report.as_uri())
    assert console_lines(run.stderr) == []
    page = Probe(run.stdout)
    distribution, file = results["plugin"]["distribution"], Path(results["plugin"]["path"]).name
    assert page.title == (f"PJRT conformance report: {distribution['name']} {distribution['version']}, {file} "
                          f"(cpu, PJRT C API {results['plugin']['api_version']})")
    assert page.by_id("verdict").text.strip() == results["summary"]["verdict"]
    assert results["plugin"]["sha256"] in page.by_id("plugin").text
    # golden cases carry case ids, so once the corpus exists and they run, the matrix must show them
    if any(t["id"].startswith("execute.golden") and t["outcome"] != "SKIP" for t in results["tests"]):
        assert page.by_id("coverage-matrix").tag == "table"
    for test in results["tests"]:
        if Outcome(test["outcome"]) in BAD_OUTCOMES:
            entry = page.by_id(anchor_for(test["id"]))
            assert entry.visible_without_clicks()
