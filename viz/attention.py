"""Attention matrices: rows are queries, columns are keys, one 0-1 colour scale everywhere."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .canvas_heatmap import heatmap_spec
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


GRID_STRIP = 300                     # px: one row of a grid's panels, their titles and labels
GRID_MIN_PANEL = 150                 # px: narrower, a panel moves to the next row (a phone: one to a row)
SHORT = {"layer": "L", "head": "H"}   # a panel's title, as the pages name heads (L0 H3): it fits a phone's panel


def attention_grid_spec(weights: np.ndarray, query_labels: list[str], key_labels: list[str], title: str,
                   row_name: str = "layer", col_name: str = "head", query_title: str = "query",
                   key_title: str = "key", projector: bool = False) -> dict:
    """(R, C, Tq, Tk) weights -> a canvas heatmap (explorer.canvas_charts) of R x C panels on one 0-1 scale, C to
    a row where the width holds them (fewer on a phone). A Plotly mosaic of them took 0.1-0.16 s to draw again
    for every new word; the canvas takes milliseconds. Panels are titled as the pages name heads (L0 H3)."""
    weights = np.asarray(weights, dtype=float)
    rows, cols = weights.shape[:2]
    cells = [(r, c) for r in range(rows) for c in range(cols)]
    short = lambda name: SHORT.get(name, name + " ")   # noqa: E731
    return heatmap_spec([(f"{short(row_name)}{r} {short(col_name)}{c}", weights[r, c]) for r, c in cells],
                        list(query_labels), list(key_labels), title, query_title, key_title, projector=projector,
                        panel_names=[f"{row_name} {r}, {col_name} {c}" for r, c in cells], columns=cols,
                        min_panel=GRID_MIN_PANEL, strip_height=GRID_STRIP)
