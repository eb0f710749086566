"""A head's circuits: its score split into content and position terms (bars for one cell, a 2 x 2 mosaic of
heatmaps for every cell), and its letter-in -> logit-out map. Signed values on the diverging scale."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .attention import mosaic_origins
from .style import SIGNED_SCALE, figure, position_labels

POSITIVE, NEGATIVE, TOTAL = "#1d4ed8", "#dc2626", "#d1d5db"


def term_bars(values: dict[str, float], score: float, title: str = "", total_name: str = "sum = the score") -> go.Figure:
    """One horizontal bar per term and one for their sum, each labelled with its value (the sign is in the
    label and the bar's direction, not only its colour)."""
    names = [*values, total_name]
    numbers = [*values.values(), score]
    colours = [POSITIVE if v >= 0 else NEGATIVE for v in values.values()] + [TOTAL]
    bars = dict(type="bar", orientation="h", x=numbers, y=names, marker=dict(color=colours),
                text=[f"{v:+.2f}" for v in numbers], textposition="outside", cliponaxis=False,
                hovertemplate="%{y}: %{x:.4f}<extra></extra>")
    reach = max(1e-9, max(abs(v) for v in numbers)) * 1.35                  # room for the labels outside the bars
    return figure([bars], title, 60 + 42 * len(names),
                  xaxis=dict(title=dict(text="adds to the score (after ÷ √d_k)"), range=[-reach, reach],
                             zeroline=True, zerolinecolor="#6b7280"),
                  yaxis=dict(title=dict(text="term (query part · key part)"), autorange="reversed", automargin=True),
                  showlegend=False)


def term_grid(terms: dict[str, np.ndarray], query_labels: list[str], key_labels: list[str], title: str = "",
              query_title: str = "query", key_title: str = "key", columns: int = 2) -> go.Figure:
    """(Tq, Tk) terms as a mosaic of heatmaps, `columns` to a row, on one scale symmetric about 0 (NaN cells,
    such as masked ones, stay blank). One trace on one pair of axes: faster for Plotly to draw than subplots."""
    names = list(terms)
    n_q, n_k = np.shape(terms[names[0]])
    rows = -(-len(names) // columns)
    row_gap, col_gap, origins = mosaic_origins(rows, columns, n_q, n_k)
    height, width = rows * n_q + (rows - 1) * row_gap, columns * n_k + (columns - 1) * col_gap
    z = np.full((height, width), np.nan)
    y_names, x_names = [f"gap {i}" for i in range(height)], [f"gap {i}" for i in range(width)]
    headings = []
    for i, (name, (top, left)) in enumerate(zip(names, origins)):
        z[top:top + n_q, left:left + n_k] = terms[name]
        y_names[top:top + n_q] = [f"{name} · {query_title} {q}" for q in position_labels(query_labels)]
        # Each column of panels needs its own category names; zero-width spaces keep them apart unseen.
        x_names[left:left + n_k] = [f"{key_title} {k}" + "\u200b" * (i % columns)
                                    for k in position_labels(key_labels)]
        headings.append(dict(text=name, x=left - 0.5, y=top - 0.5, xref="x", yref="y", xanchor="left",
                             yanchor="bottom", showarrow=False))
    reach = float(np.nanmax(np.abs(z))) if np.isfinite(z).any() else 1.0
    cells = dict(type="heatmap", z=z, x=x_names, y=y_names, hoverongaps=False, zmin=-reach, zmax=reach, zmid=0,
                 colorscale=SIGNED_SCALE, colorbar=dict(title=dict(text="adds")),
                 hovertemplate="%{y}<br>%{x}<br>adds %{z:.3f}<extra></extra>")
    axis = dict(type="category", showgrid=False, zeroline=False, showticklabels=False)
    return figure([cells], title, 230 * rows + 90, annotations=headings,
                  xaxis=dict(axis, title=dict(text=f"{key_title} position, in each panel")),
                  yaxis=dict(axis, title=dict(text=f"{query_title} position, in each panel"),
                             range=[height - 0.5, -0.5 - row_gap]))


def letter_map_heatmap(logits: np.ndarray, letters: list[str], title: str = "") -> go.Figure:
    """(C in, C out) logits on a scale symmetric about 0, each row's largest marked with a ring."""
    logits = np.asarray(logits, dtype=float)
    reach = float(np.abs(logits).max()) or 1.0
    cells = dict(type="heatmap", z=logits, x=letters, y=letters, zmin=-reach, zmax=reach, zmid=0,
                 colorscale=SIGNED_SCALE, colorbar=dict(title=dict(text="logit")),
                 hovertemplate="in <b>%{y}</b> → out <b>%{x}</b><br>logit %{z:.2f}<extra></extra>")
    top = logits.argmax(-1)
    rings = dict(type="scatter", mode="markers", x=[letters[t] for t in top], y=letters, name="largest in the row",
                 marker=dict(symbol="circle-open", size=8, color="#111827", line=dict(width=2)),
                 hovertemplate="in <b>%{y}</b>: largest logit on <b>%{x}</b><extra></extra>")
    axis = dict(type="category", tickmode="array", tickvals=letters, ticktext=letters, tickfont=dict(size=11),
                showgrid=False)
    return figure([cells, rings], title, 560, showlegend=False,
                  xaxis=dict(axis, title=dict(text="logit out (the character written)"), side="bottom"),
                  yaxis=dict(axis, title=dict(text="letter in (on the source position attended to)"),
                             autorange="reversed"))
