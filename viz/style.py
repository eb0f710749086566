"""One look for every figure, and figures built in one go.

Each builder assembles plain dicts and makes one go.Figure from them: plotly validates a figure
once when it is constructed, while every later update_layout or make_subplots call walks the
property tree again (a 2 x 4 grid took 52 ms that way, 6 ms this way).
"""

from __future__ import annotations

import plotly.graph_objects as go

ATTENTION_SCALE = "Blues"         # 0 is white, 1 is dark blue, on every attention figure
SIGNED_SCALE = "RdBu"             # for values of either sign (positional encodings, scores)
MASK_COLOURS = ("#e5e7eb", "#1d4ed8")  # masked, may attend
FONT_SIZE = 15
HORIZONTAL_LEGEND = dict(orientation="h", y=1.02, yanchor="bottom", x=1, xanchor="right")


def figure(data: list[dict], title: str = "", height: int | None = None, **layout) -> go.Figure:
    """A figure from trace dicts and layout entries, with the shared title, font, margins and height."""
    base = dict(
        title=dict(text=title, x=0, xanchor="left"), font=dict(size=FONT_SIZE),
        margin=dict(l=10, r=10, t=50 if title else 20, b=10), height=height, plot_bgcolor="white",
    )
    return go.Figure(data=data, layout={**base, **layout})


def token_axis(labels: list[str], title: str, categorical: bool = False, **extra) -> dict:
    """An axis showing the tokens as ticks, with repeated letters in their own places.

    Numeric by default (data at 0, 1, 2, ...). `categorical` expects data placed at position_labels(labels),
    so hover can name the token from the axis alone, with no per-cell label array to send to the browser."""
    if categorical:
        ticks = dict(type="category", tickvals=position_labels(labels))
    else:
        ticks = dict(tickvals=list(range(len(labels))))
    return dict(title=dict(text=title), tickmode="array", **ticks, ticktext=list(labels), showgrid=False,
                zeroline=False, **extra)


def position_labels(labels: list[str]) -> list[str]:
    """'h' at 0 -> '0:h': unique names for tables and hover, even for repeated letters."""
    return [f"{i}:{label}" for i, label in enumerate(labels)]


def grid_domains(rows: int, cols: int, h_gap: float, v_gap: float) -> list[tuple[list[float], list[float]]]:
    """Paper-coordinate (x domain, y domain) of each cell of a rows x cols grid, row by row from the top."""
    width = (1 - h_gap * (cols - 1)) / cols
    height = (1 - v_gap * (rows - 1)) / rows
    cells = []
    for r in range(rows):
        top = 1 - r * (height + v_gap)
        for c in range(cols):
            left = c * (width + h_gap)
            cells.append(([left, left + width], [top - height, top]))
    return cells
