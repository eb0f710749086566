"""Why this character?: the lenses at one output step, one row each over the source characters."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .canvas_heatmap import RD_BU, heatmap_spec
from .style import figure

SHOWN_VALUES = 16   # source characters up to which each cell also prints its number


def lens_rows_spec(names: list[str], values: np.ndarray, sources: list[str], title: str, flat: float = 1e-3,
                   projector: bool = False) -> dict:
    """(K, S) lenses as rows, for the canvas; each row coloured on its own scale (divided by its largest
    magnitude), since the lenses have different units, so a colour compares characters within a lens, not
    lenses. A row whose values stay within `flat` is left white (its noise is not coloured as if it were a
    finding). Each cell is named, and written where it fits, by its own number; the summary says where each
    lens puts its largest magnitude."""
    values = np.asarray(values, dtype=float)                                          # (K, S)
    scale = np.abs(values).max(-1, keepdims=True)                                     # (K, 1)
    shown = np.where(scale > flat, values / np.where(scale > 0, scale, 1), 0.0)       # a flat row stays white
    text = [[f"{v:.2g}" for v in row] for row in values]
    said = [f"{name}: largest {row[int(np.abs(row).argmax())]:.2g} at {sources[int(np.abs(row).argmax())]}"
            if np.abs(row).max() > flat else f"{name}: within {flat:g} everywhere (left white)"
            for name, row in zip(names, values)]
    return heatmap_spec([(title, shown)], names, sources, title, "lens", "source character", "value", 1.0, RD_BU,
                        projector=projector, zmin=-1.0, row_names=list(names), col_names=list(sources),
                        col_name="source", cells=[text if len(sources) <= SHOWN_VALUES else None],
                        hover=[[[f"value {t}" for t in row] for row in text]], bar=False, gaps=True,
                        strip_height=80 + 46 * len(names),
                        summary=f"{title}, {len(names)} lenses by {len(sources)} source characters. "
                                + "; ".join(said) + ".")


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
