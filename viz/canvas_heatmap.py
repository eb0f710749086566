"""Matrices for the canvas heatmap (explorer/components/front_end.js): plain numbers and labels, no figure.

A heatmap drawn again by a chart library cost the browser a fixed 0.1-0.2 s whatever its size, so a choice that
changes a large matrix (a head on Attention) waited for it; a canvas draws 48 × 48 cells in a few milliseconds.
Hover, or the arrow keys once the chart has focus, names every cell. `summary` is the chart's accessible name:
what it shows, in one sentence computed from its numbers.

A spec is built from four parts: the panels (what is drawn), the axes (what rows and columns are), the scale
(what a colour means) and the grid (how panels share the width).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .style import matrix_height

# Nine stops from 0 to 1: ColorBrewer Blues and Oranges, and projector mode's Cividis, reversed so that 0 stays
# light.
BLUES = ((247, 251, 255), (222, 235, 247), (198, 219, 239), (158, 202, 225), (107, 174, 214), (66, 146, 198),
         (33, 113, 181), (8, 81, 156), (8, 48, 107))
ORANGES = ((255, 245, 235), (254, 230, 206), (253, 208, 162), (253, 174, 107), (253, 141, 60), (241, 105, 19),
           (217, 72, 1), (166, 54, 3), (127, 39, 4))
CIVIDIS_REVERSED = ((254, 232, 56), (217, 202, 79), (184, 174, 106), (153, 151, 122), (124, 123, 120),
                    (99, 100, 115), (69, 81, 111), (28, 62, 112), (0, 34, 78))
# Eleven stops from -1 to 1: ColorBrewer RdBu, red below 0, blue above; safe for colour-blind viewers, so
# projector mode keeps it.
RD_BU = ((103, 0, 31), (178, 24, 43), (214, 96, 77), (244, 165, 130), (253, 219, 199), (247, 247, 247),
         (209, 229, 240), (146, 197, 222), (67, 147, 195), (33, 102, 172), (5, 48, 97))
WEIGHT_SCALES = (BLUES, ORANGES)   # projector mode draws these in Cividis; a signed or two-colour scale is kept
FONT, PROJECTOR_FONT = 14, 22     # px
# The values a spec takes in projector mode, kept in the spec under this key: the chart components apply them
# when the learner's switch is on (explorer.components.PROJECTED), so no chart builder is told about the switch.
ON_PROJECTOR = "on_projector"
WRITTEN_CELLS = 150               # cells up to which each one's value is sent to be written on it


@dataclass(frozen=True)
class Panel:
    """One matrix of a heatmap: `values` (R, C) under `title`, named in full by `name` where the title is short
    ('L0 H1'). `outlines`: (row, first column, the column after the last) boxes. `cells`: (R, C) strings written
    on the cells where every one fits (in black or white, whichever contrasts more); `hover`: (R, C) strings
    said for a cell in place of its value."""

    title: str
    values: np.ndarray
    name: str | None = None
    outlines: Sequence[tuple[int, int, int]] = ()
    cells: list[list[str]] | None = None
    hover: list[list[str]] | None = None


@dataclass(frozen=True)
class Axes:
    """What the rows and columns are: their labels on the axes and the axes' titles. The hover names a row by
    position and label ('position 3 (e)'), so repeated letters stay apart, unless `row_names` names the rows
    otherwise; `row_name`: what a row is called there, where the axis title is longer. The same for columns."""

    rows: Sequence[str]
    cols: Sequence[str]
    row_title: str
    col_title: str
    row_names: Sequence[str] | None = None
    col_names: Sequence[str] | None = None
    row_name: str | None = None
    col_name: str | None = None


@dataclass(frozen=True)
class Scale:
    """One colour scale for every panel, from `zmin` (0, or below 0 for a signed scale such as RD_BU) to `zmax`,
    a value called `value_name` in the hover and the summary. NaN cells are grey, said as `null_text` ('−∞
    (masked)'). `bar`: a colour bar beside the panels."""

    zmax: float = 1.0
    zmin: float = 0.0
    stops: tuple = BLUES
    value_name: str = "weight"
    null_text: str = ""
    bar: bool = True


@dataclass(frozen=True)
class Grid:
    """How panels share the width: at most `columns` to a row (all of them, unset), fewer where the width does
    not hold `min_panel` px each (a phone); each row of panels `height` px tall (unset: from its rows); `gaps`
    between cells."""

    columns: int | None = None
    min_panel: int = 0
    height: int | None = None
    gaps: bool = False


def heatmap_spec(panels: Sequence[Panel], axes: Axes, title: str, scale: Scale = Scale(), grid: Grid = Grid(),
                 summary: str | None = None) -> dict:
    """Panels of one shape side by side on one scale, as the canvas draws them. `summary` replaces the one
    computed from each panel's largest values (and smallest, on a signed scale), where a chart's point is
    elsewhere (a mask's count of hidden cells). Projector mode's larger type, taller box and Cividis (for a weight
    scale; a signed or two-colour one is kept) ride along under ON_PROJECTOR."""
    col_name, row_name = axes.col_name or axes.col_title, axes.row_name or axes.row_title
    z = [np.asarray(p.values, dtype=float) for p in panels]
    row_names = list(axes.row_names or [f"{i} ({label})" for i, label in enumerate(axes.rows)])
    col_names = list(axes.col_names or [f"{j} ({label})" for j, label in enumerate(axes.cols)])
    zmin, zmax, value_name = scale.zmin, float(scale.zmax) or 1.0, scale.value_name
    largest = []
    for panel, m in zip(panels, z):
        full = panel.name or panel.title
        finite = m[np.isfinite(m)]
        top = float(finite.max()) if finite.size else 0.0
        if top <= 0 and zmin >= 0:
            largest.append(f"{full}: every {value_name} is 0")
            continue
        said = [_extreme(m, top, "largest", value_name, row_name, row_names, col_name, col_names)]
        if zmin < 0 and finite.size:
            said.append(_extreme(m, float(finite.min()), "smallest", value_name, row_name, row_names, col_name,
                                 col_names))
        largest.append(f"{full}: " + "; ".join(said))
    height = grid.height or matrix_height(len(axes.rows))
    projected = dict(stops=[list(s) for s in CIVIDIS_REVERSED]) if scale.stops in WEIGHT_SCALES else {}
    return dict(
        title=title, summary=summary or f"{title}, {shape(len(panels), len(axes.rows), len(axes.cols))}. "
        + "; ".join(largest) + ".", rows=list(axes.rows), cols=list(axes.cols), row_names=row_names,
        col_names=col_names, row_title=axes.row_title, col_title=axes.col_title, row_name=row_name,
        col_name=col_name, value_name=value_name,
        panels=[dict(title=p.title, name=p.name or p.title, z=_json_values(m), outlines=[list(o) for o in p.outlines],
                     **({"cells": p.cells} if p.cells is not None else {}),
                     **({"hover": p.hover} if p.hover is not None else {}))
                for p, m in zip(panels, z)],
        null_text=scale.null_text, gaps=grid.gaps,
        columns=grid.columns or len(panels), min_panel=grid.min_panel,
        zmin=float(zmin), zmax=zmax,
        stops=[list(s) for s in scale.stops],
        bar=scale.bar, bar_ticks=[f"{zmin + (zmax - zmin) * k / 4:.3g}" for k in range(5)],
        height=height, font=FONT,
        **{ON_PROJECTOR: {**projected, "height": height + 60, "font": PROJECTOR_FONT}},
    )


def value_cells(m: np.ndarray, places: int = 2) -> list[list[str]] | None:
    """Each cell's value as text to write on it, for a matrix of at most WRITTEN_CELLS cells (else None: a larger
    one has no room for them, and its text would only make the page heavier)."""
    m = np.asarray(m, dtype=float)
    return np.char.mod(f"%.{places}f", m).tolist() if m.size <= WRITTEN_CELLS else None


def _json_values(m: np.ndarray) -> list:
    """Values to 4 places, NaN as None (JSON has no NaN: the browser's parser would refuse the whole spec)."""
    rounded = np.round(m, 4)
    finite = np.isfinite(m)
    if finite.all():
        return rounded.tolist()
    rounded = rounded.astype(object)
    rounded[~finite] = None
    return rounded.tolist()


def _extreme(m: np.ndarray, value: float, which: str, value_name: str, row_title: str, row_names: list[str],
             col_title: str, col_names: list[str]) -> str:
    """'largest weight 0.912, at …', or '… in 3 cells, the first at …' where cells read the same to 3 places."""
    at = np.argwhere(np.isclose(m, value, rtol=0, atol=5e-4))
    i, j = at[0]
    where = f"{row_title} {row_names[i]} and {col_title} {col_names[j]}"
    return (f"{which} {value_name} {value:.3f}, at {where}" if len(at) == 1 else
            f"{which} {value_name} {value:.3f}, in {len(at)} cells, the first at {where}")


def shape(n_panels: int, rows: int, cols: int) -> str:
    """'5 rows by 6 columns', or '8 panels, each 5 rows by 6 columns'."""
    each = f"{rows} rows by {cols} columns"
    return each if n_panels == 1 else f"{n_panels} panels, each {each}"
