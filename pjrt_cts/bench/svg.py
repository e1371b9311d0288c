"""Small hand-written SVG charts (no plotting dependency): line chart on a log2 x axis, histogram, bars.

Every text that reaches the markup goes through html.escape; numbers are formatted here.
"""
from __future__ import annotations

import math
from html import escape
from typing import Callable, Sequence

WIDTH, HEIGHT = 640, 300
MARGIN_LEFT, MARGIN_RIGHT, MARGIN_TOP, MARGIN_BOTTOM = 64, 150, 16, 44
PALETTE = ("#0969da", "#d1242f", "#2da44e", "#8250df", "#6e7781", "#e16f24")
FONT = 'font-family="system-ui,sans-serif" font-size="11"'


def _nice_ceiling(value: float) -> float:
    if value <= 0:
        return 1.0
    exponent = math.floor(math.log10(value))
    for step in (1, 2, 2.5, 5, 10):
        if step * 10**exponent >= value:
            return step * 10**exponent
    return 10 ** (exponent + 1)


def _fmt(value: float) -> str:
    if value == 0:
        return "0"
    if abs(value) >= 100:
        return f"{value:.0f}"
    if abs(value) >= 1:
        return f"{value:.3g}"
    return f"{value:.2g}"


def _frame(title: str, body: list[str], width: int = WIDTH, height: int = HEIGHT) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
            f'role="img" aria-label="{escape(title)}"><title>{escape(title)}</title>' + "".join(body) + "</svg>")


def line_chart_log2x(title: str, series: Sequence[tuple[str, Sequence[tuple[float, float]]]],
                     x_label: str, y_label: str, x_tick_label: Callable[[float], str] | None = None) -> str:
    """Lines over a log2 x axis (e.g. bandwidth vs transfer size); y is linear from 0."""
    points = [(x, y) for _, pts in series for x, y in pts if x > 0 and math.isfinite(y)]
    plot_w, plot_h = WIDTH - MARGIN_LEFT - MARGIN_RIGHT, HEIGHT - MARGIN_TOP - MARGIN_BOTTOM
    body = [f'<rect x="{MARGIN_LEFT}" y="{MARGIN_TOP}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#d0d7de"/>']
    if not points:
        body.append(f'<text x="{WIDTH / 2}" y="{HEIGHT / 2}" text-anchor="middle" {FONT}>no data</text>')
        return _frame(title, body)
    xs = sorted({x for x, _ in points})
    lo, hi = math.log2(xs[0]), math.log2(xs[-1])
    span = hi - lo or 1.0
    y_max = _nice_ceiling(max(y for _, y in points))

    def px(x: float) -> float:
        return MARGIN_LEFT + (math.log2(x) - lo) / span * plot_w

    def py(y: float) -> float:
        return MARGIN_TOP + plot_h - (y / y_max) * plot_h

    for i in range(5):  # horizontal grid and y ticks
        value = y_max * i / 4
        y = py(value)
        body.append(f'<line x1="{MARGIN_LEFT}" x2="{MARGIN_LEFT + plot_w}" y1="{y:.1f}" y2="{y:.1f}" stroke="#eaeef2"/>')
        body.append(f'<text x="{MARGIN_LEFT - 6}" y="{y + 4:.1f}" text-anchor="end" {FONT}>{escape(_fmt(value))}</text>')
    for x in xs:  # x ticks at the measured sizes
        label = x_tick_label(x) if x_tick_label else _fmt(x)
        body.append(f'<text x="{px(x):.1f}" y="{MARGIN_TOP + plot_h + 16}" text-anchor="middle" {FONT}>{escape(str(label))}</text>')
    body.append(f'<text x="{MARGIN_LEFT + plot_w / 2}" y="{HEIGHT - 8}" text-anchor="middle" {FONT}>{escape(x_label)}</text>')
    body.append(f'<text x="14" y="{MARGIN_TOP + plot_h / 2}" text-anchor="middle" transform="rotate(-90 14 {MARGIN_TOP + plot_h / 2})" '
                f'{FONT}>{escape(y_label)}</text>')
    for index, (name, pts) in enumerate(series):
        color = PALETTE[index % len(PALETTE)]
        good = [(x, y) for x, y in pts if x > 0 and math.isfinite(y)]
        if not good:
            continue
        path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in good)
        body.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2"/>')
        for x, y in good:
            body.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="2.5" fill="{color}"><title>{escape(name)}: '
                        f'{escape(_fmt(y))} at {escape(str(x_tick_label(x) if x_tick_label else x))}</title></circle>')
        legend_y = MARGIN_TOP + 12 + index * 16
        legend_x = MARGIN_LEFT + plot_w + 12
        body.append(f'<line x1="{legend_x}" x2="{legend_x + 16}" y1="{legend_y - 4}" y2="{legend_y - 4}" stroke="{color}" stroke-width="2"/>')
        body.append(f'<text x="{legend_x + 22}" y="{legend_y}" {FONT}>{escape(name)}</text>')
    return _frame(title, body)


def histogram_log(title: str, samples: Sequence[float], markers: dict[str, float], unit: str, bins: int = 40) -> str:
    """Histogram of positive samples on log-spaced bins, with vertical markers (e.g. p50, p99)."""
    values = [v for v in samples if v > 0 and math.isfinite(v)]
    plot_w, plot_h = WIDTH - MARGIN_LEFT - 40, HEIGHT - MARGIN_TOP - MARGIN_BOTTOM
    body = [f'<rect x="{MARGIN_LEFT}" y="{MARGIN_TOP}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#d0d7de"/>']
    if not values:
        body.append(f'<text x="{WIDTH / 2}" y="{HEIGHT / 2}" text-anchor="middle" {FONT}>no data</text>')
        return _frame(title, body)
    lo, hi = math.log10(min(values)), math.log10(max(values))
    if hi - lo < 1e-9:
        lo, hi = lo - 0.5, hi + 0.5
    counts = [0] * bins
    for v in values:
        counts[min(bins - 1, int((math.log10(v) - lo) / (hi - lo) * bins))] += 1
    top = max(counts)
    bar_w = plot_w / bins

    def px(value: float) -> float:
        return MARGIN_LEFT + (math.log10(value) - lo) / (hi - lo) * plot_w

    for index, count in enumerate(counts):
        if not count:
            continue
        h = count / top * plot_h
        body.append(f'<rect x="{MARGIN_LEFT + index * bar_w:.1f}" y="{MARGIN_TOP + plot_h - h:.1f}" width="{max(1.0, bar_w - 1):.1f}" '
                    f'height="{h:.1f}" fill="#0969da" opacity="0.75"><title>{count}</title></rect>')
    decade = math.floor(lo)
    while decade <= math.ceil(hi):
        for mantissa in (1, 2, 5):
            value = mantissa * 10.0**decade
            if lo <= math.log10(value) <= hi:
                x = px(value)
                body.append(f'<text x="{x:.1f}" y="{MARGIN_TOP + plot_h + 16}" text-anchor="middle" {FONT}>{escape(_fmt(value))}</text>')
        decade += 1
    for index, (name, value) in enumerate(markers.items()):
        if value <= 0:
            continue
        x = min(max(px(value), MARGIN_LEFT), MARGIN_LEFT + plot_w)
        color = PALETTE[(index + 1) % len(PALETTE)]
        body.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{MARGIN_TOP}" y2="{MARGIN_TOP + plot_h}" stroke="{color}" stroke-dasharray="4 3"/>')
        body.append(f'<text x="{x + 4:.1f}" y="{MARGIN_TOP + 12 + index * 14}" fill="{color}" {FONT}>{escape(name)} {escape(_fmt(value))} {escape(unit)}</text>')
    body.append(f'<text x="{MARGIN_LEFT + plot_w / 2}" y="{HEIGHT - 8}" text-anchor="middle" {FONT}>{escape(unit)} (log scale)</text>')
    return _frame(title, body)


def horizontal_bars(title: str, bars: Sequence[tuple[str, float]], unit: str) -> str:
    """One labelled bar per (label, value)."""
    height = MARGIN_TOP + 26 * max(1, len(bars)) + 24
    label_w, plot_w = 170, WIDTH - 170 - 90
    top = max((v for _, v in bars if math.isfinite(v)), default=0.0) or 1.0
    body = []
    for index, (label, value) in enumerate(bars):
        y = MARGIN_TOP + index * 26
        w = max(1.0, value / top * plot_w) if math.isfinite(value) else 0
        body.append(f'<text x="{label_w - 8}" y="{y + 14}" text-anchor="end" {FONT}>{escape(label)}</text>')
        body.append(f'<rect x="{label_w}" y="{y + 2}" width="{w:.1f}" height="16" fill="{PALETTE[index % len(PALETTE)]}"/>')
        body.append(f'<text x="{label_w + w + 6:.1f}" y="{y + 14}" {FONT}>{escape(_fmt(value))} {escape(unit)}</text>')
    return _frame(title, body, height=height)
