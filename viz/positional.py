"""Sinusoidal positional encodings: the table and its similarity as canvas heatmaps (as Plotly heatmaps,
Positional encoding's seven figures took 0.7 s for a new word at 48 characters), the distances, the rotation
property and the norms as Plotly charts (viz.plotly_charts)."""

from __future__ import annotations

import numpy as np

from .canvas_heatmap import RD_BU, Axes, Panel, Scale, heatmap_spec
from .plotly_charts import DISTINCT, Chart, Series, bar_chart, xy_chart


def encoding_spec(pe: np.ndarray, title: str, row_labels: list[str] | None = None, row_title: str = "position") -> dict:
    """(P, d) encodings for the canvas heatmap (explorer.components): a Plotly heatmap of them was drawn again
    for every new word (about 0.15 s). Each cell is named in the hover by its position (and character) and its
    dimension, sin or cos."""
    pe = np.asarray(pe, dtype=float)
    positions = [str(i) for i in range(pe.shape[0])]
    axes = Axes(row_labels if row_labels is not None else positions, [str(j) for j in range(pe.shape[1])],
                row_title, "dimension (even: sin, odd: cos)",
                row_names=None if row_labels is not None else positions,
                col_names=[f"{j} ({'cos' if j % 2 else 'sin'})" for j in range(pe.shape[1])], col_name="dimension")
    return heatmap_spec([Panel("PE", pe)], axes, title, Scale(1.0, -1.0, RD_BU, "value"))


def similarity_spec(similarity: np.ndarray, title: str = "") -> dict:
    """(P, P) PE·PEᵀ for the canvas heatmap: brightest on the diagonal, fading with distance. Its scale runs from
    the smallest dot product to the largest (d_model / 2, on the diagonal)."""
    similarity = np.asarray(similarity, dtype=float)
    positions = [str(i) for i in range(similarity.shape[0])]
    axes = Axes(positions, positions, "position i", "position j", row_names=[f"PE({i})" for i in positions],
                col_names=[f"PE({j})" for j in positions])
    scale = Scale(float(similarity.max()), min(0.0, float(similarity.min())), value_name="dot product")
    return heatmap_spec([Panel("PE · PEᵀ", similarity)], axes, title, scale)


def offset_distance_chart(distances: dict[int, np.ndarray], title: str = "") -> Chart:
    """For each delta, ||PE(pos+delta) - PE(pos)|| against pos: flat lines."""
    ordered = sorted(distances.items())
    series = [Series(f"δ = {delta}", np.asarray(d, dtype=float), DISTINCT[k % len(DISTINCT)])
              for k, (delta, d) in enumerate(ordered)]
    spans = "; ".join(f"δ = {delta}: {float(np.min(d)):.6f} to {float(np.max(d)):.6f}" for delta, d in ordered)
    return xy_chart(series, title, "pos", "distance", f"{title}: the distance at every pos, for each δ: {spans}.",
                    from_zero=True, point_name="pos")


def rotation_check_chart(actual: np.ndarray, rotated: np.ndarray, pos: int, delta: int, title: str = "") -> Chart:
    """PE(pos+delta) read from the table beside R_delta · PE(pos), dimension by dimension: the markers sit on the
    line."""
    actual, rotated = np.asarray(actual, dtype=float), np.asarray(rotated, dtype=float)
    series = [Series(f"PE({pos + delta}) from the table", actual, "#1d4ed8", width=6, opacity=0.45),
              Series(f"R_{delta} · PE({pos})", rotated, "#b91c1c", markers_only=True)]
    gap = float(np.abs(actual - rotated).max())
    return xy_chart(series, title, "dimension", "value",
                    f"{title}: over {len(actual)} dimensions, the two differ by at most {gap:.1e}.",
                    y_range=(-1.1, 1.1), point_name="dimension")


def norms_bars(labels: list[str], embedding: np.ndarray, raw_embedding: np.ndarray, position: np.ndarray,
               title: str = "") -> Chart:
    """Per source position: the norm of the embedding before and after √d_model scaling, and of PE."""
    series = [Series("embedding (unscaled)", np.asarray(raw_embedding, dtype=float), "#b45309"),
              Series("embedding × √d_model", np.asarray(embedding, dtype=float), "#1d4ed8"),
              Series("positional encoding", np.asarray(position, dtype=float), "#b91c1c")]
    said = "; ".join(f"{s.name} {float(s.values.min()):.2f} to {float(s.values.max()):.2f}" for s in series)
    return bar_chart(series, list(labels), title, "source position", "L2 norm",
                     f"{title}, over {len(labels)} source positions: {said}.", point_name="position",
                     x_names=[f"{i} ({label})" for i, label in enumerate(labels)])
