"""The report opened in headless Chromium (Debian's `chromium` package): renders, no console errors.

Skipped only when /usr/bin/chromium is absent; CI installs it with
`apt-get update && apt-get install -y --no-install-recommends chromium`.
"""
from __future__ import annotations

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


def test_report_renders_in_chromium(report_file: Path) -> None:
    assert assert_renders(report_file, report_file.with_name("report.png")) == (1400, 2000)


def test_report_dom_after_scripts_ran(report_file: Path) -> None:
    run = chromium("--dump-dom", report_file.as_uri())
    assert run.returncode == 0, run.stderr[-2000:]
    assert console_lines(run.stderr) == []
    page = Probe(run.stdout)
    assert page.title.startswith("PJRT conformance report: cpu")
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
