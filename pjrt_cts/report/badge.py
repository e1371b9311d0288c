"""A shields.io-style SVG badge of a run: `PJRT conformance | Full · spec ✗ · 4 waived defects`, self-contained
(no network). The spec mark is the verdict's (pjrt_cts.judgment.verdict): ✓ when every spec case equals the StableHLO
spec, ✗ when some deviate (even as XLA does); absent when no spec case ran."""
from __future__ import annotations

from pathlib import Path
from xml.sax.saxutils import escape

from pjrt_cts.judgment.levels import LEVELS
from pjrt_cts.judgment.outcomes import Outcome
from pjrt_cts.judgment.results import outcome_counts
from pjrt_cts.schema import Results
from pjrt_cts.judgment.verdict import CONFORMANT, INCOMPLETE, judge_results

LABEL = "PJRT conformance"
COLOR_TOP = "#4c1"  # highest level
COLOR_LEVEL = "#97ca00"
COLOR_NO_LEVEL = "#a4a61d"
COLOR_FAILING = "#e05d44"
COLOR_NONE = "#9f9f9f"

# Approximate advance widths of Verdana 11px (what badges render in), by character class.
_NARROW = set("fijlrtI.,:;!|'()[] ·")
_WIDE = set("mwMW%@")
_UPPER_WIDTH, _LOWER_WIDTH, _NARROW_WIDTH, _WIDE_WIDTH, _DIGIT_WIDTH = 7.5, 6.6, 3.9, 10.0, 7.0


def text_width(text: str) -> float:
    width = 0.0
    for char in text:
        if char in _NARROW:
            width += _NARROW_WIDTH
        elif char in _WIDE:
            width += _WIDE_WIDTH
        elif char.isdigit():
            width += _DIGIT_WIDTH
        elif char.isupper():
            width += _UPPER_WIDTH
        else:
            width += _LOWER_WIDTH
    return width


def badge_message(results: Results) -> tuple[str, str]:
    """(message, colour) for a run."""
    judged = judge_results(results)
    verdict = judged.verdict
    counts = outcome_counts(results.tests)
    passed, total = counts.get(Outcome.PASS, 0), sum(counts.values())
    if not total:
        return "no results", COLOR_NONE
    if verdict == INCOMPLETE:
        return f"incomplete · {passed}/{total} pass", COLOR_NONE
    if verdict != CONFORMANT:
        bad = sum(count for outcome, count in counts.items() if outcome.is_bad)
        return f"failing ({bad} bad)", COLOR_FAILING
    level = judged.level
    if level is None:
        return f"no level · {passed}/{total} pass", COLOR_NO_LEVEL
    color = COLOR_TOP if level == LEVELS[-1].name else COLOR_LEVEL
    parts = [level]
    mark = judged.spec_mark()
    if mark is not None:
        parts.append(mark)
    if judged.waived_defects:
        count = len(judged.waived_defects)
        parts.append(f"{count} waived defect{'' if count == 1 else 's'}")
    return " · ".join(parts), color


def render_badge(label: str, message: str, color: str) -> str:
    label_width = round(text_width(label) + 12)
    message_width = round(text_width(message) + 12)
    total = label_width + message_width
    label_x, message_x = label_width / 2, label_width + message_width / 2
    title = escape(f"{label}: {message}")
    label, message = escape(label), escape(message)
    return f"""<svg xmlns="http://www.w3.org/2000/svg" width="{total}" height="20" role="img" aria-label="{title}">
<title>{title}</title>
<linearGradient id="s" x2="0" y2="100%">
<stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/>
</linearGradient>
<clipPath id="r"><rect width="{total}" height="20" rx="3" fill="#fff"/></clipPath>
<g clip-path="url(#r)">
<rect width="{label_width}" height="20" fill="#555"/>
<rect x="{label_width}" width="{message_width}" height="20" fill="{color}"/>
<rect width="{total}" height="20" fill="url(#s)"/>
</g>
<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">
<text x="{label_x}" y="15" fill="#010101" fill-opacity=".3">{label}</text>
<text x="{label_x}" y="14">{label}</text>
<text x="{message_x}" y="15" fill="#010101" fill-opacity=".3">{message}</text>
<text x="{message_x}" y="14">{message}</text>
</g>
</svg>
"""


def badge_svg(results: Results, label: str = LABEL) -> str:
    message, color = badge_message(results)
    return render_badge(label, message, color)


def write_badge(results: Results, path: Path, label: str = LABEL) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(badge_svg(results, label), encoding="utf-8")
