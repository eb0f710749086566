"""Inside one head's charts: a head's weights with one cell outlined, what each key sends (value-weighted
attention), and the logit lens. Its short vectors are drawn as HTML by viz/strips.py."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .style import ATTENTION_SCALE, figure, position_labels, token_axis


def influence_heatmap(values: np.ndarray, query_labels: list[str], key_labels: list[str], title: str = "",
                      query_title: str = "query position", key_title: str = "key position",
                      highlight: tuple[int, int] | None = None) -> go.Figure:
    """(Tq, Tk) ‖w_ij v_j W_O^h‖ on its own scale (from 0 to the largest), hover naming both positions."""
    values = np.asarray(values, dtype=float)
    cells = dict(type="heatmap", z=values, x=position_labels(key_labels), y=position_labels(query_labels), zmin=0,
                 zmax=float(values.max()) or 1.0, colorscale="Oranges", colorbar=dict(title=dict(text="‖w v W_O‖")),
                 hovertemplate="query <b>%{y}</b><br>key <b>%{x}</b><br>sends ‖w·v·W_O‖ %{z:.3f}<extra></extra>")
    return figure([cells], title, max(260, 34 * len(query_labels) + 120), shapes=_cell_outline(highlight),
                  xaxis=token_axis(key_labels, key_title, categorical=True),
                  yaxis=token_axis(query_labels, query_title, categorical=True, autorange="reversed"))


def weights_with_cell(weights: np.ndarray, query_labels: list[str], key_labels: list[str], cell: tuple[int, int],
                      title: str = "", query_title: str = "query position",
                      key_title: str = "key position") -> go.Figure:
    """(Tq, Tk) one head's weights with the chosen cell outlined."""
    weights = np.asarray(weights, dtype=float)
    cells = dict(type="heatmap", z=weights, x=position_labels(key_labels), y=position_labels(query_labels), zmin=0,
                 zmax=1, colorscale=ATTENTION_SCALE, colorbar=dict(title=dict(text="weight")),
                 hovertemplate="query <b>%{y}</b><br>key <b>%{x}</b><br>weight %{z:.3f}<extra></extra>")
    return figure([cells], title, max(260, 34 * len(query_labels) + 120), shapes=_cell_outline(cell),
                  xaxis=token_axis(key_labels, key_title, categorical=True),
                  yaxis=token_axis(query_labels, query_title, categorical=True, autorange="reversed"))


def _cell_outline(cell: tuple[int, int] | None) -> list[dict]:
    if cell is None:
        return []
    i, j = cell
    return [dict(type="rect", xref="x", yref="y", x0=j - 0.5, x1=j + 0.5, y0=i - 0.5, y1=i + 0.5,
                 line=dict(color="#f59e0b", width=3))]


def logit_lens_heatmap(correct_p: np.ndarray, top_labels: list[list[str]], step_labels: list[str],
                       title: str = "") -> go.Figure:
    """(N layers, T steps) p(correct) if the decoder stopped after each layer, the top token in each cell."""
    z = np.asarray(correct_p, dtype=float)
    text = np.asarray(top_labels, dtype=object)
    cells = dict(type="heatmap", z=z, x=position_labels(step_labels), y=[f"after layer {i}" for i in range(len(z))],
                 zmin=0, zmax=1, colorscale=ATTENTION_SCALE, colorbar=dict(title=dict(text="p(correct)")),
                 text=text, texttemplate="%{text}" if z.shape[1] <= 30 else None, textfont=dict(size=14),
                 hovertemplate="step %{x}, %{y}<br>top token %{text}<br>p(correct) %{z:.3f}<extra></extra>",
                 xgap=1, ygap=2)
    return figure([cells], title, 120 + 60 * len(z),
                  xaxis=token_axis(step_labels, "step (what it should write)", categorical=True),
                  yaxis=dict(autorange="reversed", type="category"))
