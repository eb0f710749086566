"""Attention matrices: rows are queries, columns are keys, one 0-1 colour scale everywhere."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .style import ATTENTION_SCALE, base_layout, token_axis

HOVER = ("query %{y} <b>%{customdata[0]}</b><br>key %{x} <b>%{customdata[1]}</b>"
         "<br>weight %{z:.3f}<extra></extra>")


def _hover_labels(query_labels: list[str], key_labels: list[str]) -> np.ndarray:
    q = np.array(query_labels, dtype=object)[:, None].repeat(len(key_labels), 1)
    k = np.array(key_labels, dtype=object)[None, :].repeat(len(query_labels), 0)
    return np.stack([q, k], axis=-1)  # (Tq, Tk, 2)


def _heatmap(weights: np.ndarray, query_labels: list[str], key_labels: list[str], show_values: bool,
             **kwargs) -> go.Heatmap:
    weights = np.asarray(weights, dtype=float)
    return go.Heatmap(
        z=weights, x=list(range(weights.shape[1])), y=list(range(weights.shape[0])),
        customdata=_hover_labels(query_labels, key_labels), hovertemplate=HOVER,
        texttemplate="%{z:.2f}" if show_values else None, **kwargs,
    )


def attention_heatmap(
    weights: np.ndarray, query_labels: list[str], key_labels: list[str], title: str = "",
    query_title: str = "query position", key_title: str = "key position", show_values: bool | None = None,
    height: int | None = None,
) -> go.Figure:
    """(Tq, Tk) weights -> one heatmap with hover on every cell."""
    if show_values is None:
        show_values = weights.shape[0] * weights.shape[1] <= 120
    fig = go.Figure(_heatmap(weights, query_labels, key_labels, show_values, zmin=0, zmax=1,
                             colorscale=ATTENTION_SCALE, colorbar=dict(title="weight"),
                             showscale=weights.shape[0] > 2))
    fig.update_xaxes(**token_axis(key_labels, key_title), side="bottom")
    fig.update_yaxes(**token_axis(query_labels, query_title), autorange="reversed")
    return base_layout(fig, title, height or max(260, 34 * len(query_labels) + 120))


def attention_grid(
    weights: np.ndarray, query_labels: list[str], key_labels: list[str], title: str = "",
    row_name: str = "layer", col_name: str = "head",
) -> go.Figure:
    """(R, C, Tq, Tk) weights -> an R x C grid of small heatmaps sharing one colour scale."""
    rows, cols = weights.shape[:2]
    fig = make_subplots(rows=rows, cols=cols, horizontal_spacing=0.025, vertical_spacing=0.12 / max(rows - 1, 1) + 0.04,
                        subplot_titles=[f"{row_name} {r} · {col_name} {c}" for r in range(rows) for c in range(cols)])
    for r in range(rows):
        for c in range(cols):
            fig.add_trace(_heatmap(weights[r, c], query_labels, key_labels, False, coloraxis="coloraxis"),
                          row=r + 1, col=c + 1)
    fig.update_layout(coloraxis=dict(colorscale=ATTENTION_SCALE, cmin=0, cmax=1, colorbar=dict(title="weight")))
    small = len(key_labels) <= 16 and len(query_labels) <= 16
    for r in range(1, rows + 1):
        for c in range(1, cols + 1):  # token labels on the outer edges only, so the cells stay readable
            fig.update_xaxes(tickmode="array", tickvals=list(range(len(key_labels))), ticktext=key_labels,
                             showticklabels=small and r == rows, tickfont=dict(size=11), row=r, col=c)
            fig.update_yaxes(tickmode="array", tickvals=list(range(len(query_labels))), ticktext=query_labels,
                             showticklabels=small and c == 1, tickfont=dict(size=11), autorange="reversed",
                             row=r, col=c)
    return base_layout(fig, title, 250 * rows + 60)
