"""Line charts over a numeric axis and scatters as Plotly figures: hover on every point, zoom, and a picture of
the chart (the camera in its toolbar, at twice the screen's size for a slide) come with Plotly.

Measured before they came back (benchmarks.browser_ab, 48 characters, medians of 8, Streamlit's theme off: with
it on, Positional's three Plotly charts took 0.61 s): Training 0.30 → 0.34 s with its curves as Plotly figures,
Lab: which head reverses 0.18 → 0.20 s, Queries and keys 0.21 → 0.31 s (its arrows one trace: as 48 annotations,
0.86 s). Each figure is drawn by explorer.charts.plotly_chart, which also writes its summary (what a screen
reader reads for it) and its numbers as a table the keyboard reaches.
"""

from __future__ import annotations

import html as _html
import math
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from .svg_charts import GRID, TEXT, Points, Series, _thin

def _escape(text: str) -> str:
    """Text Plotly would read as markup (a learner's "<b>" in a label) written as itself."""
    return _html.escape(text, quote=False)


FONT = "Source Sans, Source Sans Pro, sans-serif"   # the page's own type (Plotly's default is Open Sans)
LABEL_GROUND = "rgba(255, 255, 255, 0.85)"           # behind a line's label, over the lines it crosses
HEIGHT = 300                                          # px, at the page's type; explorer.charts scales it up for
                                                      # projector mode


@dataclass(frozen=True)
class Chart:
    """A figure and what is said beside it: `summary`, one sentence from its numbers (its text alternative), and
    its numbers as a table (`headers`, `rows`, each row's first cell its header)."""
    figure: go.Figure
    summary: str
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]

    def numbers_html(self) -> str:
        """The summary (for a screen reader: the figure says it) and the numbers behind a disclosure."""
        head = "".join(f'<th scope="col">{_escape(h)}</th>' for h in self.headers)
        body = "".join(f'<tr><th scope="row">{_escape(row[0])}</th>'
                       + "".join(f"<td>{_escape(cell)}</td>" for cell in row[1:]) + "</tr>" for row in self.rows)
        return (f'<p class="summary">{_escape(self.summary)}</p>'
                f'<details class="numbers"><summary>The numbers as a table</summary>'
                f'<div role="region" tabindex="0" aria-label="the numbers" class="table-box">'
                f'<table><tr>{head}</tr>{body}</table></div></details>')


def _layout(fig: go.Figure, title: str, x_title: str, y_title: str, legend: bool, height: int = HEIGHT) -> go.Figure:
    """The page's type and colours; the legend above the plot (under it, it ran into the x axis's title), under
    the title."""
    top = (34 if title else 10) + (26 if legend else 0)
    fig.update_layout(
        title=dict(text=_escape(title), x=0, xanchor="left", y=1, yref="container", yanchor="top",
                   pad=dict(t=6), font=dict(size=15)) if title else None,
        height=height + top, margin=dict(l=64, r=12, t=top, b=48), font=dict(family=FONT, color=TEXT, size=13),
        plot_bgcolor="white", paper_bgcolor="white", showlegend=legend, hoverlabel=dict(font_family=FONT),
        legend=dict(orientation="h", x=0, xanchor="left", y=1.02, yanchor="bottom"))
    for axis, name in ((fig.update_xaxes, x_title), (fig.update_yaxes, y_title)):   # margins grow to their labels
        axis(title=_escape(name), gridcolor=GRID, zeroline=False, linecolor="#6b7280", automargin=True)
    return fig


def _said(value: float, percent: bool) -> str:
    return f"{value:.1%}" if percent else f"{value:.4g}"


def _finite(s: Series) -> Series:
    """The series without its points whose value or position is not finite (a diverged run's loss)."""
    values, xs = np.asarray(s.values, dtype=float), np.asarray(s.x, dtype=float)
    keep = np.isfinite(values) & np.isfinite(xs)
    return s if keep.all() else Series(s.name, values[keep], s.colour, s.width, s.opacity, s.markers_only, xs[keep],
                                       s.dashed)


def xy_chart(series: list[Series], title: str, x_title: str, y_title: str, summary: str, log_y: bool = False,
             y_range: tuple[float, float] | None = None, percent: bool = False, x_range: tuple[float, float] | None = None,
             marks: tuple[tuple[float, str], ...] = (), references: tuple[tuple[float, str], ...] = (),
             point_name: str = "step", most_markers: int = 100) -> Chart:
    """Lines over a numeric x axis (each Series' `x`), on a log y axis with `log_y` (one tick per power of ten,
    written as a decimal). At most `most_markers` points of each line carry a marker; hover names any point.
    `marks`: (x, label) vertical dashed lines; `references`: (y, label) horizontal dashed lines, such as a
    baseline. On a log axis a value of 0 or below (a loss rounded to 0) is drawn on the axis's floor, the power of
    ten under the smallest positive value, and said as itself in the hover; points that are not finite are left
    out."""
    series = [_finite(s) for s in series]
    values = np.concatenate([np.asarray(s.values, dtype=float) for s in series]
                            + [np.array([v for v, _ in references], dtype=float)])
    positive = values[values > 0]
    floor = 10.0 ** math.floor(math.log10(float(positive.min()))) if log_y and positive.size else 0.0
    value_format = ":.1%" if percent else ":.4f"
    fig = go.Figure()
    for s in series:
        raw = np.asarray(s.values, dtype=float)
        marked = np.zeros(len(raw), dtype=bool)
        marked[_thin(len(raw), most_markers)] = True
        fig.add_trace(go.Scatter(
            x=np.asarray(s.x, dtype=float), y=np.maximum(raw, floor) if log_y else raw, customdata=raw,
            name=s.name, mode="lines+markers",
            line=dict(color=s.colour, width=s.width, dash="dash" if s.dashed else "solid"),
            marker=dict(size=np.where(marked, 6 if marked.sum() <= 40 else 4, 0), color=s.colour),
            hovertemplate=f"{_escape(s.name)}, {point_name} %{{x:g}}: %{{customdata{value_format}}}<extra></extra>"))
    for value, label in references:   # its label under it at the right: the marks' labels are on top
        fig.add_hline(y=value, line=dict(color="#4b5563", width=1.5, dash="dash"))
        fig.add_annotation(x=1, xref="x domain", y=math.log10(value) if log_y else value, yref="y", xanchor="right",
                           yanchor="top", text=_escape(label), showarrow=False, font_color=TEXT, bgcolor=LABEL_GROUND)
    for where, label in marks:        # (an annotation's y on a log axis is the value's log: shapes take the value)
        fig.add_vline(x=where, line=dict(color="#b91c1c", width=2, dash="dash"), annotation_text=_escape(label),
                      annotation_position="top left", annotation_font_color="#b91c1c",
                      annotation_bgcolor=LABEL_GROUND)
    if log_y:
        low = math.floor(math.log10(float(max(values.min(), floor)))) if values.size else 0
        high = max(math.ceil(math.log10(float(values.max()))) if positive.size else 0, low + 1)
        fig.update_yaxes(type="log", range=[low, high], tickvals=[10.0 ** p for p in range(low, high + 1)],
                         ticktext=[f"{10.0 ** p:.{max(-p, 0)}f}" for p in range(low, high + 1)])
    elif y_range:
        fig.update_yaxes(range=list(y_range), tickformat=".0%" if percent else None)
    elif percent:
        fig.update_yaxes(tickformat=".0%")
    if x_range:
        fig.update_xaxes(range=list(x_range))
    rows = tuple((s.name, f"{a:g}", _said(b, percent)) for s in series
                 for a, b in zip(np.asarray(s.x, dtype=float), np.asarray(s.values, dtype=float)))
    return Chart(_layout(fig, title, x_title, y_title, len(series) > 1), summary, ("series", x_title, y_title), rows)


SYMBOLS = {"circle": "circle", "square": "square", "diamond": "diamond"}


def scatter_chart(groups: list[Points], title: str, x_title: str, y_title: str, summary: str,
                  x_range: tuple[float, float] | None = None, y_range: tuple[float, float] | None = None,
                  y_percent: bool = False, equal: bool = False, most_labels: int = 16) -> Chart:
    """Points in a plane (with `equal`, square, the two axes on one scale, so angles and lengths are true). Hover
    says each point's group, label and both values; at most `most_labels` labels of a group are drawn beside
    their points. A group with `arrows` is drawn as arrows from the origin: one trace of segments (as one
    annotation each, 48 arrows took Queries and keys from 0.21 to 0.86 s)."""
    fig = go.Figure()
    said = "%{y:.1%}" if y_percent else "%{y:.3g}"
    for g in groups:
        if g.arrows:
            xs = np.column_stack([np.zeros(len(g.x)), g.x, np.full(len(g.x), np.nan)]).ravel()
            ys = np.column_stack([np.zeros(len(g.y)), g.y, np.full(len(g.y), np.nan)]).ravel()
            fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", line=dict(color="#6b7280", width=1.2),
                                     hoverinfo="skip", showlegend=False, connectgaps=False))
        shown = set(_thin(len(g.x), most_labels))
        fig.add_trace(go.Scatter(
            x=np.asarray(g.x, dtype=float), y=np.asarray(g.y, dtype=float), name=g.name, mode="markers+text",
            text=[_escape(label) if i in shown else "" for i, label in enumerate(g.labels)],
            customdata=[_escape(label) for label in g.labels], textposition="top center",
            marker=dict(color=g.colours, symbol=SYMBOLS[g.shape], size=11, line=dict(color=TEXT, width=1)),
            hovertemplate=(f"{_escape(g.name)} %{{customdata}}: {_escape(x_title)} %{{x:.3g}}, "
                           f"{_escape(y_title)} {said}<extra></extra>")))
    if x_range:
        fig.update_xaxes(range=list(x_range))
    if y_range:
        fig.update_yaxes(range=list(y_range))
    if y_percent:
        fig.update_yaxes(tickformat=".0%")
    _layout(fig, title, x_title, y_title, len(groups) > 1, height=420 if equal else HEIGHT + 60)
    if equal or any(g.arrows for g in groups):          # the axes through the origin
        fig.update_xaxes(zeroline=True, zerolinecolor="#9ca3af")
        fig.update_yaxes(zeroline=True, zerolinecolor="#9ca3af")
    if equal:
        fig.update_yaxes(scaleanchor="x", scaleratio=1)
    rows = tuple((f"{g.name} {label}", f"{float(a):.4g}", f"{float(b):.1%}" if y_percent else f"{float(b):.3g}")
                 for g in groups for a, b, label in zip(g.x, g.y, g.labels))
    return Chart(fig, summary, ("point", x_title, y_title), rows)
