"""Inside one head: short vectors as strips, q·k term by term, one softmax row, the weighted values,
what each sublayer adds to the residual stream, and the logit lens."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .style import ATTENTION_SCALE, HORIZONTAL_LEGEND, SIGNED_SCALE, figure, position_labels, token_axis

CHOSEN, OTHER, OFF = "#1d4ed8", "#93c5fd", "#d1d5db"


def vector_strips(vectors: list[np.ndarray], names: list[str], title: str = "", column_title: str = "dimension",
                  show_values: bool = False) -> go.Figure:
    """Vectors of one length as rows of a heatmap on one signed scale, every value on hover (and in the
    cells when asked and short enough to read)."""
    z = np.asarray(np.stack(vectors), dtype=float)                       # (R, N)
    bound = float(np.abs(z).max()) or 1.0
    cells = dict(type="heatmap", z=z, x=list(range(z.shape[1])), y=list(names), zmin=-bound, zmax=bound, zmid=0,
                 colorscale=SIGNED_SCALE, colorbar=dict(thickness=12, len=1, lenmode="fraction"),
                 texttemplate="%{z:.2f}" if show_values and z.shape[1] <= 16 else None,
                 hovertemplate="%{y}<br>dimension %{x}: %{z:.4f}<extra></extra>", xgap=1, ygap=2)
    return figure([cells], title, max(180, 110 + 40 * len(names)), yaxis=dict(autorange="reversed", type="category"),
                  xaxis=dict(title=dict(text=column_title), showgrid=False, zeroline=False))


def product_bars(products: np.ndarray, title: str = "") -> go.Figure:
    """(d_k,) q[d]·k[d]: each term of the dot product, coloured by its sign; their sum is q·k."""
    products = np.asarray(products, dtype=float)
    bar = dict(type="bar", x=list(range(len(products))), y=products,
               marker=dict(color=["#b91c1c" if p < 0 else CHOSEN for p in products]),
               text=[f"{p:.2f}" for p in products], textposition="outside", cliponaxis=False,
               hovertemplate="dimension %{x}<br>q·k term %{y:.4f}<extra></extra>")
    return figure([bar], title, 300, xaxis=dict(title=dict(text="dimension d of the head"), dtick=1),
                  yaxis=dict(title=dict(text="q[d] × k[d]"), zeroline=True, zerolinecolor="#6b7280"))


def softmax_row(weights: np.ndarray, allowed: np.ndarray, key_labels: list[str], chosen: int,
                title: str = "") -> go.Figure:
    """One query's weights over every key: the chosen key dark, masked keys grey at exactly 0."""
    weights = np.asarray(weights, dtype=float)
    colours = [CHOSEN if j == chosen else (OTHER if ok else OFF) for j, ok in enumerate(allowed)]
    bar = dict(type="bar", x=position_labels(key_labels), y=weights, marker=dict(color=colours),
               text=[f"{w:.3f}" if ok else "masked" for w, ok in zip(weights, allowed)], textposition="outside",
               cliponaxis=False, hovertemplate="key %{x}<br>weight %{y:.4f}<extra></extra>")
    return figure([bar], title, 320, yaxis=dict(range=[0, 1.15], title=dict(text="weight")),
                  xaxis=token_axis(key_labels, "key position", categorical=True))


def weighted_values(weighted: np.ndarray, output: np.ndarray, key_labels: list[str], chosen: int,
                    title: str = "") -> go.Figure:
    """(Tk, d_k) w_j v_j, a row per key, and their sum (the head's output) as the last row."""
    z = np.vstack([np.asarray(weighted, float), np.asarray(output, float)[None]])
    names = [*position_labels(key_labels), "= head output"]
    bound = float(np.abs(z).max()) or 1.0
    cells = dict(type="heatmap", z=z, x=list(range(z.shape[1])), y=names, zmin=-bound, zmax=bound, zmid=0,
                 colorscale=SIGNED_SCALE, colorbar=dict(title=dict(text="value"), thickness=12), xgap=1, ygap=1,
                 hovertemplate="%{y}<br>dimension %{x}: %{z:.4f}<extra></extra>")
    outline = dict(type="rect", xref="x", yref="y", x0=-0.5, x1=z.shape[1] - 0.5, y0=chosen - 0.5,
                   y1=chosen + 0.5, line=dict(color="#f59e0b", width=3))
    line = dict(type="line", xref="x", yref="y", x0=-0.5, x1=z.shape[1] - 0.5, y0=len(key_labels) - 0.5,
                y1=len(key_labels) - 0.5, line=dict(color="#111827", width=2))
    return figure([cells], title, 110 + 24 * len(names), shapes=[outline, line],
                  yaxis=dict(autorange="reversed", type="category", tickfont=dict(size=12)),
                  xaxis=dict(title=dict(text="dimension d of the head"), showgrid=False, zeroline=False))


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


def residual_bars(steps: list[str], added: list[float], stream: list[float], title: str = "") -> go.Figure:
    """Per block of the stack: the size of what it added and of the stream after it."""
    bars = [dict(type="bar", name="‖what the block added‖", x=steps, y=added, marker=dict(color="#f59e0b"),
                 hovertemplate="%{x}<br>added ‖·‖ %{y:.2f}<extra></extra>"),
            dict(type="bar", name="‖residual stream after it‖", x=steps, y=stream, marker=dict(color=CHOSEN),
                 hovertemplate="%{x}<br>stream ‖·‖ %{y:.2f}<extra></extra>")]
    return figure(bars, title, 340, barmode="group", legend=HORIZONTAL_LEGEND,
                  yaxis=dict(title=dict(text="Euclidean norm")), xaxis=dict(type="category", tickangle=-20))


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
