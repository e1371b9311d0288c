"""docs/levels.md's mandatory counts are the ones the frozen lists (pjrt_cts/judgment/mustpass) hold: the table is
generated (mandatory_counts_doc) and cannot drift from the lists."""
from __future__ import annotations

from pathlib import Path

from pjrt_cts.judgment.levels import COUNTS_BEGIN, COUNTS_END, mandatory_counts_doc

LEVELS_DOC = Path(__file__).resolve().parents[2] / "docs" / "levels.md"


def test_the_documented_mandatory_counts_are_the_lists() -> None:
    text = LEVELS_DOC.read_text(encoding="utf-8")
    begin, end = text.index(COUNTS_BEGIN), text.index(COUNTS_END) + len(COUNTS_END)
    assert text[begin:end] == mandatory_counts_doc(), (
        "docs/levels.md's mandatory counts differ from pjrt_cts/judgment/mustpass: paste `python -c 'from "
        "pjrt_cts.judgment.levels import mandatory_counts_doc; print(mandatory_counts_doc())'` between the markers")
