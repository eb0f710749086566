"""The line, bar and scatter charts as Plotly figures: hover on every point, zoom, and a picture of the chart
(the camera in its toolbar, at twice the screen's size for a slide) come with Plotly. Each figure is drawn by
explorer.charts.plotly_chart, which also writes its summary (what a screen reader reads for it) and its numbers
as a table the keyboard reaches.

Measured on the pages they moved to from hand-written SVG (benchmarks.browser_ab, 48 characters, medians of 10;
docs/records/browser_ab_plotly.json and browser_ab_plotly_rest.json): Training 0.35 → 0.42 s, Which head does
the work? 0.17 → 0.21 s, Queries and keys 0.19 → 0.34 s (its arrows one trace: as 48 annotations, 0.86 s in a
trial), Positional encoding 0.28 → 0.46 s, Switch heads off 0.20 → 0.33 s, Longer than trained 0.18 → 0.21 s,
Masks 0.29 → 0.30 s: each page under 0.6 s, the bound these charts were allowed. With the figures made in one pass
(_figure), measured beside a CI run (docs/records/browser_ab_plotly_dicts.json): Positional 1.47 × the SVG page's
time (was 1.64), Longer than trained 1.06 (within its noise), Switch heads off 1.64 (its cost is the browser's).
The heatmaps stay on a canvas (viz.canvas_heatmap): a head switched there is drawn in milliseconds, with no round
trip.
"""

from __future__ import annotations

import html as _html
import math
import textwrap
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go


TEXT = "#111827"                         # 17:1 on white
GRID = "#e5e7eb"
DISTINCT = ("#0072b2", "#b45309", "#047857", "#7c3aed", "#be123c")   # each at least 4.5:1 on white


@dataclass(frozen=True)
class Series:
    """One line or one colour of bars: its name in the legend and the hover, its values, its colour; a line may be
    drawn thick and pale (`width`, `opacity`), dashed, or as markers only (`markers_only`). `x`: its positions on
    xy_chart's axis (0…n−1 when None)."""
    name: str
    values: np.ndarray
    colour: str
    width: float = 2.0
    opacity: float = 1.0
    markers_only: bool = False
    x: np.ndarray | None = None
    dashed: bool = False


def numbers_table(headers: list[str], rows: list[list[str]]) -> str:
    """A chart's numbers as a table behind a disclosure (details: one click, or Enter from the keyboard, opens it);
    each row's first cell is its header. Styled by the component's CSS (explorer.components), not per cell."""
    head = "".join(f'<th scope="col">{_html.escape(h)}</th>' for h in headers)
    body = "".join(f'<tr><th scope="row">{_html.escape(row[0])}</th>'
                   + "".join(f"<td>{_html.escape(cell)}</td>" for cell in row[1:]) + "</tr>" for row in rows)
    return (f'<details class="numbers"><summary>The numbers as a table</summary>'
            f'<div role="region" tabindex="0" aria-label="the numbers" class="table-box">'
            f'<table><tr>{head}</tr>{body}</table></div></details>')


def number_text(value: float, percent: bool) -> str:
    """A chart's number in its table: a percentage to a tenth, else four significant figures."""
    return f"{value:.1%}" if percent else f"{value:.4g}"


def _escape(text: str) -> str:
    """Text Plotly would read as markup (a learner's "<b>" in a label) written as itself."""
    return _html.escape(text, quote=False)


FONT = "Source Sans, Source Sans Pro, sans-serif"   # the page's own type (Plotly's default is Open Sans)
LOG_FLOOR = 1e-5                                      # a log axis's floor when no value is above 0: the curves'
                                                      # stored precision
WRAP = 26                                             # characters an axis title's line holds in half a 1024-px page
LABEL_GROUND = "rgba(255, 255, 255, 0.85)"           # behind a line's label, over the lines it crosses
HEIGHT = 300                                          # px, at the page's type; explorer.charts scales it up for
                                                      # projector mode


@dataclass(frozen=True)
class Chart:
    """A figure and what is said beside it: its `title` (above it), `summary`, one sentence from its numbers (its
    text alternative), and its numbers as a table (`headers`, `rows`, each row's first cell its header)."""
    figure: go.Figure
    title: str
    summary: str
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]

    def numbers_html(self) -> str:
        """The summary (for a screen reader: the figure says it) and the numbers behind a disclosure."""
        return (f'<p class="summary">{_escape(self.summary)}</p>'
                + numbers_table(list(self.headers), [list(row) for row in self.rows]))


def _wrapped(text: str, width: int = WRAP) -> str:
    """Escaped text in lines of at most `width` characters: Plotly never wraps an axis title, and in half a
    laptop's width a long one ran out of the figure at both ends."""
    return "<br>".join(_escape(line) for line in textwrap.wrap(text, width)) if text else ""


def _legend_rows(traces: list[dict]) -> int:
    """The rows the legend above the plot takes: one, or one a name when they would not fit one line of half a
    1024-px page (Plotly then stacks them)."""
    names = [t["name"] for t in traces if t.get("name") and t.get("showlegend") is not False]
    return 1 if sum(len(n) + 6 for n in names) <= 34 else len(names)


def _figure(traces: list[dict], x_title: str, y_title: str, legend: bool, height: int = HEIGHT,
            xaxis: dict | None = None, yaxis: dict | None = None, **layout) -> go.Figure:
    """One figure from its traces and layout as plain dicts, validated once as it is made: the page's type and
    colours, the legend above the plot (under it, it ran into the x axis's title). Built with Plotly's
    update_layout, update_xaxes and add_hline calls, each validating as it went, the same figures took about ten
    times as long to make (a two-line chart of 200 points: 53 ms against 5.7, both under load). The chart's
    title is the page's (explorer.charts.plotly_chart writes it above): Plotly never wraps a title, and placed a
    wrapped one on the plot."""
    top = 10 + (22 * _legend_rows(traces) if legend else 0)
    axes = {f"{name}axis": {"title": {"text": _wrapped(title)}, "gridcolor": GRID, "zeroline": False,
                            "linecolor": "#6b7280", "automargin": True, **(more or {})}   # margins grow to labels
            for name, title, more in (("x", x_title, xaxis), ("y", y_title, yaxis))}
    return go.Figure(data=traces, layout=dict(
        height=height + top, margin=dict(l=64, r=12, t=top, b=48), font=dict(family=FONT, color=TEXT, size=13),
        plot_bgcolor="white", paper_bgcolor="white", showlegend=legend, hoverlabel=dict(font=dict(family=FONT)),
        legend=dict(orientation="h", x=0, xanchor="left", y=1.0, yanchor="bottom"), **axes, **layout))


def _thin(n: int, most: int) -> list[int]:
    """At most `most` of the indices 0…n−1, evenly spread, the last always kept."""
    if n <= most:
        return list(range(n))
    step = math.ceil(n / most)
    return sorted(set(range(0, n, step)) | {n - 1})


def _finite(s: Series) -> Series:
    """The series without its points whose value or position is not finite (a diverged run's loss)."""
    values = np.asarray(s.values, dtype=float)
    xs = np.arange(len(values), dtype=float) if s.x is None else np.asarray(s.x, dtype=float)
    keep = np.isfinite(values) & np.isfinite(xs)
    return Series(s.name, values[keep], s.colour, s.width, s.opacity, s.markers_only, xs[keep], s.dashed)


def xy_chart(series: list[Series], title: str, x_title: str, y_title: str, summary: str, log_y: bool = False,
             y_range: tuple[float, float] | None = None, percent: bool = False,
             x_range: tuple[float, float] | None = None,
             marks: tuple[tuple[float, str], ...] = (), references: tuple[tuple[float, str], ...] = (),
             point_name: str = "step", most_markers: int = 100, from_zero: bool = False,
             band: tuple[float, float, str] | None = None, height: int = HEIGHT) -> Chart:
    """Lines over a numeric x axis (each Series' `x`), on a log y axis with `log_y` (one tick per power of ten,
    written as a decimal), from 0 with `from_zero`. At most `most_markers` points of each line carry a marker;
    hover names any point. `marks`: (x, label) vertical dashed lines; `references`: (y, label) horizontal dashed
    lines, such as a baseline; `band`: (first x, last x, label) shaded behind the lines. On a log axis a value of
    0 or below (a loss rounded to 0) is drawn on the axis's floor, the power of ten under the smallest positive
    value (LOG_FLOOR if none is), and said as itself in the hover; points that are not finite are left out."""
    series = [_finite(s) for s in series]
    drawn = np.concatenate([np.asarray(s.values, dtype=float) for s in series])
    values = np.concatenate([drawn, np.array([v for v, _ in references], dtype=float)])
    positive = drawn[drawn > 0]            # the floor from the lines, never from a reference line above them
    floor = 10.0 ** math.floor(math.log10(float(positive.min()))) if positive.size else LOG_FLOOR
    value_format = ":.1%" if percent else ":.4~g"     # a loss of 0.00003 said as itself, not as 0.0000
    traces, shapes, notes = [], [], []
    for s in series:
        raw = np.asarray(s.values, dtype=float)
        marked = np.zeros(len(raw), dtype=bool)
        marked[slice(None) if s.markers_only else _thin(len(raw), most_markers)] = True   # markers: all its ink
        size = 9 if s.markers_only else 6 if marked.sum() <= 40 else 4
        traces.append(dict(
            type="scatter", x=np.asarray(s.x, dtype=float), y=np.maximum(raw, floor) if log_y else raw,
            customdata=raw, name=s.name, mode="markers" if s.markers_only else "lines+markers", opacity=s.opacity,
            line=dict(color=s.colour, width=s.width, dash="dash" if s.dashed else "solid"),
            marker=dict(size=np.where(marked, size, 0), color=s.colour),
            hovertemplate=f"{_escape(s.name)}, {point_name} %{{x:~g}}: %{{customdata{value_format}}}<extra></extra>"))
    if band is not None:              # its label inside at the bottom, under the lines: a trained run's is on top
        first, last, label = band
        shapes.append(dict(type="rect", xref="x", x0=first - 0.5, x1=last + 0.5, yref="y domain", y0=0, y1=1,
                           fillcolor="#dcfce7", line=dict(width=0), layer="below"))
        notes.append(dict(x=(first + last) / 2, xref="x", y=0, yref="y domain", xanchor="center", yanchor="bottom",
                          text=_escape(label), showarrow=False, font=dict(color=TEXT)))
    for value, label in references:   # its label under it at the right: the marks' labels are on top
        shapes.append(dict(type="line", xref="x domain", x0=0, x1=1, yref="y", y0=value, y1=value,
                           line=dict(color="#4b5563", width=1.5, dash="dash")))
        notes.append(dict(x=1, xref="x domain", y=math.log10(value) if log_y else value, yref="y", xanchor="right",
                          yanchor="top", text=_escape(label), showarrow=False, font=dict(color=TEXT),
                          bgcolor=LABEL_GROUND))
    for where, label in marks:        # (an annotation's y on a log axis is the value's log: shapes take the value)
        shapes.append(dict(type="line", xref="x", x0=where, x1=where, yref="y domain", y0=0, y1=1,
                           line=dict(color="#b91c1c", width=2, dash="dash")))
        notes.append(dict(x=where, xref="x", y=1, yref="y domain", xanchor="right", yanchor="top",
                          text=_escape(label), showarrow=False, font=dict(color="#b91c1c"), bgcolor=LABEL_GROUND))
    yaxis = {}
    if log_y:
        low = round(math.log10(floor))
        high = max(math.ceil(math.log10(float(values.max()))) if values.size and values.max() > 0 else 0, low + 1)
        yaxis = dict(type="log", range=[low, high], tickvals=[10.0 ** p for p in range(low, high + 1)],
                     ticktext=[f"{10.0 ** p:.{max(-p, 0)}f}" for p in range(low, high + 1)])
    elif y_range or from_zero:
        low, high = y_range or (0.0, max(float(values.max()) if values.size else 1.0, 1e-12) * 1.05)
        pad = (high - low) * 0.03 if y_range else 0.0   # a line on the bound (100 %) drawn whole, not halved
        yaxis = dict(range=[low - pad, high + pad], **({"tickformat": ".0%"} if percent else {}))
    elif percent:
        yaxis = dict(tickformat=".0%")
    headers, rows = _xy_table(series, point_name, x_title, y_title, percent)
    figure = _figure(traces, x_title, y_title, len(series) > 1, height, xaxis=dict(range=list(x_range)) if x_range
                     else None, yaxis=yaxis, shapes=shapes, annotations=notes)
    return Chart(figure, title, summary, headers, rows)


def _xy_table(series: list[Series], point_name: str, x_title: str, y_title: str, percent: bool):
    """The lines' numbers: a row a position and a column a line where every line has the same positions (the
    rotation check's two side by side), else a row a point, named by its line."""
    xs = [np.asarray(s.x, dtype=float) for s in series]
    if all(x.shape == xs[0].shape and np.array_equal(x, xs[0]) for x in xs):
        return ((point_name or x_title, *(s.name for s in series)),
                tuple((f"{a:g}", *(number_text(float(s.values[i]), percent) for s in series))
                      for i, a in enumerate(xs[0])))
    return (("series", x_title, y_title),
            tuple((s.name, f"{a:g}", number_text(b, percent)) for s, x in zip(series, xs)
                  for a, b in zip(x, np.asarray(s.values, dtype=float))))


def _bounds(groups: list[Points], x_range, y_range, equal: bool) -> tuple[float, float, float, float]:
    """The plane's x and y spans: given, else the points' (and the origin's, for arrows); with `equal`, the larger
    span for both, each centred, so one unit is as long on both axes."""
    origin = [np.zeros(1)] if any(g.arrows for g in groups) else []
    xs = np.concatenate([np.asarray(g.x, dtype=float) for g in groups] + origin)
    ys = np.concatenate([np.asarray(g.y, dtype=float) for g in groups] + origin)
    x_low, x_high = x_range or (float(xs.min()), float(xs.max()))
    y_low, y_high = y_range or (float(ys.min()), float(ys.max()))
    if equal:
        half = max(x_high - x_low, y_high - y_low, 1e-9) / 2 * 1.08
        x_mid, y_mid = (x_low + x_high) / 2, (y_low + y_high) / 2
        return x_mid - half, x_mid + half, y_mid - half, y_mid + half
    return x_low, x_high, y_low, y_high


def _placed_labels(groups: list[Points], bounds, most: int) -> list[list[str]]:
    """Per group, the text drawn beside each point ("" where none): at most `most` of a group, and never one on
    a label already drawn (a character taken as 2.6 % of the width and a line as 10 % of the height, a
    projector's at 1024 px). A label left out keeps the point's hover."""
    x_low, x_high, y_low, y_high = bounds
    placed: list[tuple[float, float, int]] = []                  # (x %, y %, characters) of each label drawn
    drawn = []
    for g in groups:
        shown, texts = set(_thin(len(g.x), most)), []
        for i, (px, py, label) in enumerate(zip(g.x, g.y, g.labels)):
            x = (px - x_low) / ((x_high - x_low) or 1) * 100
            y = (py - y_low) / ((y_high - y_low) or 1) * 100 + 6  # its label's middle, above the point
            clear = all(abs(x - qx) > 1.3 * (len(label) + n) + 1 or abs(y - qy) > 10 for qx, qy, n in placed)
            if i in shown and clear and math.isfinite(x) and math.isfinite(y):   # a point not drawn takes no room
                placed.append((x, y, len(label)))
                texts.append(_escape(label))
            else:
                texts.append("")
        drawn.append(texts)
    return drawn


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


def scatter_chart(groups: list[Points], title: str, x_title: str, y_title: str, summary: str,
                  x_range: tuple[float, float] | None = None, y_range: tuple[float, float] | None = None,
                  y_percent: bool = False, equal: bool = False, most_labels: int = 16) -> Chart:
    """Points in a plane (with `equal`, square, the two axes on one scale, so angles and lengths are true). Hover
    says each point's group, label and both values; at most `most_labels` labels of a group are drawn beside
    their points. A group with `arrows` is drawn as arrows from the origin: one trace of segments (as one
    annotation each, 48 arrows took Queries and keys from 0.21 to 0.86 s)."""
    bounds = _bounds(groups, x_range, y_range, equal)
    traces = []
    said = "%{y:.1%}" if y_percent else "%{y:.3g}"
    for g, texts in zip(groups, _placed_labels(groups, bounds, most_labels)):
        if g.arrows:
            xs = np.column_stack([np.zeros(len(g.x)), g.x, np.full(len(g.x), np.nan)]).ravel()
            ys = np.column_stack([np.zeros(len(g.y)), g.y, np.full(len(g.y), np.nan)]).ravel()
            traces.append(dict(type="scatter", x=xs, y=ys, mode="lines", line=dict(color="#6b7280", width=1.2),
                               hoverinfo="skip", showlegend=False, connectgaps=False))
        traces.append(dict(
            type="scatter", x=np.asarray(g.x, dtype=float), y=np.asarray(g.y, dtype=float), name=g.name,
            mode="markers+text",
            text=texts, customdata=[_escape(label) for label in g.labels], textposition="top center",
            cliponaxis=False,                                     # a label at the plane's edge drawn whole
            marker=dict(color=g.colours, symbol=g.shape, size=11, line=dict(color=TEXT, width=1)),
            hovertemplate=(f"{_escape(g.name)} %{{customdata}}: {_escape(x_title)} %{{x:.3g}}, "
                           f"{_escape(y_title)} {said}<extra></extra>")))
    x_low, x_high, y_low, y_high = bounds
    pad_x = (x_high - x_low) * 0.04 or 0.05                  # room for the markers at the edges
    pad_y = pad_x if equal else (y_high - y_low) * 0.08 or 0.05
    xaxis, yaxis = dict(range=[x_low - pad_x, x_high + pad_x]), dict(range=[y_low - pad_y, y_high + pad_y])
    if y_percent:                                            # places enough to tell a few percent apart
        yaxis["tickformat"] = ".0%" if y_high - y_low >= 0.1 else ".1%"
    if equal or any(g.arrows for g in groups):          # the axes through the origin
        for axis in (xaxis, yaxis):
            axis.update(zeroline=True, zerolinecolor="#9ca3af")
    if equal:
        yaxis.update(scaleanchor="x", scaleratio=1)
    fig = _figure(traces, x_title, y_title, len(groups) > 1, height=420 if equal else HEIGHT + 60, xaxis=xaxis,
                  yaxis=yaxis)
    rows = tuple((f"{g.name} {label}", f"{float(a):.4g}", f"{float(b):.1%}" if y_percent else f"{float(b):.3g}")
                 for g in groups for a, b, label in zip(g.x, g.y, g.labels))
    return Chart(fig, title, summary, ("point", x_title, y_title), rows)


def bar_chart(series: list[Series], x_labels: list[str], title: str, x_title: str, y_title: str, summary: str,
              point_name: str = "", x_names: list[str] | None = None,
              y_range: tuple[float, float] | None = None) -> Chart:
    """Bars grouped by position, one colour a series, from 0 (or over `y_range`). The positions are numbers on
    the axis, labelled by `x_labels` (at most 16 of them written): a repeated letter stays a bar of its own. Hover
    and the table name each position by `x_names` (else its label)."""
    names = x_names or x_labels
    positions = np.arange(len(x_labels), dtype=float)
    traces = [dict(type="bar", x=positions, y=np.asarray(s.values, dtype=float), name=s.name,
                   marker=dict(color=s.colour), customdata=[_escape(n) for n in names],
                   hovertemplate=f"{_escape(s.name)}, {_escape(point_name)} %{{customdata}}: %{{y:.3f}}<extra></extra>")
              for s in series]
    shown = _thin(len(x_labels), 16)
    top = max(float(np.max(s.values)) for s in series) if series else 1.0
    fig = _figure(traces, x_title, y_title, len(series) > 1, barmode="group", bargap=0.2,
                  xaxis=dict(tickvals=[positions[i] for i in shown], ticktext=[_escape(x_labels[i]) for i in shown],
                             range=[-0.5, len(x_labels) - 0.5]),
                  yaxis=dict(range=list(y_range or (0.0, max(top, 1e-12) * 1.05))))
    rows = tuple((names[i], *(number_text(float(s.values[i]), False) for s in series)) for i in range(len(names)))
    return Chart(fig, title, summary, (point_name or x_title, *(s.name for s in series)), rows)
