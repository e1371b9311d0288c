"""The conformance matrix checked in under docs/conformance/: every summary validates against the current schema
(RunSummary refuses unknown keys) and against its own counts (no verdict, level or spec mark they contradict), a
row whose submission bundle is checked in beside it (`<row>.zip`) is verified, and the commands
docs/conformance/README.md gives regenerate the checked-in pages byte for byte, whatever version of the suite runs
them."""
from __future__ import annotations

import glob
import json
import re
import shlex
import zipfile
from pathlib import Path

import pytest

import pjrt_cts
from pjrt_cts.cli.main import main
from pjrt_cts.judgment.summary import summary_contradictions
from pjrt_cts.runner.files.bundle import SUMMARY, verify_bundle
from pjrt_cts.schema import SUMMARY_FORMAT, RunSummary

ROOT = Path(__file__).resolve().parents[2]
CONFORMANCE = ROOT / "docs" / "conformance"
# The fenced block under this heading of docs/conformance/README.md holds the regenerate commands.
REGENERATE_HEADING = "## Regenerating the page"


def _summaries() -> list[Path]:
    return sorted(CONFORMANCE.glob("*.json"))


def _regenerate_commands() -> list[list[str]]:
    """Each `pjrt-cts matrix ...` line of the README's regenerate block, split as a shell would (globs expanded
    from the repository root, sorted as bash sorts them in the C locale)."""
    text = (CONFORMANCE / "README.md").read_text(encoding="utf-8")
    section = text[text.index(REGENERATE_HEADING):]
    block = re.search(r"```(?:bash|sh)\n(.*?)```", section, re.S)
    assert block, f"docs/conformance/README.md: no ```bash block under {REGENERATE_HEADING!r}"
    commands = []
    for line in block.group(1).replace("\\\n", " ").splitlines():  # a command goes on after a backslash-newline
        words = shlex.split(line, comments=True)
        if words[:2] != ["pjrt-cts", "matrix"]:
            continue
        argv: list[str] = []
        for word in words[1:]:
            argv += sorted(glob.glob(word, root_dir=ROOT)) if "*" in word else [word]
        commands.append(argv)
    return commands


def _output_of(argv: list[str]) -> str:
    position = argv.index("-o") + 1
    return argv[position]


def test_there_are_summaries_and_each_validates_against_the_current_schema() -> None:
    summaries = _summaries()
    assert summaries, "docs/conformance/ holds no summary"
    for path in summaries:
        data = json.loads(path.read_text(encoding="utf-8"))
        assert data.get("format") == SUMMARY_FORMAT, f"{path.name} is not a summary.json"
        summary = RunSummary.from_json(data)  # unknown or missing keys raise
        assert summary.dumps() == path.read_text(encoding="utf-8"), (
            f"{path.name} is not a summary.json as `pjrt-cts run` writes it (copy it unchanged)")


@pytest.mark.parametrize("path", _summaries(), ids=lambda path: path.stem)
def test_no_checked_in_summary_claims_what_its_own_counts_contradict(path: Path) -> None:
    summary = RunSummary.from_json(json.loads(path.read_text(encoding="utf-8")))
    assert summary_contradictions(summary) == [], f"{path.name} contradicts itself"


@pytest.mark.parametrize("path", _summaries(), ids=lambda path: path.stem)
def test_a_row_with_its_bundle_checked_in_is_the_bundles_verified_claim(path: Path) -> None:
    """A row's bundle, where one is checked in as docs/conformance/<row>.zip (README: "Adding a row"), must verify
    and hold this very summary. None is checked in today: each row says so by skipping."""
    if not path.with_suffix(".zip").is_file():
        pytest.skip(f"no bundle checked in for {path.name} ({path.with_suffix('.zip').name})")
    check_row_bundle(path)


def check_row_bundle(path: Path) -> None:
    """The bundle beside the row's summary verifies (a later suite may judge it: its own facts must hold) and
    holds this very summary."""
    bundle = path.with_suffix(".zip")
    found = verify_bundle(bundle, other_suite_ok=True)
    assert found.holds, found.conclusion()
    with zipfile.ZipFile(bundle) as archive:
        assert archive.read(SUMMARY) == path.read_bytes(), f"{path.name} is not the summary its bundle holds"


def test_the_row_bundle_check_verifies_a_bundle_and_its_summary(tmp_path: Path) -> None:
    """check_row_bundle, on a row made as the README says: a run's summary.json copied beside its bundle."""
    from pjrt_cts.judgment.results import load_results
    from pjrt_cts.judgment.summary import run_summary, write_summary
    from pjrt_cts.runner.files.bundle import pack_bundle

    from .test_bundle import synthetic_run

    out = synthetic_run(tmp_path / "run")
    write_summary(run_summary(load_results(out / "results.json")), out / SUMMARY)
    row = tmp_path / "plugin-1.0-x86_64-2cpu.json"
    row.write_bytes((out / SUMMARY).read_bytes())
    pack_bundle(out, row.with_suffix(".zip"))
    check_row_bundle(row)
    row.write_text(row.read_text(encoding="utf-8").replace('"CONFORMANT"', '"INCOMPLETE"'), encoding="utf-8")
    with pytest.raises(AssertionError, match="is not the summary its bundle holds"):
        check_row_bundle(row)


def test_the_readme_regenerates_the_html_page_and_the_markdown_page_from_every_summary() -> None:
    commands = _regenerate_commands()
    outputs = sorted(Path(_output_of(argv)).suffix for argv in commands)
    assert outputs == [".html", ".md"], "the README regenerates the HTML page and its Markdown variant"
    for argv in commands:
        named = {ROOT / word for word in argv if word.endswith(".json")}
        assert set(_summaries()) <= named, f"{shlex.join(argv)} leaves out a checked-in summary"


@pytest.mark.parametrize("argv", _regenerate_commands(), ids=lambda argv: Path(_output_of(argv)).name)
def test_the_checked_in_page_regenerates_byte_identically(argv: list[str], tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    # The page depends on the summaries only, never on the version of the suite that renders it.
    monkeypatch.setattr(pjrt_cts, "__version__", "0.0.0+another-suite", raising=False)
    monkeypatch.chdir(ROOT)
    checked_in = ROOT / _output_of(argv)
    regenerated = tmp_path / checked_in.name
    position = argv.index("-o") + 1
    assert main([*argv[:position], str(regenerated), *argv[position + 1:]]) == 0
    assert regenerated.read_bytes() == checked_in.read_bytes(), (
        f"{checked_in.relative_to(ROOT)} is stale: run the commands of docs/conformance/README.md "
        f"({REGENERATE_HEADING!r})")
