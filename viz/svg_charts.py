"""Small line and bar charts as inline SVG, for st.html.

A Plotly chart costs the browser a fixed time to draw again whatever its size (benchmarks.browser_latency), and
Positional encoding draws three for every word. These draw in a few milliseconds. Measured as Plotly figures
(benchmarks.browser_ab, 48 characters, medians of 8): Positional 0.35 -> 0.52 s (1.49, quartiles 1.29-1.61,
Streamlit's theme off) and Switch heads off's bars 0.29 -> 0.49 s (1.69, theme on): under 0.6 s, so both may
follow the scatters and the training curves into viz.plotly_charts at that cost. Every point and bar
keeps its name and value: in its tooltip (an SVG title, which the browser shows on hover), in a data-value
attribute for tests; the chart's one-line summary, computed from its numbers, is its accessible name.

The plot stretches to its column's width (x in percent) at a fixed height, and its text is the page's own size,
so it stays legible on a phone and grows with projector mode's larger type.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass

import numpy as np

HEIGHT, TOP, BOTTOM = 260, 10, 26        # px: the plot's height, room above it and for the x labels below
AXIS_WIDTH = "4.2em"                     # the y axis's own column: its title and tick labels
TEXT = "#111827"                         # 17:1 on white
GRID = "#e5e7eb"
DISTINCT = ("#0072b2", "#b45309", "#047857", "#7c3aed", "#be123c")   # each at least 4.5:1 on white


@dataclass(frozen=True)
class Series:
    """One line or one colour of bars: its name in the legend and the tooltips, its values, its colour; a line
    may be drawn thick and pale (`width`, `opacity`) or as markers only (`markers_only`)."""
    name: str
    values: np.ndarray
    colour: str
    width: float = 2.0
    opacity: float = 1.0
    markers_only: bool = False
    x: np.ndarray | None = None          # positions on a numeric x axis (viz.plotly_charts.xy_chart);
                                         # line_chart's are 0…n−1
    dashed: bool = False                 # viz.plotly_charts.xy_chart draws it dashed


def nice_ticks(low: float, high: float, most: int = 6) -> list[float]:
    """Round tick values covering [low, high] (1, 2 or 5 times a power of ten apart)."""
    if not math.isfinite(low) or not math.isfinite(high) or high <= low:
        return [low]
    raw = (high - low) / max(1, most - 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(k * power for k in (1, 2, 5, 10) if k * power >= raw)
    first = math.floor(low / step) * step
    return [round(first + i * step, 12) for i in range(int(math.ceil((high - first) / step - 1e-9)) + 1)]


def _scale(low: float, high: float, y_range: tuple[float, float] | None):
    """The y ticks and the value -> px function, over `y_range` or the ticks around [low, high]."""
    if y_range:
        low, high = y_range
        ticks = [t for t in nice_ticks(low, high) if low - 1e-12 <= t <= high + 1e-12]
    else:
        if high <= low:
            low, high = low - 1, high + 1
        ticks = nice_ticks(low, high)
        low, high = min(low, ticks[0]), max(high, ticks[-1])
    return ticks, (lambda v: TOP + (high - v) / (high - low) * (HEIGHT - TOP - BOTTOM))


def numbers_table(headers: list[str], rows: list[list[str]]) -> str:
    """A chart's numbers as a table behind a disclosure (details: one click, or Enter from the keyboard, opens it);
    each row's first cell is its header. Styled by the component's CSS (explorer.components), not per cell."""
    head = "".join(f'<th scope="col">{html.escape(h)}</th>' for h in headers)
    body = "".join(f'<tr><th scope="row">{html.escape(row[0])}</th>'
                   + "".join(f"<td>{html.escape(cell)}</td>" for cell in row[1:]) + "</tr>" for row in rows)
    return (f'<details class="numbers"><summary>The numbers as a table</summary>'
            f'<div role="region" tabindex="0" aria-label="the numbers" class="table-box">'
            f'<table><tr>{head}</tr>{body}</table></div></details>')


def number_text(value: float, percent: bool) -> str:
    """A chart's number in its table: a percentage to a tenth, else four significant figures."""
    return f"{value:.1%}" if percent else f"{value:.4g}"


def _chart(kind: str, title: str, summary: str, plot: str, ticks: list[tuple[float, str]], x_title: str,
           y_title: str, legend: list[Series], numbers: str = "") -> str:
    """`ticks`: (px from the top, label) of each y tick; `numbers`: its numbers_table."""
    keys = "".join(
        f'<span style="display:inline-flex;align-items:center;gap:4px;margin-right:14px">'
        f'<span style="display:inline-block;width:14px;height:{10 if kind == "bars" or s.markers_only else 4}px;'
        f'background:{s.colour}"></span>{html.escape(s.name)}</span>' for s in legend) if len(legend) > 1 else ""
    heading = f'<div style="font-weight:600;margin-bottom:4px">{html.escape(title)}</div>' if title else ""
    labels = "".join(f'<text x="96%" y="{px + 4:.1f}" text-anchor="end" fill="{TEXT}">{html.escape(label)}</text>'
                     for px, label in ticks)
    axis = (f'<svg width="{AXIS_WIDTH}" height="{HEIGHT}" aria-hidden="true" style="flex:none;overflow:visible">'
            f'<text transform="translate(10 {(TOP + HEIGHT - BOTTOM) / 2}) rotate(-90)" text-anchor="middle" '
            f'fill="{TEXT}">{html.escape(y_title)}</text>{labels}</svg>')
    grid = "".join(f'<line x1="0" x2="100%" y1="{px:.1f}" y2="{px:.1f}" stroke="{GRID}"/>' for px, _ in ticks)
    return (f'<figure data-chart="{kind}" style="margin:0;color:{TEXT};font-size:0.85em">{heading}'
            f'<div style="display:flex">{axis}<svg role="img" aria-label="{html.escape(summary)}" width="100%" '
            f'height="{HEIGHT}" style="flex:1;min-width:0;overflow:visible">{grid}{plot}</svg></div>'
            f'<div style="text-align:center">{html.escape(x_title)}</div>'
            f'<figcaption>{keys}</figcaption>{numbers}</figure>')


def _tick_marks(ticks: list[float], y, percent: bool = False) -> list[tuple[float, str]]:
    return [(y(t), f"{t:.0%}" if percent else f"{t:.6g}") for t in ticks]


def _x_labels(labels: list[str], x, every: int) -> str:
    return "".join(f'<text x="{x(i):.2f}%" y="{HEIGHT - 6}" text-anchor="middle" fill="{TEXT}">'
                   f'{html.escape(label)}</text>' for i, label in enumerate(labels) if i % every == 0)


def _tip(series: Series, point_name: str, name: str, value: float, places: int, percent: bool = False) -> str:
    said = f"{float(value):.0%}" if percent else f"{float(value):.{places}f}"
    return (f'data-series="{html.escape(series.name)}" data-value="{float(value)!r}"><title>'
            f'{html.escape(series.name)}, {point_name} {html.escape(name)}: {said}</title>')


def line_chart(series: list[Series], x_labels: list[str], title: str, x_title: str, y_title: str, summary: str,
               y_range: tuple[float, float] | None = None, from_zero: bool = False, point_name: str = "",
               percent: bool = False, band: tuple[int, int, str] | None = None) -> str:
    """Lines over positions 0…n−1 (`x_labels` name them): each point a marker whose tooltip says the series,
    `point_name` and the point's label, and the value (as a percentage with `percent`). `band`: (first, last
    position, its label) shaded behind the lines."""
    values = [np.asarray(s.values, dtype=float) for s in series]
    low = min([float(v.min()) for v in values] + ([0.0] if from_zero else []))
    ticks, y = _scale(low, max(float(v.max()) for v in values), y_range)
    n = max(len(v) for v in values)
    x = (lambda i: 2 + 96 * (i / (n - 1) if n > 1 else 0.5))            # percent of the plot's width
    plot = [_x_labels(x_labels, x, max(1, math.ceil(n / 8)))]        # few enough to stay apart in projector type
    if band is not None:
        first, last, label = band
        left, right = x(max(first - 0.5, 0)), x(min(last + 0.5, n - 1))
        plot.insert(0, f'<rect x="{left:.2f}%" y="{TOP}" width="{right - left:.2f}%" height="{HEIGHT - TOP - BOTTOM}" '
                       f'fill="#dcfce7"/><text x="{(left + right) / 2:.2f}%" y="{TOP + 14}" text-anchor="middle" '
                       f'fill="{TEXT}">{html.escape(label)}</text>')
    for s, v in zip(series, values):
        if not s.markers_only:
            plot.append("".join(
                f'<line x1="{x(i):.2f}%" y1="{y(a):.1f}" x2="{x(i + 1):.2f}%" y2="{y(b):.1f}" stroke="{s.colour}" '
                f'stroke-width="{s.width}" stroke-opacity="{s.opacity}" stroke-linecap="round"/>'
                for i, (a, b) in enumerate(zip(v[:-1], v[1:]))))
        radius = 3.5 if s.markers_only else 2.5
        plot.append("".join(f'<circle cx="{x(i):.2f}%" cy="{y(value):.1f}" r="{radius}" fill="{s.colour}" '
                            f'{_tip(s, point_name, x_labels[i], value, 6, percent)}</circle>' for i, value in enumerate(v)))
    table = numbers_table([point_name or x_title, *(s.name for s in series)],
                          [[label, *(number_text(v[i], percent) if i < len(v) else "" for v in values)]
                           for i, label in enumerate(x_labels)])
    return _chart("line", title, summary, "".join(plot), _tick_marks(ticks, y, percent), x_title, y_title, series,
                  table)


def grouped_bars(series: list[Series], x_labels: list[str], title: str, x_title: str, y_title: str,
                 summary: str, point_name: str = "", x_names: list[str] | None = None,
                 y_range: tuple[float, float] | None = None) -> str:
    """Bars grouped by position, one colour a series, from 0 (or over `y_range`); each bar's tooltip says its
    series, its position's name (`x_names`, else its label) and its value."""
    values = [np.asarray(s.values, dtype=float) for s in series]
    ticks, y = _scale(0.0, max(float(v.max()) for v in values), y_range)
    n, names = len(x_labels), x_names or x_labels
    slot = 100 / max(n, 1)
    bar = slot * 0.8 / len(series)
    plot = [_x_labels(x_labels, lambda i: slot * (i + 0.5), max(1, math.ceil(n / 16)))]
    for k, (s, v) in enumerate(zip(series, values)):
        plot.append("".join(
            f'<rect x="{slot * i + slot * 0.1 + bar * k:.3f}%" y="{y(value):.1f}" width="{bar:.3f}%" '
            f'height="{max(y(0) - y(value), 0):.1f}" fill="{s.colour}" {_tip(s, point_name, names[i], value, 3)}'
            f'</rect>' for i, value in enumerate(v)))
    table = numbers_table([point_name or x_title, *(s.name for s in series)],
                          [[names[i], *(number_text(v[i], False) for v in values)] for i in range(n)])
    return _chart("bars", title, summary, "".join(plot), _tick_marks(ticks, y), x_title, y_title, series, table)
