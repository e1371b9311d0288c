"""Plain-text rendering of a selftest: defect -> caught / missed, whether the diagnosis named it, the verdict and
level it produced, and the score."""
from __future__ import annotations

from typing import TYPE_CHECKING

from pjrt_cts.proxy.catalogue import TOLERATED, Defect
from pjrt_cts.selftest.judging import MutantJudgement

if TYPE_CHECKING:
    from pjrt_cts.selftest import SelftestReport

_SHOWN_IDS = 2
_COLUMNS = ("defect", "breaks", "status", "named", "verdict produced", "caught by / why not")


def _ids(ids: list[str]) -> str:
    if not ids:
        return "-"
    shown = ", ".join(ids[:_SHOWN_IDS])
    return shown + (f" (+{len(ids) - _SHOWN_IDS} more)" if len(ids) > _SHOWN_IDS else "")


def render_table(report: "SelftestReport") -> str:
    rows = [_COLUMNS]
    for verdict in report.verdicts:
        if verdict.catching_tests:
            detail = _ids(verdict.catching_tests)
            if verdict.explanation:
                detail += f" [{verdict.explanation}]"
        elif verdict.correct and verdict.reasons:
            detail = verdict.reasons[0]  # e.g. a mandatory test that went missing
        else:
            detail = verdict.explanation or (verdict.reasons[0] if verdict.reasons else "-")
        status = verdict.status.upper() + ("" if verdict.correct else " !")
        rows.append((verdict.defect.name, verdict.defect.breaks, status, _named(verdict), verdict.produced, detail))
    fixed = len(_COLUMNS) - 1
    widths = [max(len(row[i]) for row in rows) for i in range(fixed)]
    lines = []
    for index, row in enumerate(rows):
        lines.append("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row[:fixed])) + "  " + row[fixed])
        if index == 0:
            lines.append("  ".join("-" * w for w in widths) + "  " + "-" * 20)
    correct = sum(v.correct for v in report.verdicts)
    lines.append("")
    lines.append(f"mutation score: {correct}/{len(report.verdicts)} = {report.score:.1%} "
                 f"({'targeted' if not report.options.full else 'full'} selection, {report.wall_seconds:.0f}s)")
    naming = [v for v in report.verdicts if v.defect.names]
    if naming:
        unnamed = [v.defect.name for v in naming if not v.named]
        lines.append(f"deviation mutants named by the diagnosis: {len(naming) - len(unnamed)}/{len(naming)}"
                     + (f" (not named: {', '.join(unnamed)})" if unnamed else ""))
    hatches = [v.defect.name for v in report.verdicts if v.defect.escape_hatch]
    hatches += [hatch.name for hatch in report.run_hatches]
    if hatches:
        escaped = report.escape_hatches_missed + [hatch.name for hatch in report.run_hatches if not hatch.caught]
        lines.append(f"escape hatches caught: {len(hatches) - len(escaped)}/{len(hatches)}"
                     + (f" (not caught: {', '.join(escaped)})" if escaped else "")
                     + (f"; the runner's own: {', '.join(h.name for h in report.run_hatches)}" if report.run_hatches else ""))
    passthrough = report.passthrough
    if report.real is not None:
        state = "same outcomes as the real plugin" if not report.differences else \
            f"{len(report.differences)} test(s) differ from the real plugin"
    else:
        state = "not compared with the real plugin"
    baseline = report.baseline
    lines.append(f"passthrough proxy: {'green' if report.passthrough_green else 'NOT green'}: "
                 f"{len(passthrough.selected())} tests ({len(baseline.mandatory)} mandatory ids), {state}, "
                 f"verdict {baseline.passthrough_verdict.line()}")
    for reason in baseline.passthrough_verdict.reasons[:5]:
        lines.append(f"  {reason}")
    if baseline.set_aside:
        lines.append(f"  {len(baseline.set_aside)} test(s) bad on the passthrough set aside on both sides "
                     f"(e.g. {', '.join(baseline.set_aside[:3])}); mutants judged against {baseline.verdict.line()}")
    for test_id, (real, proxied) in list(report.differences.items())[:20]:
        lines.append(f"  {test_id}: real {real} -> proxy {proxied}")
    return "\n".join(lines)


def _named(verdict: MutantJudgement) -> str:
    """`yes (12/12)` / `no` for a caught defect that names one, `-` otherwise."""
    if verdict.naming is None:
        return "-"
    if not verdict.naming.named:
        return "no"
    return verdict.naming.summary(verdict.defect.names)


def render_catalogue(defects: list[Defect]) -> str:
    width = max(len(d.name) for d in defects)
    lines = []
    for defect in defects:
        tag = " (negative control: must be tolerated)" if defect.expect == TOLERATED else ""
        lines.append(f"{defect.name.ljust(width)}  {defect.layer:<11} breaks {defect.breaks:<12} {defect.description}{tag}")
        lines.append(f"{'':{width}}  {'':<11} expected catchers: {', '.join(defect.catchers)}")
        if defect.names:
            lines.append(f"{'':{width}}  {'':<11} the diagnosis must name: {defect.names}")
    return "\n".join(lines)
