"""Short vectors as rows of coloured cells, in plain HTML for explorer.components.cell_table, which writes it into
the page as it is: every piece of text that goes in is escaped here.

A page that walks through one attention weight shows many small vectors; as Plotly charts, each one more for
the browser to draw, they put Inside one head over its budget (benchmarks.browser_latency measures it).
A table of coloured cells costs almost nothing, and keeps the value of every cell: written in the cell when
it fits, in its tooltip always, and in a data-value attribute for tests.
"""

from __future__ import annotations

import html

import numpy as np

NEGATIVE, ZERO, POSITIVE = (178, 24, 43), (247, 247, 247), (33, 102, 172)   # ColorBrewer RdBu ends and middle


def signed_rgb(value: float, bound: float) -> tuple[int, int, int]:
    """Red below 0, white at 0, blue above, full at ±bound (the same sense as Plotly's RdBu)."""
    t = 0.0 if bound == 0 else max(-1.0, min(1.0, value / bound))
    end = POSITIVE if t > 0 else NEGATIVE
    r, g, b = (round(z + abs(t) * (e - z)) for z, e in zip(ZERO, end))
    return r, g, b


def colour(value: float, bound: float) -> str:
    r, g, b = signed_rgb(value, bound)
    return f"rgb({r},{g},{b})"


def luminance(rgb: tuple[int, int, int]) -> float:
    """WCAG 2.1 relative luminance of an sRGB colour."""
    linear = [c / 255 / 12.92 if c / 255 <= 0.04045 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def on_dark(rgb: tuple[int, int, int]) -> bool:
    """Whether white type contrasts more with this cell than black does. A cell's type is one or the other, so it
    reaches at least 4.58 : 1 on any colour; a rule on the value (white past 0.6 of the scale) wrote white on
    mid-tone cells at 3.0-4.4 : 1."""
    light = luminance(rgb)
    return 1.05 / (light + 0.05) >= (light + 0.05) / 0.05


def _two_places(value: float) -> str:
    text = f"{value:.2f}"
    return "0.00" if text == "-0.00" else text


TICK, PROJECTOR_TICK = "0.65rem", "0.8rem"     # column numbers: 22.4 px on a projector's 28-px root
ROW_NAME = "0.75rem"                           # a row's name, off a projector
# Projector mode's sizes come from its page style (explorer.charts.PROJECTOR_CSS sets these to PROJECTOR_TICK), so
# a table is the same markup on and off: CSS variables reach into a component's shadow DOM.
TICK_VARIABLE, ROW_NAME_VARIABLE = "--strip-tick", "--strip-row-name"

# What every cell of a kind shares, said once per table rather than in each of its cells' style (at 48 characters
# Inside one head's tables were 234 kB of HTML a rerun, 163 kB so); a cell keeps its own background inline, and a
# dark one is marked for white type (black elsewhere: the near-black of the page's text fell under 4.5 : 1 on cells
# where neither white nor it contrasts well).
STRIP_CSS = ("<style>"
             ".strip-values td{color:#000000;text-align:center;padding:2px 3px;min-width:2.6rem}"
             ".strip-bare td{color:#000000;text-align:center;padding:10px 0;min-width:0}"
             ".strip-values td.on-dark,.strip-bare td.on-dark{color:white}"
             "</style>")
ON_DARK = ' class="on-dark"'


def vector_rows(vectors: list[np.ndarray], names: list[str], title: str = "", show_values: bool | None = None,
                outlined: int | None = None, ruled: int | None = None, column_name: str = "dimension") -> str:
    """Vectors of one length as rows of cells on one colour scale (±the largest |value|). `outlined` draws a
    box around one row; `ruled` a line above one row (a sum under the terms it adds)."""
    z = np.asarray(np.stack(vectors), dtype=float)                      # (R, N)
    bound = float(np.abs(z).max())
    if show_values is None:
        show_values = z.shape[1] <= 16
    size = "0.78rem" if show_values else "0.6rem"
    tick = f"var({TICK_VARIABLE},{TICK})"
    head = "".join(f'<th style="font-weight:400;color:#6b7280;font-size:{tick};padding:0 1px">{d}</th>'
                   if d % (1 if show_values else max(1, z.shape[1] // 8)) == 0 else "<th></th>"
                   for d in range(z.shape[1]))
    rows = []
    for r, (name, row) in enumerate(zip(names, z)):
        line = "border-top:2px solid #111827;" if r == ruled else ""
        box = "outline:3px solid #f59e0b;outline-offset:-2px;" if r == outlined else ""
        cells = "".join(
            f'<td data-value="{float(v)!r}" title="{html.escape(name)}, {html.escape(column_name)} {d}: {v:.4f}"'
            f'{ON_DARK if on_dark(signed_rgb(v, bound)) else ""} style="background:{colour(v, bound)};{line}">'
            f'{_two_places(v) if show_values else ""}</td>'
            for d, v in enumerate(row))
        rows.append(f'<tr data-row="{html.escape(name)}" style="{box}"><th style="text-align:right;font-weight:400;'
                    f'font-size:var({ROW_NAME_VARIABLE},{ROW_NAME});padding-right:6px;white-space:nowrap;{line}">{html.escape(name)}</th>'
                    f'{cells}</tr>')
    caption = (f'<div style="font-weight:600;margin-bottom:4px">{html.escape(title)}</div>' if title else "")
    stretch = "" if show_values else "width:100%;table-layout:fixed;"     # long strips fill the page's width
    cells_class = "strip-values" if show_values else "strip-bare"
    return (f'{STRIP_CSS}<div class="{cells_class}" {_scroll_region(title)}>{caption}'
            f'<table style="border-collapse:collapse;font-size:{size};'
            f'font-variant-numeric:tabular-nums;border:none;{stretch}"><colgroup><col style="width:8.5rem">'
            f'</colgroup><tr><th></th>{head}</tr>{"".join(rows)}</table>'
            f'<div style="font-size:0.7rem;color:#6b7280">colour: red below 0, blue above, full at '
            f'±{bound:.2f}; hover a cell for its value</div></div>')


def _scroll_region(title: str) -> str:
    """The attributes of a table's box that scrolls sideways where the page is narrow: reachable by Tab (so the
    keyboard can scroll it) and named by its title."""
    return f'role="region" tabindex="0" aria-label="{html.escape(title or "table")}" style="overflow-x:auto"'
