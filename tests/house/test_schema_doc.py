"""docs/ARCHITECTURE.md's results.json tables and docs/conformance.md's summary.json tables are the ones
pjrt_cts.cli.schema renders from the JSON Schemas of docs/schema/, and docs/levels.md's mandatory counts the ones the frozen lists
(pjrt_cts/judgment/mustpass) hold: they cannot drift."""
from __future__ import annotations

from pathlib import Path

from pjrt_cts.judgment.levels import COUNTS_BEGIN, COUNTS_END, mandatory_counts_doc
from pjrt_cts.cli.schema import DOC_BEGIN, DOC_END, schema_doc, summary_documented

ARCHITECTURE = Path(__file__).resolve().parents[2] / "docs" / "ARCHITECTURE.md"
CONFORMANCE = ARCHITECTURE.with_name("conformance.md")
LEVELS_DOC = ARCHITECTURE.with_name("levels.md")


def _generated_part(doc: Path, begin: str, end: str) -> str:
    """The part of `doc` between the markers `begin` and `end`, markers included."""
    text = doc.read_text(encoding="utf-8")
    return text[text.index(begin):text.index(end) + len(end)]


def test_the_documented_schema_is_the_generated_one() -> None:
    assert _generated_part(ARCHITECTURE, DOC_BEGIN, DOC_END) == schema_doc(), (
        "docs/ARCHITECTURE.md's schema tables differ from the shapes: paste `pjrt-cts schema --doc architecture` "
        "between the markers")


def test_the_documented_summary_is_the_generated_one() -> None:
    assert _generated_part(CONFORMANCE, DOC_BEGIN, DOC_END) == schema_doc(summary_documented()), (
        "docs/conformance.md's summary.json tables differ from the shapes: paste `pjrt-cts schema --doc "
        "conformance` between the markers")


def test_the_documented_mandatory_counts_are_the_lists() -> None:
    assert _generated_part(LEVELS_DOC, COUNTS_BEGIN, COUNTS_END) == mandatory_counts_doc(), (
        "docs/levels.md's mandatory counts differ from pjrt_cts/judgment/mustpass: paste `python -c 'from "
        "pjrt_cts.judgment.levels import mandatory_counts_doc; print(mandatory_counts_doc())'` between the markers")
