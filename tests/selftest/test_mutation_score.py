"""The suite's power, measured: targeted selftest over every catalogued defect of the bundled CPU plugin.

Each mutant's records are laid over the passthrough baseline (every mandatory id plus every selection)
and judged by the run verdict. Asserts the mutation score stays >= 95%, that every escape-hatch defect
of issue 14 is caught, and that the passthrough proxy changes no outcome and is CONFORMANT. Takes a few
minutes on 2 cores (the baselines, then one short `pjrt-cts run` per defect, two at a time).
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pjrt_cts.proxy.catalogue import DEFECTS, ESCAPE_HATCHES
from pjrt_cts.runtime import default_plugin_path
from pjrt_cts.selftest import SelftestOptions, run_selftest
from pjrt_cts.selftest.table import render_table

MIN_SCORE = 0.95


@pytest.mark.slow
@pytest.mark.skipif(not shutil.which("cc"), reason="no C compiler (cc) to build the proxy plugin")
def test_targeted_selftest_score_and_green_passthrough(tmp_path: Path) -> None:
    options = SelftestOptions(target=Path(default_plugin_path()), out_dir=tmp_path / "selftest", profile="cpu",
                              defects=list(DEFECTS), parallel=2, workers=1, test_timeout=30.0, wall_limit=240.0)
    report = run_selftest(options, say=lambda _line: None)
    table = render_table(report)
    print(table)
    assert report.passthrough.error is None, report.passthrough.error
    assert report.passthrough_green, f"the passthrough proxy is not green (outcomes differ from the real plugin, or not CONFORMANT):\n{table}"
    assert report.score >= MIN_SCORE, f"mutation score {report.score:.1%} < {MIN_SCORE:.0%}:\n{table}"
    escaped = [v.defect.name for v in report.verdicts if v.defect.name in ESCAPE_HATCHES and not v.correct]
    assert not escaped, f"escape-hatch defects not caught: {', '.join(escaped)}\n{table}"
    assert [hatch.name for hatch in report.run_hatches] == ["resume_over_another_binary", "mandatory_only_selection"]
    assert report.run_hatches_caught, f"the runner's own escape hatches: {[h.to_json() for h in report.run_hatches]}"
    for verdict in report.verdicts:
        if not verdict.correct:
            assert verdict.explanation, f"{verdict.defect.name} is {verdict.status} without an explanation"
