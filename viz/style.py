"""One look for every figure, and figures built in one go.

Each builder assembles plain dicts and makes one go.Figure from them: plotly validates a figure
once when it is constructed, while every later update_layout or make_subplots call walks the
property tree again (the figures are in the README, "Benchmarks").
"""

from __future__ import annotations

import plotly.graph_objects as go

ATTENTION_SCALE = "Blues"         # 0 is white, 1 is dark blue, on every attention figure
SIGNED_SCALE = "RdBu"             # for values of either sign (positional encodings, scores)
MASK_COLOURS = ("#e5e7eb", "#1d4ed8")  # masked, may attend
FONT_SIZE = 15
# Token labels per axis on a chart that shares the page's width with others; past them, labels overlap.
HALF_WIDTH_TICKS = 24
THIRD_WIDTH_TICKS = 16


def matrix_height(rows: int) -> int:
    """Pixels for a heatmap of `rows` rows: 34 a row up to 20 rows, then the 800 px of 20 rows shared out. A
    48-character text's matrix was 1,786 px tall, taller than any screen, and Chromium took longer to lay out
    and paint it at every redraw (`python -m benchmarks.view_change`)."""
    return max(260, 34 * min(rows, 20) + 120)


HORIZONTAL_LEGEND = dict(orientation="h", y=1.02, yanchor="bottom", x=1, xanchor="right")


def figure(data: list[dict], title: str = "", height: int | None = None, **layout) -> go.Figure:
    """A figure from trace dicts and layout entries, with the shared title, font, margins and height. With a
    title and a legend above the plot, the title keeps the top line and the legend the line below it: side by
    side they overlapped on a phone's width."""
    legend = layout.get("legend", {})
    legend_above = title and legend.get("orientation") == "h" and legend.get("y", 0) >= 1
    base = dict(
        title=dict(text=title, x=0, xanchor="left", y=1, yref="container", yanchor="top", pad=dict(t=10)),
        font=dict(size=FONT_SIZE), height=height, plot_bgcolor="white",
        margin=dict(l=10, r=10, t=(90 if legend_above else 50) if title else 20, b=10),
    )
    return go.Figure(data=data, layout={**base, **layout})


def position_labels(labels: list[str]) -> list[str]:
    """'h' at 0 -> '0:h': unique names for tables and hover, even for repeated letters."""
    return [f"{i}:{label}" for i, label in enumerate(labels)]


def panels(figures: list[go.Figure], title: str = "", gap: float = 0.1, same_height: bool = False) -> go.Figure:
    """Figures side by side as panels of one figure, each keeping its traces, axes, shapes, colour bar and
    height (top-aligned; or all as tall as the tallest, so that their rows line up), its title becoming the
    panel's heading.

    For matrices read together (scores beside their softmax): one chart keeps their rows side by side at
    any width. It is not faster: measured on Masks, Plotly redraws each panel about as a chart of its own."""
    tallest = max(fig.layout.height or 300 for fig in figures)
    width = (1 - gap * (len(figures) - 1)) / len(figures)
    data, axes, headings, shapes = [], {}, [], []
    for i, fig in enumerate(figures):
        n, left = "" if i == 0 else str(i + 1), i * (width + gap)
        x_domain = [left, left + width]
        share = 1 if same_height else (fig.layout.height or 300) / tallest
        y_domain = [max(0.0, 0.92 - 0.92 * share), 0.92]
        spec = fig.to_plotly_json()
        for trace in spec["data"]:
            trace = {**trace, "xaxis": f"x{n}", "yaxis": f"y{n}"}
            if "colorbar" in trace:
                trace["colorbar"] = {**trace["colorbar"], "x": x_domain[1] + 0.01, "xanchor": "left",
                                     "y": y_domain[0], "yanchor": "bottom", "len": y_domain[1] - y_domain[0]}
            data.append(trace)
        axes[f"xaxis{n}"] = {**spec["layout"].get("xaxis", {}), "domain": x_domain, "anchor": f"y{n}"}
        axes[f"yaxis{n}"] = {**spec["layout"].get("yaxis", {}), "domain": y_domain, "anchor": f"x{n}"}
        shapes += [{**shape, "xref": f"x{n}", "yref": f"y{n}"} for shape in spec["layout"].get("shapes", [])]
        headings.append(dict(text=spec["layout"].get("title", {}).get("text", ""), x=left, y=0.94, xref="paper",
                             yref="paper", xanchor="left", yanchor="bottom", showarrow=False))
    return figure(data, title, tallest + 40, annotations=headings, shapes=shapes, **axes)


# --- Projector mode -------------------------------------------------------------------------------------

PROJECTOR_SEQUENTIAL = "Cividis"   # 0..max scales: blue-to-yellow, designed to read the same with colour blindness
PROJECTOR_FONT = 22
PROJECTOR_LINE = 4
# Light tints wash out on a projector: each becomes an Okabe-Ito colour (safe for colour-blind viewers).
PROJECTOR_COLOURS = {"#93c5fd": "#0072b2", "#fbbf24": "#e69f00", "#f59e0b": "#d55e00", "#1d4ed8": "#0072b2",
                     "#dc2626": "#d55e00", "#b91c1c": "#d55e00", "#e5e7eb": "#bdbdbd", "#d1d5db": "#999999"}


def projector_figure(fig: go.Figure) -> go.Figure:
    """A copy of the figure for a projector: large type, thick lines, and every sequential colour scale (one that
    starts at 0: weights, probabilities, masks) replaced by PROJECTOR_SEQUENTIAL, reversed so 0 stays light.
    Diverging scales (RdBu, for values of either sign) are already safe for colour-blind viewers and stay."""
    spec = fig.to_plotly_json()
    for trace in spec["data"]:
        if "colorscale" in trace and trace.get("zmid") is None and (trace.get("zmin") or 0) >= 0:
            trace["colorscale"], trace["reversescale"] = PROJECTOR_SEQUENTIAL, True
        if "line" in trace:
            trace["line"] = {**trace["line"], "width": max(PROJECTOR_LINE, trace["line"].get("width") or 0)}
        if trace.get("type") == "scatter":
            trace["marker"] = {**trace.get("marker", {}), "size": 10}
        marker = trace.get("marker", {})
        if "color" in marker:
            colour = marker["color"]
            marker["color"] = ([PROJECTOR_COLOURS.get(c, c) for c in colour] if isinstance(colour, (list, tuple))
                               else PROJECTOR_COLOURS.get(colour, colour))
        if trace.get("texttemplate"):
            trace["textfont"] = {**trace.get("textfont", {}), "size": PROJECTOR_FONT - 4}
    layout = spec["layout"]
    layout["font"] = {**layout.get("font", {}), "size": PROJECTOR_FONT}
    for shape in layout.get("shapes", []):           # outlines: thicker, and vermillion, which stands out on both
        line = shape.get("line", {})                  # ends of Cividis (the amber outline vanished on its yellow)
        shape["line"] = {**line, "width": max(PROJECTOR_LINE + 1, line.get("width", 0)), "color": "#d55e00"}
    for name, axis in list(layout.items()):
        if name.startswith(("xaxis", "yaxis")):
            layout[name] = {**axis, "tickfont": {**axis.get("tickfont", {}), "size": PROJECTOR_FONT - 4}}
    if layout.get("height"):
        layout["height"] = int(layout["height"] * 1.25)
    return go.Figure(spec)
