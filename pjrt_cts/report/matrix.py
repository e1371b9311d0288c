"""The conformance matrix (`pjrt-cts matrix`): many runs' summaries on one page, HTML or Markdown.

One row per plugin × version × machine, a defect × plugin grid (which defects several plugins share), and diffs
between two versions of one plugin (defects fixed, introduced, unchanged). Built from RunSummary only
(pjrt_cts.judgment.summary), so results.json and summary.json files mix. The page is a pure function of the
summaries: rows sorted, no timestamp, no path of the machine that renders it, so a checked-in page can be
regenerated and compared byte for byte.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import jinja2

from pjrt_cts.judgment.defects.catalogue import UNCLASSIFIED
from pjrt_cts.judgment.verdict import CONFORMANT, NON_CONFORMANT
from pjrt_cts.report.diff import table_cell
from pjrt_cts.schema import DefectCount, RunSummary

TEMPLATE_DIR = Path(__file__).parent / "templates"
TITLE = "PJRT plugin conformance matrix"

# How a defect shows in a row of the grid: the worst way the verdict took its tests.
OWN, WAIVED, SHARED = "own", "waived", "shared"
_MARKS = {OWN: "✗", WAIVED: "w", SHARED: "≈"}
_KIND_WORDS = {OWN: "own (bad tests)", WAIVED: "waived (XFAIL)", SHARED: "shared with XLA (SHARED_DEVIATION)"}


def plugin_name(summary: RunSummary) -> str:
    """The distribution, else the profile, else the platform: what a reader knows the plugin by."""
    return summary.distribution or summary.profile or summary.platform_name or "unknown plugin"


def row_label(summary: RunSummary) -> str:
    """`lammps-jax-pjrt-cpu 0.11.2 · 4× cpu`: a row's short name (the grid's column heading)."""
    version = f" {summary.distribution_version}" if summary.distribution_version else ""
    devices = f" · {summary.device_count}× {summary.device_kind}" if summary.device_count else " · no device"
    return f"{plugin_name(summary)}{version}{devices}"


def _version_key(version: str | None) -> tuple[tuple[int, str], ...]:
    """0.9 before 0.11.2 before 0.12.0.1: numbers compared as numbers."""
    return tuple((int(part), "") if part.isdigit() else (-1, part) for part in re.split(r"[.+-]", version or ""))


def row_key(summary: RunSummary) -> tuple[object, ...]:
    """Rows ordered by plugin, version, machine, device count; the whole summary breaks ties."""
    return (plugin_name(summary), _version_key(summary.distribution_version), _version_key(summary.api_version),
            summary.machine, summary.device_kind or "", summary.device_count, summary.dumps())


def sorted_rows(summaries: list[RunSummary]) -> list[RunSummary]:
    return sorted(summaries, key=row_key)


def defect_kind(defect: DefectCount) -> str:
    return OWN if defect.bad else WAIVED if defect.waived else SHARED


@dataclass(frozen=True)
class GridCell:
    kind: str  # OWN / WAIVED / SHARED, "" where the row does not have the defect
    tests: int = 0

    @property
    def mark(self) -> str:
        return f"{_MARKS[self.kind]} {self.tests}" if self.kind else ""


@dataclass(frozen=True)
class GridRow:
    defect: str
    title: str
    scope: str
    cells: tuple[GridCell, ...]  # one per matrix row, in row order
    plugins: int  # how many different plugins (distributions) have the defect, whatever their versions

    @property
    def runs(self) -> int:
        """How many rows have the defect."""
        return sum(1 for cell in self.cells if cell.kind)

    @property
    def shared_by_several(self) -> bool:
        """Several plugins have this one defect; "unclassified" is no defect, so it is never shared."""
        return self.plugins > 1 and self.defect != UNCLASSIFIED


def defect_grid(rows: list[RunSummary]) -> list[GridRow]:
    """One row per defect any run has, a cell per run; the defects most plugins share first, then by id;
    unclassified findings (whatever their causes) last."""
    described: dict[str, DefectCount] = {}
    for summary in rows:
        for defect in summary.defects:
            described.setdefault(defect.id, defect)
    grid = []
    for defect_id, first in described.items():
        cells, plugins = [], set()
        for summary in rows:
            found = next((d for d in summary.defects if d.id == defect_id), None)
            cells.append(GridCell(defect_kind(found), found.tests) if found else GridCell(""))
            if found:
                plugins.add(plugin_name(summary))
        grid.append(GridRow(defect=defect_id, title=first.title, scope=first.scope, cells=tuple(cells),
                            plugins=len(plugins)))
    return sorted(grid, key=lambda row: (row.defect == UNCLASSIFIED, -row.plugins, -row.runs, row.defect))


@dataclass(frozen=True)
class DefectChange:
    defect: str
    title: str
    old: DefectCount | None
    new: DefectCount | None

    def counts(self) -> str:
        """`12 tests, waived → 3 tests, own`."""
        return " → ".join(f"{_count(d.tests, 'test')}, {defect_kind(d)}" if d else "–" for d in (self.old, self.new))


@dataclass(frozen=True)
class SummaryDiff:
    """Two versions of one plugin: what the newer fixed, introduced and kept."""

    old: RunSummary
    new: RunSummary
    fixed: tuple[DefectChange, ...]
    introduced: tuple[DefectChange, ...]
    unchanged: tuple[DefectChange, ...]

    @property
    def api_change(self) -> str:
        """`0.115 → 0.116` when the two versions report different PJRT C API versions, else ""."""
        old, new = self.old.api_version, self.new.api_version
        return f"{old or '–'} → {new or '–'}" if old != new else ""

    @property
    def caveat(self) -> str:
        """Why a defect may come or go without a change of the plugin: the runs covered different layers, or one
        of them had no device (its device layers never ran), or they had different devices."""
        notes = []
        old, new = set(self.old.layers_run), set(self.new.layers_run)
        if old != new:
            parts = [f"{label} only: {', '.join(sorted(layers))}"
                     for label, layers in (("old", old - new), ("new", new - old)) if layers]
            notes.append("the runs covered different layers (" + "; ".join(parts) + "): a defect of those layers may "
                         "be unseen, not fixed or new")
        without = [label for label, summary in (("old", self.old), ("new", self.new)) if not summary.device_count]
        if len(without) == 1:
            notes.append(f"the {without[0]} run had no device: a defect its device tests would show is unseen there, "
                         "not fixed or new")
        elif not without and _devices(self.old) != _devices(self.new):
            notes.append(f"the runs had different devices ({_devices(self.old)}, {_devices(self.new)})")
        return "; ".join(notes)


def diff_summaries(old: RunSummary, new: RunSummary) -> SummaryDiff:
    before = {defect.id: defect for defect in old.defects}
    after = {defect.id: defect for defect in new.defects}

    def changes(ids: set[str]) -> tuple[DefectChange, ...]:
        return tuple(DefectChange(i, (after.get(i) or before[i]).title, before.get(i), after.get(i))
                     for i in sorted(ids))

    return SummaryDiff(old=old, new=new, fixed=changes(set(before) - set(after)),
                       introduced=changes(set(after) - set(before)), unchanged=changes(set(before) & set(after)))


def _devices(summary: RunSummary) -> str:
    """`2× NVIDIA H200`, `no device`."""
    return f"{summary.device_count}× {summary.device_kind}" if summary.device_count else "no device"


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def verdict_class(summary: RunSummary) -> str:
    return "ok" if summary.verdict == CONFORMANT else "bad" if summary.verdict == NON_CONFORMANT else "none"


def _seconds(value: float | None) -> str:
    if value is None:
        return "–"
    minutes, seconds = divmod(round(value), 60)
    return f"{minutes} min {seconds:02d} s" if minutes else f"{value:.1f} s"


def platform_text(summary: RunSummary) -> str:
    """`cuda 12.8` (name and version); the version alone when it starts with the name (`cuda 13000`), the name
    alone when the version only repeats it (`cpu`)."""
    name, version = summary.platform_name, summary.platform_version
    if name and version and version.split()[0] == name:
        return version
    return " ".join(part for part in (name, version) if part) or "–"


_NO_API = "–"  # API reached of a summary from before pjrt-cts counted the calls


def api_reached(summary: RunSummary) -> str:
    """`134/138 · 28/30 ext`, `–` for a summary from before pjrt-cts counted the calls."""
    if summary.api_slots is None:
        return _NO_API
    slots = "{}/{}".format(*summary.api_slots)
    extensions = summary.api_extension_functions
    return slots + (" · {}/{} ext".format(*extensions) if extensions is not None and extensions[1] else "")


def _short_hash(value: str | None) -> str:
    return value[:12] if value else "–"


@dataclass(frozen=True)
class RowView:
    """A matrix row as the page shows it."""

    summary: RunSummary
    label: str
    plugin: str
    version: str
    api: str
    platform: str
    devices: str
    verdict_class: str
    level: str
    spec: str
    wall: str
    plugin_hash: str
    corpus_hash: str
    suite: str
    api_reached: str  # `134/138 · 28/30 ext`: PJRT_Api functions and extension functions reached of those offered
    reason: str  # the verdict's first reason: why a row is not CONFORMANT (how a plugin failed to start)


def _row_view(summary: RunSummary) -> RowView:
    return RowView(
        summary=summary, label=row_label(summary), plugin=plugin_name(summary),
        version=summary.distribution_version or "–", api=summary.api_version or "–",
        platform=platform_text(summary),
        devices=f"{summary.device_count}× {summary.device_kind}" if summary.device_count else "none",
        verdict_class=verdict_class(summary), level=summary.level or "–", spec=summary.spec_mark or "–",
        wall=_seconds(summary.wall_seconds), plugin_hash=_short_hash(summary.plugin_sha256),
        corpus_hash=_short_hash(summary.corpus_sha256), suite=summary.suite_version or "–",
        api_reached=api_reached(summary), reason=summary.reasons[0] if summary.reasons else "",
    )


@dataclass(frozen=True)
class MatrixView:
    rows: list[RowView]
    grid: list[GridRow]
    diffs: list[tuple[SummaryDiff, str, str]]  # the diff, the old and the new row's label


Pairs = Sequence[tuple[RunSummary, RunSummary]]


def matrix_view(summaries: list[RunSummary], diffs: Pairs = ()) -> MatrixView:
    rows = sorted_rows(summaries)
    return MatrixView(rows=[_row_view(summary) for summary in rows], grid=defect_grid(rows),
                      diffs=[(diff_summaries(old, new), row_label(old), row_label(new)) for old, new in diffs])


def render_matrix_html(summaries: list[RunSummary], diffs: Pairs = ()) -> str:
    """The self-contained page (inline CSS, no script, no external asset)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATE_DIR)),
        autoescape=jinja2.select_autoescape(["html", "j2"], default_for_string=True, default=True),
        undefined=jinja2.StrictUndefined, keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True,
    )
    return env.get_template("matrix.html.j2").render(title=TITLE, view=matrix_view(summaries, diffs),
                                                     marks=_MARKS, kind_words=_KIND_WORDS,
                                                     verdict_class=verdict_class)


def _table(header: list[str], body: list[list[object]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    lines += ["| " + " | ".join(table_cell(value, width=None, markdown=True) for value in row) + " |" for row in body]
    return lines


def render_matrix_markdown(summaries: list[RunSummary], diffs: Pairs = ()) -> str:
    """The same page as GitHub-flavoured Markdown."""
    view = matrix_view(summaries, diffs)
    lines = [f"# {TITLE}", "", "## Runs", ""]
    body: list[list[object]] = []
    for row in view.rows:
        summary = row.summary
        body.append([row.plugin, row.version, row.api, row.platform, row.devices, summary.machine,
                     summary.verdict + (f": {row.reason}" if row.reason else ""), row.level, row.spec,
                     summary.own_defects, summary.shared_defects, summary.waived_defects, summary.tests,
                     row.api_reached, row.wall, row.suite, f"`{row.corpus_hash}`", f"`{row.plugin_hash}`"])
    lines += _table(["plugin", "version", "PJRT API", "platform", "devices", "machine", "verdict", "level", "spec",
                     "own defects", "shared with XLA", "waived", "tests", "API reached", "wall time", "suite",
                     "corpus", "plugin SHA-256"], body)
    if any(row.summary.api_slots is None for row in view.rows):
        lines += ["", f"API reached `{_NO_API}`: the row's summary.json was written before pjrt-cts counted the PJRT "
                  "calls of each test (no `api_slots`); a new run of that plugin fills it (`pjrt-cts coverage "
                  "results.json` lists the functions)."]
    lines += ["", "## Defects × plugins", "",
              "Marks: " + ", ".join(f"`{mark}` {_KIND_WORDS[kind]}" for kind, mark in _MARKS.items())
              + "; the number is the defect's tests in that run.", ""]
    header = ["defect", "scope", "plugins", "runs"] + [row.label for row in view.rows]
    lines += _table(header, [[f"`{g.defect}`", g.scope, g.plugins, g.runs] + [cell.mark for cell in g.cells]
                             for g in view.grid])
    for diff, old_label, new_label in view.diffs:
        lines += ["", f"## {old_label} → {new_label}", "", f"Verdict: {diff.old.line} → {diff.new.line}", ""]
        if diff.api_change:
            lines += [f"PJRT API: {diff.api_change}", ""]
        if diff.caveat:
            lines += [f"Note: {diff.caveat}.", ""]
        for heading, changes in (("fixed", diff.fixed), ("introduced", diff.introduced),
                                 ("unchanged", diff.unchanged)):
            lines.append(f"- {heading} ({len(changes)}): " + (", ".join(
                f"`{change.defect}` ({change.counts()})" for change in changes) or "none"))
    return "\n".join(lines) + "\n"
