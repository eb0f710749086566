"""Masks and the score -> masked score -> softmax pipeline."""

from __future__ import annotations

import numpy as np

from .canvas_heatmap import RD_BU, WRITTEN_CELLS, Axes, Grid, Panel, Scale, heatmap_spec, shape
from .plotly_charts import Chart, Series, bar_chart

MASKED, MAY_ATTEND = (229, 231, 235), (29, 78, 216)   # light grey, blue


def mask_spec(mask: np.ndarray, row_labels: list[str], col_labels: list[str], title: str,
              row_title: str = "query position", col_title: str = "key position") -> dict:
    """(R, C) boolean mask for the canvas: blue = may attend (True), light grey = masked (False); its accessible
    name counts both, and every cell is named by its word ("masked"), not a number."""
    mask = np.asarray(mask, dtype=bool)
    words = np.where(mask, "attend", "masked").tolist()
    hidden = int((~mask).sum())
    title = f"{title} (blue: may attend; grey: masked)"
    panel = Panel(title, mask.astype(float), cells=words if mask.size <= WRITTEN_CELLS else None,
                  hover=np.where(mask, "may attend", "masked").tolist())
    return heatmap_spec(
        [panel], Axes(row_labels, col_labels, row_title, col_title), title,
        Scale(stops=(MASKED, MAY_ATTEND), bar=False),
        Grid(height=max(200, 30 * min(len(row_labels), 20) + 110), gaps=True),
        summary=f"{title}, {shape(1, *mask.shape)}: {hidden} of {mask.size} cells masked, "
                f"{mask.size - hidden} may be attended to.")


def scores_spec(scores: np.ndarray, row_labels: list[str], col_labels: list[str], title: str,
                row_title: str = "query position", col_title: str = "key position") -> dict:
    """(Tq, Tk) scores with -inf where masked, for the canvas: finite cells on a signed scale symmetric about 0,
    masked cells grey and named −∞."""
    scores = np.asarray(scores, dtype=float)
    masked = np.isneginf(scores)
    finite = np.where(masked, np.nan, scores)
    bound = float(np.nanmax(np.abs(finite))) if np.isfinite(finite).any() else 1.0
    cells = np.where(masked, "−∞", np.char.mod("%.1f", np.nan_to_num(finite))).tolist()
    return heatmap_spec([Panel(title, finite, cells=cells if scores.size <= WRITTEN_CELLS else None)],
                        Axes(row_labels, col_labels, row_title, col_title), title,
                        Scale(bound, -bound, RD_BU, "score", null_text="−∞ (masked)"),
                        Grid(height=max(220, 30 * min(len(row_labels), 20) + 120)))


def softmax_comparison(scaled: np.ndarray, unscaled: np.ndarray, key_labels: list[str], d_k: int,
                       title: str = "") -> Chart:
    """One query's weights with and without dividing the scores by sqrt(d_k), as grouped bars: the unscaled
    softmax puts nearly all its weight on one key."""
    series = [Series(f"softmax(QKᵀ/√{d_k})", np.asarray(scaled, dtype=float), "#1d4ed8"),
              Series("softmax(QKᵀ), no scaling", np.asarray(unscaled, dtype=float), "#b45309")]
    said = "; ".join(f"{s.name}: largest weight {float(s.values.max()):.3f} on key "
                     f"{key_labels[int(s.values.argmax())]}" for s in series)
    return bar_chart(series, list(key_labels), title, "key position", "weight", f"{title}: {said}.",
                     point_name="key", y_range=(0.0, 1.0))