"""Masks and the score -> masked score -> softmax pipeline."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .style import MASK_COLOURS, SIGNED_SCALE, base_layout, token_axis


def mask_heatmap(mask: np.ndarray, row_labels: list[str], col_labels: list[str], title: str = "",
                 row_title: str = "query position", col_title: str = "key position") -> go.Figure:
    """(R, C) boolean mask: dark = may attend (True), light = masked (False)."""
    mask = np.asarray(mask, dtype=bool)
    fig = go.Figure(go.Heatmap(
        z=mask.astype(int), x=list(range(mask.shape[1])), y=list(range(mask.shape[0])),
        zmin=0, zmax=1, colorscale=[[0, MASK_COLOURS[0]], [1, MASK_COLOURS[1]]], showscale=False,
        text=np.where(mask, "attend", "masked"), texttemplate="%{text}" if mask.size <= 100 else None,
        hovertemplate="row %{y}, column %{x}: %{text}<extra></extra>", xgap=1, ygap=1,
    ))
    fig.update_xaxes(**token_axis(col_labels, col_title))
    fig.update_yaxes(**token_axis(row_labels, row_title), autorange="reversed")
    return base_layout(fig, title, max(200, 30 * len(row_labels) + 110))


def scores_heatmap(scores: np.ndarray, row_labels: list[str], col_labels: list[str], title: str = "",
                   row_title: str = "query position", col_title: str = "key position") -> go.Figure:
    """(Tq, Tk) scores with -inf where masked: finite cells coloured by value, masked cells grey '-inf'."""
    scores = np.asarray(scores, dtype=float)
    masked = np.isneginf(scores)
    finite = np.where(masked, np.nan, scores)
    bound = float(np.nanmax(np.abs(finite))) if np.isfinite(finite).any() else 1.0
    show = scores.size <= 150
    fig = go.Figure([
        go.Heatmap(z=finite, x=list(range(scores.shape[1])), y=list(range(scores.shape[0])),
                   zmin=-bound, zmax=bound, colorscale=SIGNED_SCALE, colorbar=dict(title="score"),
                   texttemplate="%{z:.1f}" if show else None,
                   hovertemplate="query %{y}, key %{x}<br>score %{z:.3f}<extra></extra>"),
        go.Heatmap(z=np.where(masked, 1.0, np.nan), x=list(range(scores.shape[1])), y=list(range(scores.shape[0])),
                   colorscale=[[0, "#d1d5db"], [1, "#d1d5db"]], showscale=False,
                   text=np.where(masked, "-inf", ""), texttemplate="%{text}" if show else None,
                   hovertemplate="query %{y}, key %{x}<br>score -inf (masked)<extra></extra>"),
    ])
    fig.update_xaxes(**token_axis(col_labels, col_title))
    fig.update_yaxes(**token_axis(row_labels, row_title), autorange="reversed")
    return base_layout(fig, title, max(220, 30 * len(row_labels) + 120))


def softmax_comparison(scaled: np.ndarray, unscaled: np.ndarray, key_labels: list[str], d_k: int,
                       title: str = "") -> go.Figure:
    """One query's weights with and without dividing the scores by sqrt(d_k)."""
    x = list(range(len(key_labels)))
    fig = go.Figure([
        go.Bar(name=f"softmax(QKᵀ/√{d_k})", x=x, y=scaled, marker_color="#1d4ed8",
               hovertemplate="key %{x}<br>weight %{y:.4f}<extra>scaled</extra>"),
        go.Bar(name="softmax(QKᵀ), no scaling", x=x, y=unscaled, marker_color="#f59e0b",
               hovertemplate="key %{x}<br>weight %{y:.4f}<extra>unscaled</extra>"),
    ])
    fig.update_layout(barmode="group", legend=dict(orientation="h", y=1.02, yanchor="bottom", x=1, xanchor="right"))
    fig.update_xaxes(**token_axis(key_labels, "key position"))
    fig.update_yaxes(range=[0, 1.05], title="weight")
    return base_layout(fig, title, 320)
