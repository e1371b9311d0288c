"""docs/ARCHITECTURE.md's results.json tables and docs/conformance.md's summary.json tables are the ones
pjrt_cts.schema renders from its fields: they cannot drift."""
from __future__ import annotations

from pathlib import Path

from pjrt_cts.schema import DOC_BEGIN, DOC_END, SUMMARY_DOCUMENTED, schema_doc

ARCHITECTURE = Path(__file__).resolve().parents[2] / "docs" / "ARCHITECTURE.md"
CONFORMANCE = ARCHITECTURE.with_name("conformance.md")


def test_the_documented_schema_is_the_generated_one() -> None:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    begin, end = text.index(DOC_BEGIN), text.index(DOC_END) + len(DOC_END)
    assert text[begin:end] == schema_doc(), (
        "docs/ARCHITECTURE.md's schema tables differ from pjrt_cts/schema.py: paste "
        "`python -c 'from pjrt_cts.schema import schema_doc; print(schema_doc())'` between the markers")


def test_the_documented_summary_is_the_generated_one() -> None:
    text = CONFORMANCE.read_text(encoding="utf-8")
    begin, end = text.index(DOC_BEGIN), text.index(DOC_END) + len(DOC_END)
    assert text[begin:end] == schema_doc(SUMMARY_DOCUMENTED), (
        "docs/conformance.md's summary.json tables differ from pjrt_cts/schema.py: paste `python -c 'from "
        "pjrt_cts.schema import SUMMARY_DOCUMENTED, schema_doc; print(schema_doc(SUMMARY_DOCUMENTED))'` between the markers")
