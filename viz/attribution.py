"""Why this character?: the lenses at one output step, one row each over the source characters."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .style import figure

SHOWN_VALUES = 16   # source characters up to which each cell also prints its number


def lens_rows(names: list[str], values: np.ndarray, sources: list[str], title: str = "") -> go.Figure:
    """(K, S) lenses as rows; each row coloured on its own scale (divided by its largest magnitude), since the
    lenses have different units, so a colour compares characters within a lens, not lenses. Hover names the
    lens, the character and the raw number."""
    scale = np.abs(values).max(-1, keepdims=True)                                     # (K, 1)
    shown = values / np.where(scale > 0, scale, 1)
    text = [[f"{v:.2g}" for v in row] for row in values]
    cell = dict(type="heatmap", z=shown, x=list(range(len(sources))), y=names, zmin=-1, zmax=1,
                colorscale="RdBu", reversescale=True, customdata=text, showscale=False, xgap=1, ygap=1,
                hovertemplate="%{y}<br>source %{x}<br>%{customdata}<extra></extra>")
    if len(sources) <= SHOWN_VALUES:
        cell.update(text=text, texttemplate="%{text}", textfont=dict(size=12))
    return figure([cell], title, 110 + 46 * len(names),
                  xaxis=dict(tickmode="array", tickvals=list(range(len(sources))), ticktext=sources,
                             title=dict(text="source character")),
                  yaxis=dict(autorange="reversed", automargin=True))
