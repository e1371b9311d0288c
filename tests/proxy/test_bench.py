"""`pjrt-cts bench`: measurements run, the mid-size program computes what it claims, plots are safe SVG."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from pjrt_cts.bench import BenchOptions, default_sizes, fit_sizes, parse_size, plugin_summary, render_bench_section, run_bench
from pjrt_cts.bench.workloads import mlp_inputs, mlp_program, mlp_reference
from pjrt_cts.bench.svg import histogram_log, horizontal_bars, line_chart_log2x

KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30


def test_default_sizes_are_powers_of_four_from_4k_to_1g() -> None:
    sizes = default_sizes()
    assert sizes[0] == 4 * KIB and sizes[-1] == GIB
    assert all(b == 4 * a for a, b in zip(sizes, sizes[1:]))
    assert parse_size("64M") == 64 * MIB and parse_size("4KiB") == 4 * KIB and parse_size("1g") == GIB
    kept, dropped = fit_sizes(sizes, 8 * GIB)
    assert GIB not in kept and dropped == [GIB]


def test_mlp_program_matches_numpy(any_client) -> None:
    inputs = mlp_inputs()
    with any_client.compile(mlp_program()) as executable:
        buffers = [any_client.buffer_from_numpy(a) for a in inputs]
        out = executable.execute(buffers)[0].to_numpy()
    np.testing.assert_allclose(out, mlp_reference(inputs), rtol=1e-4, atol=1e-4)


@pytest.fixture(scope="module")
def small_bench(request: pytest.FixtureRequest) -> dict:
    from pjrt_cts.runtime import Plugin, default_plugin_path

    plugin = Plugin.load(default_plugin_path())
    with plugin.create_client({"cpu_device_count": 2}) as client:
        options = BenchOptions(sizes=[4 * KIB, 64 * KIB], dispatch_iterations=30, compile_repeats=1, steady_runs=3,
                               peak_h2d_gbps=1000.0)
        return run_bench(client, plugin_summary(plugin, client), options)


def test_bench_measures_every_view(small_bench: dict) -> None:
    transfers = small_bench["transfers"]
    for series in ("h2d", "d2h", "d2d", "device_memory", "host_memcpy"):
        assert [row["bytes"] for row in transfers[series]] == [4 * KIB, 64 * KIB], series
        assert all(row["gbps"] > 0 and row["repeats"] >= 3 for row in transfers[series]), series
    rt = small_bench["dispatch"]["round_trip"]
    assert 0 < rt["p50_us"] <= rt["p99_us"] and rt["n"] == 30
    assert small_bench["compile"]["median_s"] > 0 and small_bench["compile"]["ops"] >= 20
    assert set(small_bench["first_run"]) == {"tiny_add", "mlp3"}
    assert 0 < small_bench["ratios"]["h2d_vs_peak"] < 1
    assert set(small_bench["ratios"]["h2d_vs_host_memcpy"]) == {"4 KiB", "64 KiB"}


def test_section_is_well_formed_and_escapes_text(small_bench: dict) -> None:
    bench = json.loads(json.dumps(small_bench))
    bench["plugin"]["platform_name"] = "<script>alert(1)</script>"
    bench["notes"] = ["a & b < c"]
    html = render_bench_section(bench)
    assert "<script>" not in html and "&lt;script&gt;" in html
    ET.fromstring(html)  # well-formed: every tag closed, every text escaped


def test_charts_are_valid_svg() -> None:
    charts = [
        line_chart_log2x("t <1>", [("a&b", [(4096, 1.0), (65536, 2.5)]), ("empty", [])], "x", "y"),
        line_chart_log2x("none", [], "x", "y"),
        histogram_log("h", [10.0, 12.0, 11.0, 200.0], {"p50": 11.0, "p99": 190.0}, "us"),
        histogram_log("h", [5.0, 5.0], {"p50": 5.0}, "us"),
        horizontal_bars("b", [("first", 250.0), ("steady", 30.0)], "us"),
    ]
    for chart in charts:
        root = ET.fromstring(chart)
        assert root.tag.endswith("svg")


def test_bench_cli_writes_json_html_and_merges_results(tmp_path: Path) -> None:
    (tmp_path / "results.json").write_text(json.dumps({"schema_version": 1, "tests": []}))
    result = subprocess.run(
        [sys.executable, "-m", "pjrt_cts.cli.main", "bench", "--sizes", "4K,16K", "--dispatch-iterations", "20",
         "--compile-repeats", "1", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=300, env=dict(os.environ))
    assert result.returncode == 0, result.stderr[-2000:]
    bench = json.loads((tmp_path / "bench.json").read_text())
    assert [row["bytes"] for row in bench["transfers"]["h2d"]] == [4 * KIB, 16 * KIB]
    assert json.loads((tmp_path / "results.json").read_text())["bench"]["dispatch"]["round_trip"]["n"] == 20
    assert (tmp_path / "bench.html").read_text().count("<svg") >= 3
    assert "p50" in result.stdout
