"""One look for every figure: the attention colour scale, fonts big enough for a projector."""

from __future__ import annotations

import plotly.graph_objects as go

ATTENTION_SCALE = "Blues"         # 0 is white, 1 is dark blue, on every attention figure
SIGNED_SCALE = "RdBu"             # for values of either sign (positional encodings, scores)
MASK_COLOURS = ("#e5e7eb", "#1d4ed8")  # masked, may attend
FONT_SIZE = 15


def base_layout(fig: go.Figure, title: str = "", height: int | None = None) -> go.Figure:
    fig.update_layout(
        title=dict(text=title, x=0, xanchor="left"), font=dict(size=FONT_SIZE),
        margin=dict(l=10, r=10, t=50 if title else 20, b=10), height=height,
        plot_bgcolor="white",
    )
    return fig


def token_axis(labels: list[str], title: str) -> dict:
    """A numeric axis (so repeated letters keep their own positions) showing the tokens as ticks."""
    return dict(title=dict(text=title), tickmode="array", tickvals=list(range(len(labels))),
                ticktext=list(labels), showgrid=False, zeroline=False)


def position_labels(labels: list[str]) -> list[str]:
    """'h' at 0 -> '0:h': unique names for tables and hover, even for repeated letters."""
    return [f"{i}:{label}" for i, label in enumerate(labels)]
