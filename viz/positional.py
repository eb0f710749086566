"""Sinusoidal positional encodings: the table, its similarity, and the rotation property."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .style import SIGNED_SCALE, base_layout, token_axis


def encoding_heatmap(pe: np.ndarray, title: str = "", row_labels: list[str] | None = None,
                     row_title: str = "position") -> go.Figure:
    """(P, d) encodings -> heatmap, positions down, dimensions across, -1..1 diverging scale."""
    pe = np.asarray(pe, dtype=float)
    fig = go.Figure(go.Heatmap(
        z=pe, x=list(range(pe.shape[1])), y=list(range(pe.shape[0])), zmin=-1, zmax=1, colorscale=SIGNED_SCALE,
        colorbar=dict(title="value"),
        hovertemplate="position %{y}<br>dimension %{x}<br>value %{z:.4f}<extra></extra>",
    ))
    fig.update_xaxes(title="dimension (even: sin, odd: cos)")
    if row_labels is not None:
        fig.update_yaxes(**token_axis(row_labels, row_title))
    else:
        fig.update_yaxes(title=row_title)
    fig.update_yaxes(autorange="reversed")
    return base_layout(fig, title, min(700, max(260, 9 * pe.shape[0] + 120)))


def similarity_heatmap(similarity: np.ndarray, title: str = "") -> go.Figure:
    """(P, P) PE·PEᵀ: brightest on the diagonal, fading with distance."""
    fig = go.Figure(go.Heatmap(
        z=np.asarray(similarity, dtype=float), colorscale="Viridis", colorbar=dict(title="dot"),
        hovertemplate="PE(%{y}) · PE(%{x}) = %{z:.3f}<extra></extra>",
    ))
    fig.update_xaxes(title="position j")
    fig.update_yaxes(title="position i", autorange="reversed")
    return base_layout(fig, title, 420)


def offset_distance_chart(distances: dict[int, np.ndarray], title: str = "") -> go.Figure:
    """For each delta, ||PE(pos+delta) - PE(pos)|| against pos: flat lines."""
    fig = go.Figure([
        go.Scatter(x=list(range(len(d))), y=np.asarray(d, dtype=float), mode="lines+markers", name=f"δ = {delta}",
                   hovertemplate=f"pos %{{x}}<br>||PE(pos+{delta}) − PE(pos)|| = %{{y:.6f}}<extra></extra>")
        for delta, d in sorted(distances.items())
    ])
    fig.update_xaxes(title="pos")
    fig.update_yaxes(title="distance", rangemode="tozero")
    return base_layout(fig, title, 320)


def rotation_check_chart(actual: np.ndarray, rotated: np.ndarray, pos: int, delta: int, title: str = "") -> go.Figure:
    """PE(pos+delta) read from the table beside R_delta · PE(pos), dimension by dimension."""
    dims = list(range(len(actual)))
    fig = go.Figure([
        go.Scatter(x=dims, y=np.asarray(actual, dtype=float), mode="lines", name=f"PE({pos + delta}) from the table",
                   line=dict(color="#1d4ed8", width=6), opacity=0.45),
        go.Scatter(x=dims, y=np.asarray(rotated, dtype=float), mode="markers", name=f"R_{delta} · PE({pos})",
                   marker=dict(color="#dc2626", size=6)),
    ])
    fig.update_xaxes(title="dimension")
    fig.update_yaxes(title="value", range=[-1.1, 1.1])
    fig.update_layout(legend=dict(orientation="h", y=1.02, yanchor="bottom", x=1, xanchor="right"))
    return base_layout(fig, title, 320)


def norms_bars(labels: list[str], embedding: np.ndarray, raw_embedding: np.ndarray, position: np.ndarray,
               title: str = "") -> go.Figure:
    """Per source position: the norm of the embedding before and after √d_model scaling, and of PE."""
    x = list(range(len(labels)))
    fig = go.Figure([
        go.Bar(name="embedding (unscaled)", x=x, y=raw_embedding, marker_color="#fbbf24"),
        go.Bar(name="embedding × √d_model", x=x, y=embedding, marker_color="#1d4ed8"),
        go.Bar(name="positional encoding", x=x, y=position, marker_color="#dc2626"),
    ])
    fig.update_traces(hovertemplate="position %{x}<br>norm %{y:.3f}<extra>%{fullData.name}</extra>")
    fig.update_layout(barmode="group", legend=dict(orientation="h", y=1.02, yanchor="bottom", x=1, xanchor="right"))
    fig.update_xaxes(**token_axis(labels, "source position"))
    fig.update_yaxes(title="L2 norm")
    return base_layout(fig, title, 320)
