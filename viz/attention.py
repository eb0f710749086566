"""Attention matrices for the canvas (viz.canvas_heatmap): rows are queries, columns are keys, one 0-1 colour scale
everywhere."""

from __future__ import annotations

import numpy as np

from .canvas_heatmap import Axes, Grid, Panel, Scale, heatmap_spec, value_cells

def side_by_side_spec(matrices: list[np.ndarray], panel_titles: list[str], query_labels: list[str],
                      key_labels: list[str], title: str, query_title: str = "query position",
                      key_title: str = "key position", value_name: str = "weight") -> dict:
    """Several (Tq, Tk) matrices side by side on one 0-1 scale, for the canvas: one to a row where the width does
    not hold each at GRID_MIN_PANEL px (a phone), so one panel's labels never sit on another's cells."""
    return heatmap_spec([Panel(name, m) for name, m in zip(panel_titles, matrices)],
                        Axes(query_labels, key_labels, query_title, key_title), title, Scale(value_name=value_name),
                        Grid(min_panel=GRID_MIN_PANEL))


def weights_spec(weights: np.ndarray, query_labels: list[str], key_labels: list[str], title: str,
                 query_title: str = "query position", key_title: str = "key position", panel: str = "",
                 highlight_row: int | None = None, highlight_cell: tuple[int, int] | None = None,
                 height: int | None = None) -> dict:
    """(Tq, Tk) weights as one canvas heatmap (explorer.components) on the 0-1 scale, each value written on its
    cell where the matrix is small enough to hold them; `highlight_row` outlines one query's row,
    `highlight_cell` one (query, key) cell; `panel` names the matrix above it (else only `title` does)."""
    weights = np.asarray(weights, dtype=float)
    outlines = [] if highlight_row is None else [(highlight_row, 0, weights.shape[1])]
    if highlight_cell is not None:
        outlines.append((highlight_cell[0], highlight_cell[1], highlight_cell[1] + 1))
    return heatmap_spec([Panel(panel or title, weights, outlines=outlines, cells=value_cells(weights))],
                        Axes(query_labels, key_labels, query_title, key_title), title, grid=Grid(height=height))


GRID_STRIP = 300                     # px: one row of a grid's panels, their titles and labels
GRID_MIN_PANEL = 150                 # px: narrower, a panel moves to the next row (a phone: one to a row)
SHORT = {"layer": "L", "head": "H"}   # a panel's title, as the pages name heads (L0 H3): it fits a phone's panel


def attention_grid_spec(weights: np.ndarray, query_labels: list[str], key_labels: list[str], title: str,
                   row_name: str = "layer", col_name: str = "head", query_title: str = "query",
                   key_title: str = "key") -> dict:
    """(R, C, Tq, Tk) weights -> a canvas heatmap (explorer.components) of R x C panels on one 0-1 scale, C to
    a row where the width holds them (fewer on a phone). A Plotly mosaic of them took 0.1-0.16 s to draw again
    for every new word; the canvas takes milliseconds. Panels are titled as the pages name heads (L0 H3)."""
    weights = np.asarray(weights, dtype=float)
    rows, cols = weights.shape[:2]
    cells = [(r, c) for r in range(rows) for c in range(cols)]
    short = lambda name: SHORT.get(name, name + " ")   # noqa: E731
    panels = [Panel(f"{short(row_name)}{r} {short(col_name)}{c}", weights[r, c], f"{row_name} {r}, {col_name} {c}")
              for r, c in cells]
    return heatmap_spec(panels, Axes(query_labels, key_labels, query_title, key_title), title,
                        grid=Grid(cols, GRID_MIN_PANEL, GRID_STRIP))
