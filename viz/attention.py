"""Attention matrices: rows are queries, columns are keys, one 0-1 colour scale everywhere."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .style import ATTENTION_SCALE, figure, grid_domains, token_axis

HOVER = ("query %{y} <b>%{customdata[0]}</b><br>key %{x} <b>%{customdata[1]}</b>"
         "<br>weight %{z:.3f}<extra></extra>")


def _hover_labels(query_labels: list[str], key_labels: list[str]) -> np.ndarray:
    q = np.array(query_labels, dtype=object)[:, None].repeat(len(key_labels), 1)
    k = np.array(key_labels, dtype=object)[None, :].repeat(len(query_labels), 0)
    return np.stack([q, k], axis=-1)  # (Tq, Tk, 2)


def _heatmap(weights: np.ndarray, query_labels: list[str], key_labels: list[str], show_values: bool,
             **extra) -> dict:
    weights = np.asarray(weights, dtype=float)
    return dict(
        type="heatmap", z=weights, x=list(range(weights.shape[1])), y=list(range(weights.shape[0])),
        customdata=_hover_labels(query_labels, key_labels), hovertemplate=HOVER,
        texttemplate="%{z:.2f}" if show_values else None, **extra,
    )


def attention_heatmap(
    weights: np.ndarray, query_labels: list[str], key_labels: list[str], title: str = "",
    query_title: str = "query position", key_title: str = "key position", show_values: bool | None = None,
    height: int | None = None,
) -> go.Figure:
    """(Tq, Tk) weights -> one heatmap with hover on every cell."""
    if show_values is None:  # numbers in the cells only while the cells are wide enough to hold them
        show_values = weights.shape[1] <= 12 and weights.shape[0] * weights.shape[1] <= 120
    trace = _heatmap(weights, query_labels, key_labels, show_values, zmin=0, zmax=1, colorscale=ATTENTION_SCALE,
                     colorbar=dict(title=dict(text="weight")), showscale=weights.shape[0] > 2)
    return figure(
        [trace], title, height or max(260, 34 * len(query_labels) + 120),
        xaxis=token_axis(key_labels, key_title, side="bottom"),
        yaxis=token_axis(query_labels, query_title, autorange="reversed"),
    )


def attention_grid(
    weights: np.ndarray, query_labels: list[str], key_labels: list[str], title: str = "",
    row_name: str = "layer", col_name: str = "head",
) -> go.Figure:
    """(R, C, Tq, Tk) weights -> an R x C grid of small heatmaps sharing one colour scale."""
    rows, cols = weights.shape[:2]
    small = len(key_labels) <= 16 and len(query_labels) <= 16  # tick labels only where they stay readable
    data, layout, titles = [], {}, []
    for i, (x_domain, y_domain) in enumerate(grid_domains(rows, cols, 0.025, 0.12 / max(rows - 1, 1) + 0.04)):
        r, c = divmod(i, cols)
        n = "" if i == 0 else str(i + 1)
        data.append(_heatmap(weights[r, c], query_labels, key_labels, False, xaxis=f"x{n}", yaxis=f"y{n}",
                             coloraxis="coloraxis"))
        layout[f"xaxis{n}"] = dict(domain=x_domain, anchor=f"y{n}", tickmode="array",
                                   tickvals=list(range(len(key_labels))), ticktext=list(key_labels),
                                   tickfont=dict(size=11), showticklabels=small and r == rows - 1)
        layout[f"yaxis{n}"] = dict(domain=y_domain, anchor=f"x{n}", tickmode="array", autorange="reversed",
                                   tickvals=list(range(len(query_labels))), ticktext=list(query_labels),
                                   tickfont=dict(size=11), showticklabels=small and c == 0)
        titles.append(dict(text=f"{row_name} {r} · {col_name} {c}", x=sum(x_domain) / 2, y=y_domain[1],
                           xref="paper", yref="paper", xanchor="center", yanchor="bottom", showarrow=False))
    return figure(data, title, 250 * rows + 60, annotations=titles,
                  coloraxis=dict(colorscale=ATTENTION_SCALE, cmin=0, cmax=1, colorbar=dict(title=dict(text="weight"))),
                  **layout)
