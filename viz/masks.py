"""Masks and the score -> masked score -> softmax pipeline."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .canvas_heatmap import RD_BU, WRITTEN_CELLS, heatmap_spec, shape
from .style import HORIZONTAL_LEGEND, figure, token_axis

MASKED, MAY_ATTEND = (229, 231, 235), (29, 78, 216)   # light grey, blue


def mask_spec(mask: np.ndarray, row_labels: list[str], col_labels: list[str], title: str,
              row_title: str = "query position", col_title: str = "key position", projector: bool = False) -> dict:
    """(R, C) boolean mask for the canvas: blue = may attend (True), light grey = masked (False); its accessible
    name counts both, and every cell is named by its word ("masked"), not a number."""
    mask = np.asarray(mask, dtype=bool)
    words = np.where(mask, "attend", "masked").tolist()
    hidden = int((~mask).sum())
    title = f"{title} (blue: may attend; grey: masked)"
    return heatmap_spec(
        [(title, mask.astype(float))], row_labels, col_labels, title,
        row_title, col_title, stops=(MASKED, MAY_ATTEND), projector=projector, bar=False, gaps=True,
        hover=[np.where(mask, "may attend", "masked").tolist()],
        cells=[words] if mask.size <= WRITTEN_CELLS else None,
        strip_height=max(200, 30 * min(len(row_labels), 20) + 110),
        summary=f"{title}, {shape(1, *mask.shape)}: {hidden} of {mask.size} cells masked, "
                f"{mask.size - hidden} may be attended to.")


def scores_spec(scores: np.ndarray, row_labels: list[str], col_labels: list[str], title: str,
                row_title: str = "query position", col_title: str = "key position", projector: bool = False) -> dict:
    """(Tq, Tk) scores with -inf where masked, for the canvas: finite cells on a signed scale symmetric about 0,
    masked cells grey and named −∞."""
    scores = np.asarray(scores, dtype=float)
    masked = np.isneginf(scores)
    finite = np.where(masked, np.nan, scores)
    bound = float(np.nanmax(np.abs(finite))) if np.isfinite(finite).any() else 1.0
    cells = np.where(masked, "−∞", np.char.mod("%.1f", np.nan_to_num(finite))).tolist()
    return heatmap_spec([(title, finite)], row_labels, col_labels, title, row_title, col_title, "score", bound, RD_BU,
                        projector=projector, zmin=-bound, null_text="−∞ (masked)",
                        cells=[cells] if scores.size <= WRITTEN_CELLS else None,
                        strip_height=max(220, 30 * min(len(row_labels), 20) + 120))


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
