"""Sinusoidal positional encodings: the table, its similarity, and the rotation property."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .canvas_heatmap import RD_BU, heatmap_spec
from .style import HORIZONTAL_LEGEND, figure, token_axis


def encoding_spec(pe: np.ndarray, title: str, row_labels: list[str] | None = None, row_title: str = "position",
                  projector: bool = False) -> dict:
    """(P, d) encodings for the canvas heatmap (explorer.canvas_charts): a Plotly heatmap of them was drawn again
    for every new word (about 0.15 s). Each cell is named in the hover by its position (and character) and its
    dimension, sin or cos."""
    pe = np.asarray(pe, dtype=float)
    positions = [str(i) for i in range(pe.shape[0])]
    return heatmap_spec([("PE", pe)], row_labels if row_labels is not None else positions,
                        [str(j) for j in range(pe.shape[1])], title, row_title,
                        "dimension (even: sin, odd: cos)", value_name="value", zmin=-1.0, zmax=1.0, stops=RD_BU,
                        row_names=None if row_labels is not None else positions,
                        col_names=[f"{j} ({'cos' if j % 2 else 'sin'})" for j in range(pe.shape[1])],
                        col_name="dimension",
                        projector=projector)


def similarity_heatmap(similarity: np.ndarray, title: str = "") -> go.Figure:
    """(P, P) PE·PEᵀ: brightest on the diagonal, fading with distance."""
    cells = dict(type="heatmap", z=np.asarray(similarity, dtype=float), colorscale="Viridis",
                 colorbar=dict(title=dict(text="dot")), hovertemplate="PE(%{y}) · PE(%{x}) = %{z:.3f}<extra></extra>")
    return figure([cells], title, 420, xaxis=dict(title=dict(text="position j")),
                  yaxis=dict(title=dict(text="position i"), autorange="reversed"))


def offset_distance_chart(distances: dict[int, np.ndarray], title: str = "") -> go.Figure:
    """For each delta, ||PE(pos+delta) - PE(pos)|| against pos: flat lines."""
    lines = [
        dict(type="scatter", x=list(range(len(d))), y=np.asarray(d, dtype=float), mode="lines+markers",
             name=f"δ = {delta}",
             hovertemplate=f"pos %{{x}}<br>||PE(pos+{delta}) − PE(pos)|| = %{{y:.6f}}<extra></extra>")
        for delta, d in sorted(distances.items())
    ]
    return figure(lines, title, 320, xaxis=dict(title=dict(text="pos")),
                  yaxis=dict(title=dict(text="distance"), rangemode="tozero"))


def rotation_check_chart(actual: np.ndarray, rotated: np.ndarray, pos: int, delta: int, title: str = "") -> go.Figure:
    """PE(pos+delta) read from the table beside R_delta · PE(pos), dimension by dimension."""
    dims = list(range(len(actual)))
    lines = [
        dict(type="scatter", x=dims, y=np.asarray(actual, dtype=float), mode="lines",
             name=f"PE({pos + delta}) from the table", line=dict(color="#1d4ed8", width=6), opacity=0.45),
        dict(type="scatter", x=dims, y=np.asarray(rotated, dtype=float), mode="markers",
             name=f"R_{delta} · PE({pos})", marker=dict(color="#dc2626", size=6)),
    ]
    return figure(lines, title, 320, legend=HORIZONTAL_LEGEND, xaxis=dict(title=dict(text="dimension")),
                  yaxis=dict(title=dict(text="value"), range=[-1.1, 1.1]))


def norms_bars(labels: list[str], embedding: np.ndarray, raw_embedding: np.ndarray, position: np.ndarray,
               title: str = "") -> go.Figure:
    """Per source position: the norm of the embedding before and after √d_model scaling, and of PE."""
    x = list(range(len(labels)))
    hover = "position %{x}<br>norm %{y:.3f}<extra>%{fullData.name}</extra>"
    bars = [
        dict(type="bar", name="embedding (unscaled)", x=x, y=raw_embedding, marker=dict(color="#fbbf24"),
             hovertemplate=hover),
        dict(type="bar", name="embedding × √d_model", x=x, y=embedding, marker=dict(color="#1d4ed8"),
             hovertemplate=hover),
        dict(type="bar", name="positional encoding", x=x, y=position, marker=dict(color="#dc2626"),
             hovertemplate=hover),
    ]
    return figure(bars, title, 320, barmode="group", legend=HORIZONTAL_LEGEND,
                  xaxis=token_axis(labels, "source position"), yaxis=dict(title=dict(text="L2 norm")))
