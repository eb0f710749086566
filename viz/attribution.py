"""Why this character?: the lenses at one output step, one row each over the source characters."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .style import figure

SHOWN_VALUES = 16   # source characters up to which each cell also prints its number


def lens_rows(names: list[str], values: np.ndarray, sources: list[str], title: str = "",
              flat: float = 1e-3) -> go.Figure:
    """(K, S) lenses as rows; each row coloured on its own scale (divided by its largest magnitude), since the
    lenses have different units, so a colour compares characters within a lens, not lenses. A row whose values
    stay within `flat` is left white (its noise is not coloured as if it were a finding). Hover names the lens,
    the character and the raw number."""
    values = np.asarray(values, dtype=float)                                          # (K, S)
    scale = np.abs(values).max(-1, keepdims=True)                                     # (K, 1)
    shown = np.where(scale > flat, values / np.where(scale > 0, scale, 1), 0.0)       # a flat row stays white
    text = [[f"{v:.2g}" for v in row] for row in values]
    cell = dict(type="heatmap", z=shown, x=list(range(len(sources))), y=names, zmin=-1, zmax=1,
                colorscale="RdBu", reversescale=True, customdata=text, showscale=False, xgap=1, ygap=1,
                hovertemplate="%{y}<br>source %{x}<br>%{customdata}<extra></extra>")
    if len(sources) <= SHOWN_VALUES:
        cell.update(text=text, texttemplate="%{text}", textfont=dict(size=12))
    rotated = 60 if len(sources) > SHOWN_VALUES else 0   # room for tick labels Plotly turns on their side
    return figure([cell], title, 110 + rotated + 46 * len(names),
                  xaxis=dict(tickmode="array", tickvals=list(range(len(sources))), ticktext=sources,
                             title=dict(text="source character", standoff=12), automargin=True),
                  yaxis=dict(autorange="reversed", automargin=True))


def causal_cone(memory: np.ndarray, stream: np.ndarray, sources: list[str], positions: list[str],
                title: str = "") -> go.Figure:
    """Every single patch's effect: the output steps whose top token moves, for the encoder's output at each
    source position (top) and the decoder stream after each layer at each position (below, layer 0 first), one
    colour scale from 0 to the largest cell."""
    from plotly.subplots import make_subplots

    rotated = len(sources) > SHOWN_VALUES          # Plotly turns long tick labels on their side: room below them
    fig = make_subplots(rows=2, cols=1, row_heights=[1, max(1, len(stream))], vertical_spacing=0.4 if rotated else 0.25,
                        subplot_titles=("encoder output, by source position", "decoder stream, by layer and position"))
    most = max(1, int(memory.max(initial=0)), int(stream.max(initial=0)))   # (of `steps`) so 1 is not near-white
    common = dict(zmin=0, zmax=most, colorscale="Blues", xgap=1, ygap=1)
    fig.add_trace(go.Heatmap(z=memory[None, :], x=sources, y=["encoder output"], showscale=False, **common,
                             hovertemplate="source %{x}<br>%{z} steps change<extra></extra>"), 1, 1)
    fig.add_trace(go.Heatmap(z=stream, x=positions, y=[f"after layer {i}" for i in range(len(stream))], **common,
                             colorbar=dict(title=dict(text="steps<br>changed")),
                             hovertemplate="decoder position %{x}<br>%{y}<br>%{z} steps change<extra></extra>"),
                  2, 1)
    fig.update_xaxes(type="category")
    fig.update_xaxes(title=dict(text="decoder position"), row=2, col=1)
    fig.update_yaxes(autorange="reversed", row=2, col=1)
    fig.update_layout(figure([], title, 200 + 50 * len(stream) + (80 if rotated else 0)).layout)
    return fig
