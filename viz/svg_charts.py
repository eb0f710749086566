"""Small line and bar charts as inline SVG, for st.html.

A Plotly chart costs the browser a fixed time to draw again whatever its size (benchmarks.browser_latency), and
Positional encoding drew four of them on every visit. These draw in a few milliseconds. Every point and bar
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
    x: np.ndarray | None = None          # positions on a numeric x axis (viz.plotly_charts.xy_chart; line_chart: 0…n−1)
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


def _said(value: float, percent: bool) -> str:
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
                          [[label, *(_said(v[i], percent) if i < len(v) else "" for v in values)]
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
                          [[names[i], *(_said(v[i], False) for v in values)] for i in range(n)])
    return _chart("bars", title, summary, "".join(plot), _tick_marks(ticks, y), x_title, y_title, series, table)


def _thin(n: int, most: int) -> list[int]:
    """At most `most` of the indices 0…n−1, evenly spread, the last always kept."""
    if n <= most:
        return list(range(n))
    step = math.ceil(n / most)
    return sorted(set(range(0, n, step)) | {n - 1})


@dataclass(frozen=True)
class Points:
    """One kind of point in a scatter: its name in the legend, positions, a label each (drawn beside the point
    where there is room, always in its tooltip), one colour or a colour each, a shape; with `arrows`, each point
    is the tip of an arrow from the origin."""
    name: str
    x: np.ndarray
    y: np.ndarray
    labels: list[str]
    colours: str | list[str]
    shape: str = "circle"          # circle, square or diamond
    arrows: bool = False


def _marker(shape: str, cx: str, cy: str, colour: str, rest: str) -> str:
    """A point's mark centred on (cx, cy), percentages of the plot; a square or diamond is drawn in a small svg
    whose origin is the point, so it stays square however the plot is stretched."""
    if shape == "circle":
        return f'<circle cx="{cx}" cy="{cy}" r="6" fill="{colour}" stroke="{TEXT}" stroke-width="1" {rest}</circle>'
    turn = ' transform="rotate(45)"' if shape == "diamond" else ""
    return (f'<svg x="{cx}" y="{cy}" width="1" height="1" overflow="visible">'
            f'<rect width="10" height="10" x="-5" y="-5" fill="{colour}" stroke="{TEXT}"{turn} {rest}</rect></svg>')


def scatter_chart(groups: list[Points], title: str, x_title: str, y_title: str, summary: str,
                  x_range: tuple[float, float] | None = None, y_range: tuple[float, float] | None = None,
                  y_percent: bool = False, equal: bool = False, most_labels: int = 16) -> str:
    """Points in a plane whose height follows its width (square with `equal`, the two axes then on one scale, so
    angles and lengths are true; else 4:3). Each point's tooltip says its group, its label and both values; at
    most `most_labels` labels of a group are drawn beside their points."""
    xs = np.concatenate([g.x for g in groups] + ([np.zeros(1)] if any(g.arrows for g in groups) else []))
    ys = np.concatenate([g.y for g in groups] + ([np.zeros(1)] if any(g.arrows for g in groups) else []))
    x_low, x_high = x_range or (float(xs.min()), float(xs.max()))
    y_low, y_high = y_range or (float(ys.min()), float(ys.max()))
    if equal:                                           # one scale for both: the larger span, each centred
        half = max(x_high - x_low, y_high - y_low, 1e-9) / 2 * 1.08
        (x_mid, y_mid) = ((x_low + x_high) / 2, (y_low + y_high) / 2)
        x_low, x_high, y_low, y_high = x_mid - half, x_mid + half, y_mid - half, y_mid + half
    x_ticks = [t for t in nice_ticks(x_low, x_high, 6) if x_low <= t <= x_high]
    y_ticks = [t for t in nice_ticks(y_low, y_high, 6) if y_low <= t <= y_high]
    left, right, top, bottom = 14.0, 97.0, 7.0, 90.0   # the plot's box, in percent of the figure's svg: as wide as
                                                       # tall, so an `equal` plane keeps one scale
    x = (lambda v: left + (v - x_low) / ((x_high - x_low) or 1) * (right - left))
    y = (lambda v: bottom - (v - y_low) / ((y_high - y_low) or 1) * (bottom - top))
    said = (lambda v: f"{v:.1%}") if y_percent else (lambda v: f"{v:.3g}")
    places = max(0, -math.floor(math.log10(y_ticks[1] - y_ticks[0])) - 2) if len(y_ticks) > 1 else 0
    tick = (lambda v: f"{v:.{places}%}") if y_percent else (lambda v: f"{v:.3g}")   # as many places as tell them apart
    plot = [f'<line x1="{left}%" x2="{right}%" y1="{y(t):.2f}%" y2="{y(t):.2f}%" stroke="{GRID}"/>'
            f'<text x="{left - 1.5}%" y="{y(t):.2f}%" dy="0.35em" text-anchor="end" fill="{TEXT}">{tick(t)}</text>'
            for t in y_ticks]
    plot += [f'<line y1="{top}%" y2="{bottom}%" x1="{x(t):.2f}%" x2="{x(t):.2f}%" stroke="{GRID}"/>'
             f'<text x="{x(t):.2f}%" y="{bottom + 2}%" dy="0.9em" text-anchor="middle" fill="{TEXT}">{t:g}</text>'
             for t in x_ticks]
    if any(g.arrows for g in groups) or equal:          # the axes through the origin, where it is in view
        if x_low <= 0 <= x_high:
            plot.append(f'<line y1="{top}%" y2="{bottom}%" x1="{x(0):.2f}%" x2="{x(0):.2f}%" stroke="#9ca3af"/>')
        if y_low <= 0 <= y_high:
            plot.append(f'<line x1="{left}%" x2="{right}%" y1="{y(0):.2f}%" y2="{y(0):.2f}%" stroke="#9ca3af"/>')
    placed: list[tuple[float, float, int]] = []          # labels drawn so far: (x %, y %, characters)

    def clear(px: float, py: float, label: str) -> bool:
        """Whether a label centred at (px, py) stays off every label already drawn (a character taken as
        2.6 % of the width and a line as 10 % of the height, a projector's at 1024 px). A label left out keeps
        its tooltip."""
        return all(abs(px - qx) > 1.3 * (len(label) + n) + 1 or abs(py - qy) > 10 for qx, qy, n in placed)

    for g in groups:
        colours = [g.colours] * len(g.x) if isinstance(g.colours, str) else list(g.colours)
        shown = set(_thin(len(g.x), most_labels))
        for i, (px, py, label, colour) in enumerate(zip(g.x, g.y, g.labels, colours)):
            cx, cy = f"{x(px):.2f}%", f"{y(py):.2f}%"
            if g.arrows:
                plot.append(f'<line x1="{x(0):.2f}%" y1="{y(0):.2f}%" x2="{cx}" y2="{cy}" stroke="#6b7280" '
                            f'stroke-width="1.2"/>')
            tip = (f'data-series="{html.escape(g.name)}" data-value="{float(py)!r}" data-x="{float(px)!r}">'
                   f'<title>{html.escape(g.name)} {html.escape(label)}: {html.escape(x_title)} {float(px):.3g}, '
                   f'{html.escape(y_title)} {said(float(py))}</title>')
            plot.append(_marker(g.shape, cx, cy, colour, tip))
            above = y(py) > top + 6                          # else under its point, off the title above
            at = y(py) - 5 if above else y(py) + 8           # where the label's middle sits, in % of the height
            if i in shown and clear(x(px), at, label):
                placed.append((x(px), at, len(label)))
                above = "-0.8em" if above else "1.6em"
                plot.append(f'<text x="{cx}" y="{cy}" dy="{above}" text-anchor="middle" fill="{TEXT}" '
                            f'aria-hidden="true">{html.escape(label)}</text>')
    keys = "".join(
        f'<span style="display:inline-flex;align-items:center;gap:4px;margin-right:14px">'
        f'<svg width="14" height="14" aria-hidden="true">'
        f'{_marker(g.shape, "50%", "50%", g.colours if isinstance(g.colours, str) else "#9ca3af", ">")}</svg>'
        f'{html.escape(g.name)}</span>' for g in groups) if len(groups) > 1 else ""
    heading = f'<div style="font-weight:600;margin-bottom:4px">{html.escape(title)}</div>' if title else ""
    return (f'<figure data-chart="scatter" style="margin:0;color:{TEXT};font-size:0.85em">{heading}'
            f'<div style="text-align:left">↑ {html.escape(y_title)}</div>'
            f'<svg role="img" aria-label="{html.escape(summary)}" width="100%" overflow="visible" '
            f'style="display:block;aspect-ratio:{"1;max-width:36rem" if equal else "4 / 3"}">{"".join(plot)}</svg>'
            f'<div style="text-align:right">{html.escape(x_title)} →</div>'
            f'<figcaption>{keys}</figcaption>'
            + numbers_table(["point", x_title, y_title],
                            [[f"{g.name} {label}", f"{float(a):.4g}", said(float(b))]
                             for g in groups for a, b, label in zip(g.x, g.y, g.labels)]) + '</figure>')
