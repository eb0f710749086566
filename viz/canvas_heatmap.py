"""Matrices for the canvas heatmap (explorer/components/heatmap.js): plain numbers and labels, no figure.

A Plotly heatmap took about 0.15 s to draw again in Chromium whatever its size, so a choice that changes a large
matrix (a head on Attention) waited for it; a canvas draws 48 × 48 cells in a few milliseconds. Hover, or the
arrow keys once the chart has focus, names every cell, as Plotly's hover did. `summary` is the chart's accessible
name: what it shows, in one sentence computed from its numbers.
"""

from __future__ import annotations

import numpy as np

from .style import matrix_height

# Nine stops from 0 to 1: ColorBrewer Blues and Oranges (Plotly's "Blues" and "Oranges"), and projector mode's
# Cividis, reversed so that 0 stays light.
BLUES = ((247, 251, 255), (222, 235, 247), (198, 219, 239), (158, 202, 225), (107, 174, 214), (66, 146, 198),
         (33, 113, 181), (8, 81, 156), (8, 48, 107))
ORANGES = ((255, 245, 235), (254, 230, 206), (253, 208, 162), (253, 174, 107), (253, 141, 60), (241, 105, 19),
           (217, 72, 1), (166, 54, 3), (127, 39, 4))
CIVIDIS_REVERSED = ((254, 232, 56), (217, 202, 79), (184, 174, 106), (153, 151, 122), (124, 123, 120),
                    (99, 100, 115), (69, 81, 111), (28, 62, 112), (0, 34, 78))
# Eleven stops from -1 to 1: ColorBrewer RdBu (Plotly's "RdBu"), red below 0, blue above;
# safe for colour-blind viewers, so projector mode keeps it.
RD_BU = ((103, 0, 31), (178, 24, 43), (214, 96, 77), (244, 165, 130), (253, 219, 199), (247, 247, 247),
         (209, 229, 240), (146, 197, 222), (67, 147, 195), (33, 102, 172), (5, 48, 97))
WEIGHT_SCALES = (BLUES, ORANGES)   # projector mode draws these in Cividis; a signed or two-colour scale is kept
FONT, PROJECTOR_FONT = 14, 22     # px
WRITTEN_CELLS = 150               # cells up to which each one's value is sent to be written on it


def heatmap_spec(panels: list[tuple[str, np.ndarray]], row_labels: list[str], col_labels: list[str], title: str,
                 row_title: str, col_title: str, value_name: str = "weight", zmax: float = 1.0, stops=BLUES,
                 outlines: dict[int, list[tuple[int, int, int]]] | None = None, projector: bool = False,
                 zmin: float = 0.0, row_names: list[str] | None = None, col_names: list[str] | None = None,
                 col_name: str | None = None, panel_names: list[str] | None = None, columns: int | None = None,
                 min_panel: int = 0, strip_height: int | None = None, cells: list[list[list[str]]] | None = None,
                 hover: list[list[list[str]]] | None = None, null_text: str = "", bar: bool = True,
                 gaps: bool = False, summary: str | None = None, row_name: str | None = None) -> dict:
    """Panels of one shape side by side, on one scale from `zmin` (0, or below 0 for a signed scale such as RD_BU)
    to `zmax`: (panel title, (R, C) values). `outlines` by panel index: (row, first column, the column after the
    last) boxes. Rows and columns are named in the hover by position and label ('position 3 (e)'), so repeated
    letters stay apart, unless `row_names` or `col_names` name them otherwise; `col_name` (`row_name`): what a
    column (a row) is called there, where the axis title is longer. A grid: at most `columns` panels to a row,
    fewer where the width does not hold `min_panel` px each (a phone), each row of panels `strip_height` px
    tall; `panel_names` name the panels in full where their titles are short ('L0 H1'). Per panel, optional
    (R, C) strings: `cells` written on the cells where every one fits (in black or white, whichever contrasts
    more), `hover` said for a cell in place of its value. NaN cells are grey, said as `null_text` ('−∞
    (masked)'). `summary` replaces the one computed from the largest values, where a chart's point is elsewhere
    (a mask's count of hidden cells)."""
    col_name, row_name = col_name or col_title, row_name or row_title
    z = [np.asarray(m, dtype=float) for _, m in panels]
    row_names = row_names or [f"{i} ({label})" for i, label in enumerate(row_labels)]
    col_names = col_names or [f"{j} ({label})" for j, label in enumerate(col_labels)]
    largest = []
    for (name, _), m, full in zip(panels, z, panel_names or [name for name, _ in panels]):
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
    zmax = float(zmax) or 1.0
    return dict(
        title=title, summary=summary or f"{title}, {shape(len(panels), len(row_labels), len(col_labels))}. "
        + "; ".join(largest) + ".", rows=list(row_labels), cols=list(col_labels), row_names=row_names, col_names=col_names,
        row_title=row_title, col_title=col_title, row_name=row_name, col_name=col_name, value_name=value_name,
        panels=[dict(title=name, name=panel_names[p] if panel_names else name, z=_json_values(m),
                     outlines=[list(o) for o in (outlines or {}).get(p, [])],
                     **({"cells": cells[p]} if cells and cells[p] is not None else {}),
                     **({"hover": hover[p]} if hover else {}))
                for p, ((name, _), m) in enumerate(zip(panels, z))],
        null_text=null_text, gaps=gaps,
        columns=columns or len(panels), min_panel=min_panel,
        zmin=float(zmin), zmax=zmax,
        stops=[list(s) for s in (CIVIDIS_REVERSED if projector and stops in WEIGHT_SCALES else stops)],
        bar=bar, bar_ticks=[f"{zmin + (zmax - zmin) * k / 4:.3g}" for k in range(5)],
        height=(strip_height or matrix_height(len(row_labels))) + (60 if projector else 0),
        font=PROJECTOR_FONT if projector else FONT,
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
