"""Inside one head's charts: what each key sends (value-weighted attention) and the logit lens (a head's
weights with one cell outlined are viz.attention_heatmap). Its short vectors are drawn as HTML by viz/strips.py."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .style import ATTENTION_SCALE, figure, matrix_height, position_labels, token_axis


def influence_heatmap(values: np.ndarray, query_labels: list[str], key_labels: list[str], title: str = "",
                      query_title: str = "query position", key_title: str = "key position") -> go.Figure:
    """(Tq, Tk) ‖w_ij v_j W_O^h‖ on its own scale (from 0 to the largest), hover naming both positions."""
    values = np.asarray(values, dtype=float)
    cells = dict(type="heatmap", z=values, x=position_labels(key_labels), y=position_labels(query_labels), zmin=0,
                 zmax=float(values.max()) or 1.0, colorscale="Oranges", colorbar=dict(title=dict(text="‖w v W_O‖")),
                 hovertemplate="query <b>%{y}</b><br>key <b>%{x}</b><br>sends ‖w·v·W_O‖ %{z:.3f}<extra></extra>")
    return figure([cells], title, matrix_height(len(query_labels)),
                  xaxis=token_axis(key_labels, key_title, categorical=True),
                  yaxis=token_axis(query_labels, query_title, categorical=True, autorange="reversed"))


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
