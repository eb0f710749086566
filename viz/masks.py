"""Masks and the score -> masked score -> softmax pipeline."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .style import HORIZONTAL_LEGEND, MASK_COLOURS, SIGNED_SCALE, figure, token_axis


def mask_heatmap(mask: np.ndarray, row_labels: list[str], col_labels: list[str], title: str = "",
                 row_title: str = "query position", col_title: str = "key position",
                 max_ticks: int | None = None) -> go.Figure:
    """(R, C) boolean mask: dark = may attend (True), light = masked (False); `max_ticks` labels at most that
    many positions per axis."""
    mask = np.asarray(mask, dtype=bool)
    cells = dict(
        type="heatmap", z=mask.astype(int), x=list(range(mask.shape[1])), y=list(range(mask.shape[0])),
        zmin=0, zmax=1, colorscale=[[0, MASK_COLOURS[0]], [1, MASK_COLOURS[1]]], showscale=False,
        text=np.where(mask, "attend", "masked"),
        texttemplate="%{text}" if mask.size <= 100 and mask.shape[1] <= 12 else None,  # only while the word fits
        hovertemplate="row %{y}, column %{x}: %{text}<extra></extra>", xgap=1, ygap=1,
    )
    return figure([cells], title, max(200, 30 * len(row_labels) + 110),
                  xaxis=token_axis(col_labels, col_title, max_ticks=max_ticks),
                  yaxis=token_axis(row_labels, row_title, max_ticks=max_ticks, autorange="reversed"))


def scores_heatmap(scores: np.ndarray, row_labels: list[str], col_labels: list[str], title: str = "",
                   row_title: str = "query position", col_title: str = "key position") -> go.Figure:
    """(Tq, Tk) scores with -inf where masked: finite cells coloured by value, masked cells grey '-inf'."""
    scores = np.asarray(scores, dtype=float)
    masked = np.isneginf(scores)
    finite = np.where(masked, np.nan, scores)
    bound = float(np.nanmax(np.abs(finite))) if np.isfinite(finite).any() else 1.0
    show = scores.size <= 150
    x, y = list(range(scores.shape[1])), list(range(scores.shape[0]))
    values = dict(type="heatmap", z=finite, x=x, y=y, zmin=-bound, zmax=bound, colorscale=SIGNED_SCALE,
                  colorbar=dict(title=dict(text="score")), texttemplate="%{z:.1f}" if show else None,
                  hovertemplate="query %{y}, key %{x}<br>score %{z:.3f}<extra></extra>")
    minus_infinity = dict(type="heatmap", z=np.where(masked, 1.0, np.nan), x=x, y=y,
                          colorscale=[[0, "#d1d5db"], [1, "#d1d5db"]], showscale=False,
                          text=np.where(masked, "-inf", ""), texttemplate="%{text}" if show else None,
                          hoverongaps=False,  # finite cells are this layer's gaps: leave their hover to the scores
                          hovertemplate="query %{y}, key %{x}<br>score -inf (masked)<extra></extra>")
    return figure([values, minus_infinity], title, max(220, 30 * len(row_labels) + 120),
                  xaxis=token_axis(col_labels, col_title),
                  yaxis=token_axis(row_labels, row_title, autorange="reversed"))


def softmax_comparison(scaled: np.ndarray, unscaled: np.ndarray, key_labels: list[str], d_k: int,
                       title: str = "") -> go.Figure:
    """One query's weights with and without dividing the scores by sqrt(d_k)."""
    x = list(range(len(key_labels)))
    bars = [
        dict(type="bar", name=f"softmax(QKᵀ/√{d_k})", x=x, y=scaled, marker=dict(color="#1d4ed8"),
             hovertemplate="key %{x}<br>weight %{y:.4f}<extra>scaled</extra>"),
        dict(type="bar", name="softmax(QKᵀ), no scaling", x=x, y=unscaled, marker=dict(color="#f59e0b"),
             hovertemplate="key %{x}<br>weight %{y:.4f}<extra>unscaled</extra>"),
    ]
    return figure(bars, title, 320, barmode="group", legend=HORIZONTAL_LEGEND,
                  xaxis=token_axis(key_labels, "key position"),
                  yaxis=dict(range=[0, 1.05], title=dict(text="weight")))
