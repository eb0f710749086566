"""Attention matrices: rows are queries, columns are keys, one 0-1 colour scale everywhere."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .style import ATTENTION_SCALE, figure, matrix_height, panels, position_labels, token_axis

HOVER = "query <b>%{y}</b><br>key <b>%{x}</b><br>weight %{z:.3f}<extra></extra>"


def _heatmap(weights: np.ndarray, query_labels: list[str], key_labels: list[str], show_values: bool,
             **extra) -> dict:
    """Cells placed on categorical axes named '3:e', so the hover reads the token from the axes. A label
    per cell (customdata) made a 24-character mosaic 295 KB instead of 84 KB."""
    weights = np.asarray(weights, dtype=float)
    return dict(type="heatmap", z=weights, x=position_labels(key_labels), y=position_labels(query_labels),
                hovertemplate=HOVER, texttemplate="%{z:.2f}" if show_values else None, **extra)


def attention_heatmap(
    weights: np.ndarray, query_labels: list[str], key_labels: list[str], title: str = "",
    query_title: str = "query position", key_title: str = "key position", show_values: bool | None = None,
    height: int | None = None, highlight_row: int | None = None, show_scale: bool | None = None,
    highlight_cell: tuple[int, int] | None = None, max_ticks: int | None = None,
) -> go.Figure:
    """(Tq, Tk) weights -> one heatmap with hover on every cell; `highlight_row` outlines one query's row,
    `highlight_cell` one (query, key) cell; `max_ticks` labels at most that many tokens per axis."""
    if show_values is None:  # numbers in the cells only while the cells are wide enough to hold them
        show_values = weights.shape[1] <= 12 and weights.shape[0] * weights.shape[1] <= 120
    trace = _heatmap(weights, query_labels, key_labels, show_values, zmin=0, zmax=1, colorscale=ATTENTION_SCALE,
                     colorbar=dict(title=dict(text="weight")),
                     showscale=weights.shape[0] > 2 if show_scale is None else show_scale)
    boxes = [] if highlight_row is None else [(highlight_row, -0.5, weights.shape[1] - 0.5)]
    if highlight_cell is not None:
        boxes.append((highlight_cell[0], highlight_cell[1] - 0.5, highlight_cell[1] + 0.5))
    outline = [dict(type="rect", xref="x", yref="y", x0=x0, x1=x1, y0=row - 0.5, y1=row + 0.5,
                    line=dict(color="#f59e0b", width=3)) for row, x0, x1 in boxes]
    return figure(
        [trace], title, height or matrix_height(len(query_labels)), shapes=outline,
        xaxis=token_axis(key_labels, key_title, categorical=True, max_ticks=max_ticks, side="bottom"),
        yaxis=token_axis(query_labels, query_title, categorical=True, max_ticks=max_ticks, autorange="reversed"),
    )


def attention_side_by_side(
    matrices: list[np.ndarray], panel_titles: list[str], query_labels: list[str], key_labels: list[str],
    title: str = "", query_title: str = "query position", key_title: str = "key position",
) -> go.Figure:
    """Several (Tq, Tk) matrices as panels of one figure on the same 0-1 scale, with one colour bar."""
    last = len(matrices) - 1
    heatmaps = [attention_heatmap(m, query_labels, key_labels, panel_title, query_title if i == 0 else "", key_title,
                                  show_values=False, show_scale=i == last)
                for i, (m, panel_title) in enumerate(zip(matrices, panel_titles))]
    return panels(heatmaps, title, gap=0.07, same_height=True)


def mosaic_origins(rows: int, cols: int, n_queries: int, n_keys: int) -> tuple[int, int, list[tuple[int, int]]]:
    """Where each (Tq, Tk) panel of a rows x cols mosaic starts: (row, column) of its top-left cell, and the
    gaps in cells between panels (the vertical gap leaves room for the panel titles)."""
    col_gap = max(1, round(n_keys * 0.1))
    row_gap = max(2, round(n_queries * 0.3))
    origins = [(r * (n_queries + row_gap), c * (n_keys + col_gap)) for r in range(rows) for c in range(cols)]
    return row_gap, col_gap, origins


SHORT = {"layer": "L", "head": "H"}   # a panel's title, as the pages name heads (L0 H3): it fits a phone's panel


def attention_grid(
    weights: np.ndarray, query_labels: list[str], key_labels: list[str], title: str = "",
    row_name: str = "layer", col_name: str = "head",
) -> go.Figure:
    """(R, C, Tq, Tk) weights -> an R x C grid of heatmaps sharing one colour scale.

    Drawn as one mosaic heatmap with blank gaps rather than R x C subplots: one trace and one pair of axes
    redraw in the browser faster than eight (README, "In a real browser")."""
    weights = np.asarray(weights, dtype=float)
    rows, cols, n_q, n_k = weights.shape
    row_gap, col_gap, origins = mosaic_origins(rows, cols, n_q, n_k)
    height, width = rows * n_q + (rows - 1) * row_gap, cols * n_k + (cols - 1) * col_gap
    z = np.full((height, width), np.nan)
    # One category per mosaic row and column, naming panel and token, so the hover needs no per-cell labels.
    y_names = [f"gap {i}" for i in range(height)]
    x_names = [f"gap {i}" for i in range(width)]
    titles = []
    for i, (top, left) in enumerate(origins):
        r, c = divmod(i, cols)
        z[top:top + n_q, left:left + n_k] = weights[r, c]
        y_names[top:top + n_q] = [f"{row_name} {r} · query {q}" for q in position_labels(query_labels)]
        x_names[left:left + n_k] = [f"{col_name} {c} · key {k}" for k in position_labels(key_labels)]
        titles.append(dict(text=f"{SHORT.get(row_name, row_name + ' ')}{r} {SHORT.get(col_name, col_name + ' ')}{c}",
                           x=left + (n_k - 1) / 2, y=top - 0.5,
                           xref="x", yref="y", xanchor="center", yanchor="bottom", showarrow=False))
    small = n_k <= 16 and n_q <= 16  # tick labels only where they stay readable
    x_ticks = [x_names[left + k] for _, left in origins[-cols:] for k in range(n_k)] if small else []
    y_ticks = [y_names[top + q] for top, _ in origins[::cols] for q in range(n_q)] if small else []
    cells = dict(
        type="heatmap", z=z, x=x_names, y=y_names, hoverongaps=False, zmin=0, zmax=1, colorscale=ATTENTION_SCALE,
        colorbar=dict(title=dict(text="weight")), hovertemplate="%{y}<br>%{x}<br>weight %{z:.3f}<extra></extra>",
    )
    axis = dict(type="category", showgrid=False, zeroline=False, tickmode="array", tickfont=dict(size=11))
    return figure(
        [cells], title, 250 * rows + 60, annotations=titles,
        xaxis=dict(axis, tickvals=x_ticks, ticktext=list(key_labels) * cols if small else [], side="bottom"),
        yaxis=dict(axis, tickvals=y_ticks, ticktext=list(query_labels) * rows if small else [],
                   range=[height - 0.5, -0.5 - row_gap]),  # top down, with room above the first titles
    )
