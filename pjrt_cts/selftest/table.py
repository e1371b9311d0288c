"""Plain-text rendering of a selftest: defect -> caught (by which tests) / missed, and the score."""
from __future__ import annotations

from typing import TYPE_CHECKING

from pjrt_cts.proxy.catalogue import Defect

if TYPE_CHECKING:
    from pjrt_cts.selftest import SelftestReport

_SHOWN_IDS = 2


def _ids(ids: list[str]) -> str:
    if not ids:
        return "-"
    shown = ", ".join(ids[:_SHOWN_IDS])
    return shown + (f" (+{len(ids) - _SHOWN_IDS} more)" if len(ids) > _SHOWN_IDS else "")


def render_table(report: "SelftestReport") -> str:
    rows = [("defect", "layer", "verdict", "caught by / why not")]
    for verdict in report.verdicts:
        if verdict.catching_tests:
            detail = _ids(verdict.catching_tests)
        else:
            detail = verdict.explanation or "-"
        status = verdict.status.upper() + ("" if verdict.correct else " !")
        rows.append((verdict.defect.name, verdict.defect.layer, status, detail))
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    lines = []
    for index, row in enumerate(rows):
        lines.append("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row[:3])) + "  " + row[3])
        if index == 0:
            lines.append("  ".join("-" * w for w in widths) + "  " + "-" * 20)
    correct = sum(v.correct for v in report.verdicts)
    lines.append("")
    lines.append(f"mutation score: {correct}/{len(report.verdicts)} = {report.score:.1%} "
                 f"({'targeted' if not report.options.full else 'full'} selection, {report.wall_seconds:.0f}s)")
    passthrough = report.passthrough
    if report.real is not None:
        state = "green (same outcomes as the real plugin)" if report.passthrough_green else \
            f"NOT green: {len(report.differences)} test(s) differ from the real plugin"
    else:
        state = "not compared with the real plugin"
    lines.append(f"passthrough proxy: {len(passthrough.selected())} tests, {state}")
    for test_id, (real, proxied) in list(report.differences.items())[:20]:
        lines.append(f"  {test_id}: real {real} -> proxy {proxied}")
    return "\n".join(lines)


def render_catalogue(defects: list[Defect]) -> str:
    width = max(len(d.name) for d in defects)
    lines = []
    for defect in defects:
        tag = " (negative control: must be tolerated)" if defect.expect == "tolerated" else ""
        lines.append(f"{defect.name.ljust(width)}  {defect.layer:<11} {defect.description}{tag}")
        lines.append(f"{'':{width}}  {'':<11} expected catchers: {', '.join(defect.catchers)}")
    return "\n".join(lines)
