"""Figures of the lab: before against after, head rankings, length curves, queries and keys."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .attention import GRID_MIN_PANEL, GRID_STRIP
from .canvas_heatmap import heatmap_spec
from .svg_charts import Series, grouped_bars, line_chart
from .style import HORIZONTAL_LEGEND, figure

BEFORE, AFTER = "#1d4ed8", "#f59e0b"


def correct_probability_bars(before: np.ndarray, after: np.ndarray, step_labels: list[str],
                             title: str = "") -> str:
    """(n,) probability of the correct character at each step, the unchanged model beside the changed one, as
    grouped SVG bars (viz.svg_charts) on a fixed 0-1 scale."""
    before, after = np.asarray(before, dtype=float), np.asarray(after, dtype=float)
    series = [Series("unchanged", before, BEFORE), Series("changed", after, "#b45309")]
    fell = int(np.sum(after < before - 0.001))
    summary = (f"{title}: over {len(step_labels)} steps, p(correct) {float(before.min()):.3f} to "
               f"{float(before.max()):.3f} unchanged and {float(after.min()):.3f} to {float(after.max()):.3f} "
               f"changed; lower at {fell} step{'s' if fell != 1 else ''}.")
    return grouped_bars(series, list(step_labels), title, "step: the correct next character", "p(correct)", summary,
                        point_name="step", x_names=[f"{i} ({label})" for i, label in enumerate(step_labels)],
                        y_range=(0.0, 1.0))


def harm_against_pattern(names: list[str], kinds: list[str], scores: list[float], drops: list[float],
                         title: str = "",
                         x_title: str = "match with its hypothesis (mean weight on the key it names)") -> go.Figure:
    """One point per head: how well it matches a pattern (x) against how much removing it hurts (y)."""
    points = []
    for kind, symbol in (("encoder_self", "circle"), ("decoder_self", "square"), ("cross", "diamond")):
        idx = [i for i, k in enumerate(kinds) if k == kind]
        points.append(dict(
            type="scatter", mode="markers+text", name=kind.replace("_", " "), x=[scores[i] for i in idx],
            y=[drops[i] for i in idx], text=[names[i].split(" ", 1)[1] for i in idx], textposition="top center",
            marker=dict(size=11, symbol=symbol), customdata=[names[i] for i in idx],
            hovertemplate="%{customdata}<br>" + x_title + " %{x:.3f}<br>exact match lost %{y:.1%}<extra></extra>"))
    return figure(points, title, 440, legend=HORIZONTAL_LEGEND,
                  xaxis=dict(title=dict(text=x_title), range=[-0.02, 1.02]),
                  yaxis=dict(title=dict(text="exact match lost when switched off alone"), tickformat=".0%"))


def length_curve(by_length: dict[int, float], trained_up_to: int, title: str = "") -> str:
    """Exact match per input length as an SVG line (viz.svg_charts), the lengths seen in training shaded."""
    lengths = sorted(by_length)
    matches = np.array([by_length[n] for n in lengths], dtype=float)
    past = [n for n in lengths if n > trained_up_to]
    summary = (f"{title}: exact match {matches[[n <= trained_up_to for n in lengths]].min():.0%} at the least on "
               f"lengths 1–{trained_up_to}, the trained ones" + (f", and {max(by_length[n] for n in past):.0%} at "
                                                                   f"the most on {past[0]}–{past[-1]}" if past else "")
               + ".")
    return line_chart([Series("exact match", matches, BEFORE)], [str(n) for n in lengths], title,
                      "input length (characters)", "exact match", summary, y_range=(0.0, 1.0), point_name="length",
                      percent=True, band=(0, lengths.index(trained_up_to) if trained_up_to in lengths else len(lengths) - 1,
                                          f"trained on lengths 1–{trained_up_to}"))


def query_key_scatter(query_xy: np.ndarray, key_xy: np.ndarray, query_labels: list[str], key_labels: list[str],
                      explained: np.ndarray, title: str = "") -> go.Figure:
    """Queries as arrows from the origin (circles at their tips) and centred keys (squares) in one plane,
    coloured by position: a score is the dot product of an arrow with a key, not their distance."""
    arrows_x, arrows_y = [], []
    for x, y in query_xy:
        arrows_x += [0.0, x, None]
        arrows_y += [0.0, y, None]
    n = max(len(query_labels), len(key_labels))

    def points(xy, labels, name, symbol, hover):
        return dict(type="scatter", mode="markers+text", name=name, x=xy[:, 0], y=xy[:, 1],
                    text=[f"{i}:{label}" for i, label in enumerate(labels)], textposition="top center",
                    marker=dict(size=13, symbol=symbol, color=list(range(len(labels))), colorscale="Viridis",
                                cmin=0, cmax=n - 1, line=dict(width=1, color="#111827")),
                    hovertemplate=hover + " %{text}<extra></extra>")
    data = [
        dict(type="scatter", mode="lines", x=arrows_x, y=arrows_y, name="query arrows",
             line=dict(color="#9ca3af", width=1), hoverinfo="skip"),
        points(query_xy, query_labels, "queries", "circle", "query"),
        points(key_xy, key_labels, "keys", "square", "key"),
    ]
    return figure(data, title, 520, legend=HORIZONTAL_LEGEND,
                  xaxis=dict(title=dict(text=f"keys' direction 1 ({explained[0]:.0%} of their variance)"),
                             zeroline=True),
                  yaxis=dict(title=dict(text=f"keys' direction 2 ({explained[1]:.0%})"), zeroline=True,
                             scaleanchor="x"))


def maps_with_and_without(intact: np.ndarray, without: np.ndarray, query_labels: list[str], key_labels: list[str],
                          off: str, title: str = "", projector: bool = False) -> dict:
    """(H, Tq, Tk) one layer's weights with every head on (top row) and with the head `off` switched off (bottom
    row), on one colour scale, as a canvas grid: what that head passes on is what changes from the top row to the
    bottom one. Titles are short, as four panels share a phone's width: the bottom row's heads are starred."""
    n_heads = len(intact)
    panels = [(f"H{h}", intact[h]) for h in range(n_heads)] + [(f"H{h}*", without[h]) for h in range(n_heads)]
    names = ([f"last layer, head {h}, every head on" for h in range(n_heads)]
             + [f"last layer, head {h}, {off} off" for h in range(n_heads)])
    return heatmap_spec(panels, list(query_labels), list(key_labels), f"{title}; *: without {off}",
                        "output step (query)", "source position (key)",
                        projector=projector, panel_names=names, columns=n_heads, min_panel=GRID_MIN_PANEL,
                        strip_height=GRID_STRIP)
