"""The report opened in headless Chromium (Debian's `chromium` package): renders, no console errors, and nothing
runs out sideways in a 1400-pixel window (the width a reader gives it on a laptop).

Skipped only when /usr/bin/chromium is absent; CI installs it with
`apt-get update && apt-get install -y --no-install-recommends chromium`.
"""
from __future__ import annotations

import json
import os
import struct
import subprocess
import tempfile
import zlib
from pathlib import Path

import pytest

from pjrt_cts.schema import Results
from pjrt_cts.report.html import write_report
from pjrt_cts.judgment.results import anchor_for

from .html_probe import Probe

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--enable-logging=stderr", "--v=0", "--hide-scrollbars",
]  # fmt: skip
TANH_FAIL = "execute.golden.test_case_matches_reference[elementwise.tanh.bf16.r2]"
WINDOW = 1400
OVERFLOW_PROBE = Path(__file__).with_name("overflow_probe.js")
FIXTURES = Path(__file__).resolve().parent / "fixtures"
# The records of the smallest test of each of the 45 defects (and 5 PASS records) of a full default run
# (lammps-jax-pjrt-cpu 0.11.2, 17,357 tests, 2026-12-06), its defect table, expectations and plugin card as
# written; tracebacks and stderr tails cut to 600 characters. Real test ids, commands and reasons, at their real
# lengths: what ran out of the verdict card and past the window.
REAL_EXCERPT = FIXTURES / "cpu_run_defects_excerpt.json"
CONFORMANCE_PAGE = Path(__file__).resolve().parents[2] / "docs" / "conformance" / "index.html"

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="headless Chromium not installed: apt-get update && apt-get install -y --no-install-recommends chromium",
)


def chromium(*args: str) -> subprocess.CompletedProcess[str]:
    with tempfile.TemporaryDirectory(prefix="pjrt-cts-chromium-") as profile:
        return subprocess.run(
            [str(CHROMIUM), *FLAGS, f"--user-data-dir={profile}", *args],
            capture_output=True, text=True, timeout=120, check=False,
            env={**os.environ, "HOME": profile},
        )  # fmt: skip


def console_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if ":CONSOLE" in line]


def png_size_and_distinct_bytes(path: Path) -> tuple[int, int, int]:
    """(width, height, distinct byte values of the pixel data): a blank page has very few."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    offset, idat = 8, b""
    while offset < len(data):
        (length,) = struct.unpack(">I", data[offset:offset + 4])
        kind = data[offset + 4:offset + 8]
        if kind == b"IDAT":
            idat += data[offset + 8:offset + 8 + length]
        offset += 12 + length
    return width, height, len(set(zlib.decompress(idat)))


def assert_renders(page: Path, shot: Path, window: str = "1400,2000") -> tuple[int, int]:
    """Chromium screenshots `page` into `shot`: it exits cleanly, logs nothing on the console and the picture is
    not blank. The screenshot's (width, height)."""
    run = chromium(f"--window-size={window}", f"--screenshot={shot}", page.as_uri())
    assert run.returncode == 0, run.stderr[-2000:]
    assert console_lines(run.stderr) == []
    width, height, distinct = png_size_and_distinct_bytes(shot)
    assert distinct > 64, f"the screenshot of {page.name} looks blank"
    return width, height


def overflow(page: str, tmp_path: Path, width: int = WINDOW) -> list[str]:
    """What of the HTML `page` runs out sideways in a `width`-pixel Chromium window (overflow_probe.js): the
    document wider than the window, an element sticking out of its card or table cell, text wider than its box."""
    probed = tmp_path / "overflow-probe.html"
    probe = f"<script>{OVERFLOW_PROBE.read_text(encoding='utf-8')}</script></body>"
    probed.write_text(page.replace("</body>", probe, 1), encoding="utf-8")
    run = chromium(f"--window-size={width},1000", "--dump-dom", probed.as_uri())
    assert run.returncode == 0, run.stderr[-2000:]
    found = json.loads(Probe(run.stdout).by_id("overflow-probe").text)
    assert found["viewport"] == width, "the window is not as wide as asked: the probe measured another layout"
    wider = [f"the document is {found['scrollWidth']} px wide"] if found["scrollWidth"] > width else []
    return wider + found["overflowing"]


def assert_fits(page: str, tmp_path: Path) -> None:
    found = overflow(page, tmp_path)
    assert not found, f"{len(found)} thing(s) run out sideways at {WINDOW} px:\n" + "\n".join(found[:25])


@pytest.fixture(scope="module")
def report_file(tmp_path_factory) -> Path:
    from .conftest import load_synthetic

    out = tmp_path_factory.mktemp("out")
    path = out / "report.html"
    write_report(Results.from_json(load_synthetic()), path, results_dir=out)
    return path


def test_detects_console_errors(tmp_path: Path) -> None:
    """The console scan below can fail: a page with a script error is caught."""
    page = tmp_path / "broken.html"
    page.write_text("<!DOCTYPE html><title>t</title><script>undefinedFunction()</script>", encoding="utf-8")
    run = chromium("--dump-dom", page.as_uri())
    assert run.returncode == 0, run.stderr[-2000:]
    assert any("undefinedFunction" in line for line in console_lines(run.stderr))


def test_overflow_probe_finds_what_runs_out(tmp_path: Path) -> None:
    """The overflow check can fail: a card whose line does not wrap, a cell whose test id does not break and a
    table wider than the window are each caught; the same page with wrapping text is clean."""
    long_id = "execute.golden_cases.test_case_matches_reference[spec.map.multiply.f32]" * 2
    page = ("<!DOCTYPE html><html><head><style>.card{width:200px} table{table-layout:fixed;width:1800px} td{width:90px}"
            "%s</style></head><body><div class='card'><b>%s</b></div>"
            "<table><tr><td><span>%s</span></td><td>x</td></tr></table><div>fits</div></body></html>")
    found = overflow(page % ("", long_id, long_id), tmp_path)
    assert any(line.startswith("the document is") for line in found), found
    assert any(line.startswith("div.card: its content is") for line in found), found
    assert any(line.startswith("span sticks out of its td") for line in found), found
    assert any(line.startswith("table ends") and "past the window" in line for line in found), found
    fixed = "table{width:auto} *{overflow-wrap:anywhere}"
    assert overflow(page % (fixed, long_id, long_id), tmp_path) == []


@pytest.mark.parametrize("source", ["synthetic", "real-excerpt"])
def test_report_fits_a_1400_pixel_window(source: str, tmp_path: Path) -> None:
    """Nothing of the report runs out sideways at 1400 px: the verdict card's line wraps inside the card, the
    defect table (long test ids, reproduction commands) fits the window. Only the op × dtype coverage matrix,
    a column per dtype, scrolls sideways, inside its own box."""
    from .conftest import load_synthetic

    data = load_synthetic() if source == "synthetic" else json.loads(REAL_EXCERPT.read_text(encoding="utf-8"))
    path = tmp_path / "report.html"
    write_report(Results.from_json(data), path, results_dir=tmp_path)
    assert_fits(path.read_text(encoding="utf-8"), tmp_path)
    assert assert_renders(path, tmp_path / "report.png", window=f"{WINDOW},1400") == (WINDOW, 1400)


def test_checked_in_conformance_matrix_fits_a_1400_pixel_window(tmp_path: Path) -> None:
    """docs/conformance/index.html at 1400 px: no verdict reason runs over the next column, the page does not
    scroll sideways (its two wide tables scroll inside their own boxes)."""
    assert_fits(CONFORMANCE_PAGE.read_text(encoding="utf-8"), tmp_path)


def test_report_renders_in_chromium(report_file: Path) -> None:
    assert assert_renders(report_file, report_file.with_name("report.png")) == (1400, 2000)


def test_report_dom_after_scripts_ran(report_file: Path) -> None:
    run = chromium("--dump-dom", report_file.as_uri())
    assert run.returncode == 0, run.stderr[-2000:]
    assert console_lines(run.stderr) == []
    page = Probe(run.stdout)
    assert page.title.startswith("PJRT conformance report: pjrt_c_api_cpu_plugin.so (cpu")
    assert page.by_id("verdict").text.strip() == "NON_CONFORMANT"
    assert page.by_id("coverage-matrix").tag == "table"
    assert "hidden" not in page.by_id("filterbox").attrs  # the filter script ran
    entry = page.by_id(anchor_for(TANH_FAIL))
    assert "max_abs_err=0.0234" in entry.text and entry.visible_without_clicks()


def test_report_is_readable_without_javascript(report_file: Path) -> None:
    # Headless --dump-dom/--screenshot need page scripts enabled, so block the report's own script with a
    # Content-Security-Policy instead: the page must render and hold everything without it.
    no_js = report_file.with_name("report-nojs.html")
    html = report_file.read_text(encoding="utf-8")
    no_js.write_text(html.replace("<head>", "<head><meta http-equiv=\"Content-Security-Policy\" "
                                  "content=\"script-src 'none'\">", 1), encoding="utf-8")
    shot = report_file.with_name("report-nojs.png")
    run = chromium("--window-size=1400,1200", f"--screenshot={shot}", no_js.as_uri())
    assert run.returncode == 0, run.stderr[-2000:]
    assert png_size_and_distinct_bytes(shot)[2] > 64, "the script-less screenshot looks blank"
    run = chromium("--dump-dom", no_js.as_uri())
    console = console_lines(run.stderr)
    assert console and all("Content Security Policy" in line for line in console)  # the script was blocked
    page = Probe(run.stdout)
    assert "hidden" in page.by_id("filterbox").attrs  # no dead control without scripts
    assert page.by_id("verdict").text.strip() == "NON_CONFORMANT"
    entry = page.by_id(anchor_for(TANH_FAIL))
    assert "max_abs_err=0.0234" in entry.text and entry.visible_without_clicks()


def test_conformance_matrix_renders_in_chromium(tmp_path: Path) -> None:
    from pjrt_cts.judgment.summary import run_summary
    from pjrt_cts.report.matrix import render_matrix_html

    from .conftest import load_synthetic, make_clean

    failing, clean = (run_summary(Results.from_json(data)) for data in (load_synthetic(), make_clean(load_synthetic())))
    page = tmp_path / "matrix.html"
    page.write_text(render_matrix_html([failing, clean], [(failing, clean)]), encoding="utf-8")
    assert_renders(page, tmp_path / "matrix.png", window="1400,1000")
    run = chromium("--dump-dom", page.as_uri())
    dom = Probe(run.stdout)
    assert dom.title == "PJRT plugin conformance matrix"
    assert "NON_CONFORMANT" in dom.by_id("run-1").text + dom.by_id("run-2").text
    assert dom.by_id("diffs").tag == "section"
