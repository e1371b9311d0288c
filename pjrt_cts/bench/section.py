"""Render bench results: an HTML <section> for report.html (safe markup), a standalone page, a text table."""
from __future__ import annotations

from html import escape
from typing import Any

from pjrt_cts.bench import svg

SERIES = (("h2d", "host→device"), ("d2h", "device→host"), ("d2d", "device→device"),
          ("device_memory", "on-device r+w"), ("host_memcpy", "host memcpy"))


def _size_label(nbytes: float) -> str:
    for unit, name in ((1 << 30, "G"), (1 << 20, "M"), (1 << 10, "K")):
        if nbytes >= unit:
            return f"{nbytes / unit:g}{name}"
    return f"{nbytes:g}"


def _size_text(nbytes: float) -> str:
    short = _size_label(nbytes)
    return f"{short[:-1]} {short[-1]}iB" if short[-1] in "KMG" else f"{short} B"


def _num(value: Any, digits: int = 3) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.{digits}g}" if abs(value) < 1000 else f"{value:,.0f}"
    return escape(str(value))


def _transfer_table(transfers: dict[str, Any]) -> str:
    present = [(key, name) for key, name in SERIES if transfers.get(key)]
    sizes = sorted({row["bytes"] for key, _ in present for row in transfers[key]})
    head = "".join(f'<th class="num">{escape(name)} GB/s</th>' for _, name in present)
    rows = []
    for size in sizes:
        cells = []
        for key, _ in present:
            row = next((r for r in transfers[key] if r["bytes"] == size), None)
            title = f' title="median {row["median_s"] * 1e6:.1f} µs over {row["repeats"]} runs"' if row else ""
            cells.append(f'<td class="num"{title}>{_num(row["gbps"]) if row else "–"}</td>')
        rows.append(f'<tr><td class="num" style="white-space:nowrap">{escape(_size_text(size))}</td>{"".join(cells)}</tr>')
    return f'<table><tr><th class="num">size</th>{head}</tr>{"".join(rows)}</table>'


def _bandwidth_chart(transfers: dict[str, Any]) -> str:
    series = [(name, [(row["bytes"], row["gbps"]) for row in transfers[key]]) for key, name in SERIES if transfers.get(key)]
    return svg.line_chart_log2x("Bandwidth vs transfer size", series, "transfer size (bytes, log scale)", "GB/s",
                                x_tick_label=_size_label)


def render_bench_section(bench: dict[str, Any]) -> str:
    """The "Performance" section of report.html for `results["bench"]`: escaped text, inline SVG, no script."""
    transfers = bench.get("transfers") or {}
    dispatch = bench.get("dispatch") or {}
    compile_ = bench.get("compile") or {}
    first_run = bench.get("first_run") or {}
    ratios = bench.get("ratios") or {}
    plugin = bench.get("plugin") or {}
    parts = ['<section id="bench">', "<h2>Performance</h2>"]
    parts.append(f'<p class="muted">{escape(str(plugin.get("platform_name") or ""))} '
                 f'{escape(str(plugin.get("device_kind") or ""))}, {escape(str(plugin.get("devices") or "?"))} device(s), '
                 f'PJRT C API {escape(str(plugin.get("api_version") or "?"))}; measured {escape(str(bench.get("started_at") or ""))} '
                 f'in {_num(bench.get("wall_seconds"))} s. GB/s = 10<sup>9</sup> bytes/s from the median of the repeats; '
                 'on-device r+w counts each byte read and written.</p>')
    for note in bench.get("notes") or []:
        parts.append(f'<p class="muted">{escape(str(note))}</p>')
    parts.append("<h3>Bandwidth</h3>")
    parts.append(_bandwidth_chart(transfers))
    parts.append(_transfer_table(transfers))
    if ratios:
        items = []
        for key, value in sorted(ratios.items()):
            if isinstance(value, dict):
                shown = ", ".join(f"{escape(size)}: {_num(v)}" for size, v in value.items())
                items.append(f"<li><span class=\"mono\">{escape(key)}</span>: {shown}</li>")
            else:
                items.append(f"<li><span class=\"mono\">{escape(key)}</span>: {_num(value)}</li>")
        parts.append("<h3>Measured / reference</h3><ul>" + "".join(items) + "</ul>")
    if dispatch:
        rt, dp = dispatch.get("round_trip") or {}, dispatch.get("dispatch") or {}
        parts.append(f"<h3>Execute latency ({escape(str(dispatch.get('program', '')))})</h3>")
        parts.append(svg.histogram_log("Execute round-trip latency", dispatch.get("round_trip_samples_us") or [],
                                       {"p50": rt.get("p50_us", 0.0), "p99": rt.get("p99_us", 0.0)}, "µs"))
        parts.append('<table><tr><th></th><th class="num">p50 µs</th><th class="num">p90 µs</th><th class="num">p99 µs</th>'
                     '<th class="num">mean µs</th><th class="num">min µs</th><th class="num">n</th></tr>')
        for label, stats in (("Execute returns (dispatch)", dp), ("Execute + output ready (round trip)", rt)):
            parts.append(f"<tr><td>{escape(label)}</td>" + "".join(
                f'<td class="num">{_num(stats.get(k))}</td>' for k in ("p50_us", "p90_us", "p99_us", "mean_us", "min_us", "n"))
                + "</tr>")
        parts.append("</table>")
    if compile_:
        parts.append("<h3>Compile time</h3>")
        parts.append(f'<p>{escape(str(compile_.get("program", "")))}, {escape(str(compile_.get("ops", "?")))} ops: median '
                     f'<b>{_num(compile_.get("median_s"))} s</b> (min {_num(compile_.get("min_s"))} s, max '
                     f'{_num(compile_.get("max_s"))} s, {escape(str(compile_.get("repeats")))} compiles)</p>')
    if first_run:
        bars = []
        for name, row in first_run.items():
            bars.append((f"{name} first run", float(row.get("first_us") or 0.0)))
            bars.append((f"{name} steady p50", float(row.get("steady_p50_us") or 0.0)))
        parts.append("<h3>First run vs steady state</h3>")
        parts.append(svg.horizontal_bars("First execution vs steady state", bars, "µs"))
    parts.append("</section>")
    return "\n".join(parts)


_PAGE_STYLE = ("body{font-family:system-ui,sans-serif;margin:24px;color:#1f2328}table{border-collapse:collapse;margin:8px 0}"
               "td,th{border:1px solid #d0d7de;padding:3px 8px}.num{text-align:right}.muted{color:#656d76}"
               ".mono{font-family:ui-monospace,monospace}svg{display:block;margin:8px 0}")


def render_bench_page(bench: dict[str, Any]) -> str:
    """A standalone bench.html around the section (for runs without a conformance report)."""
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>pjrt-cts bench</title>'
            f"<style>{_PAGE_STYLE}</style></head><body>{render_bench_section(bench)}</body></html>\n")


def render_text(bench: dict[str, Any]) -> str:
    transfers = bench.get("transfers") or {}
    present = [(key, name) for key, name in SERIES if transfers.get(key)]
    lines = ["size      " + "".join(f"{name + ' GB/s':>22}" for _, name in present)]
    sizes = sorted({row["bytes"] for key, _ in present for row in transfers[key]})
    for size in sizes:
        cells = []
        for key, _ in present:
            row = next((r for r in transfers[key] if r["bytes"] == size), None)
            cells.append(f"{row['gbps']:>22.3f}" if row else f"{'-':>22}")
        lines.append(f"{_size_text(size):<10}" + "".join(cells))
    dispatch = bench.get("dispatch") or {}
    if dispatch:
        for label, key in (("dispatch (Execute returns)", "dispatch"), ("round trip (output ready)", "round_trip")):
            stats = dispatch.get(key) or {}
            lines.append(f"{label:<28} p50 {stats.get('p50_us', 0):9.1f} us   p99 {stats.get('p99_us', 0):9.1f} us   "
                         f"(n={stats.get('n', 0)})")
    compile_ = bench.get("compile") or {}
    if compile_:
        lines.append(f"compile {compile_.get('ops')}-op MLP: median {compile_.get('median_s', 0):.3f} s "
                     f"(min {compile_.get('min_s', 0):.3f}, max {compile_.get('max_s', 0):.3f})")
    for name, row in (bench.get("first_run") or {}).items():
        lines.append(f"first run {name}: {row['first_us']:.1f} us vs steady p50 {row['steady_p50_us']:.1f} us "
                     f"({row['first_over_steady']:.1f}x)")
    for key, value in sorted((bench.get("ratios") or {}).items()):
        if isinstance(value, dict):
            value = ", ".join(f"{k} {v:.2f}" for k, v in value.items())
        lines.append(f"ratio {key}: {value}")
    for note in bench.get("notes") or []:
        lines.append(f"note: {note}")
    return "\n".join(lines)
