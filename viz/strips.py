"""Short vectors as rows of coloured cells, in plain HTML for st.html.

A page that walks through one attention weight shows many small vectors; as Plotly charts, each one more for
the browser to draw, they put Inside one head over its budget (README, "In a real browser", has the figures).
A table of coloured cells costs almost nothing, and keeps the value of every cell: written in the cell when
it fits, in its tooltip always, and in a data-value attribute for tests.
"""

from __future__ import annotations

import html

import numpy as np

NEGATIVE, ZERO, POSITIVE = (178, 24, 43), (247, 247, 247), (33, 102, 172)   # ColorBrewer RdBu ends and middle


def colour(value: float, bound: float) -> str:
    """Red below 0, white at 0, blue above, full at ±bound (the same sense as Plotly's RdBu)."""
    t = 0.0 if bound == 0 else max(-1.0, min(1.0, value / bound))
    end = POSITIVE if t > 0 else NEGATIVE
    rgb = [round(z + abs(t) * (e - z)) for z, e in zip(ZERO, end)]
    return f"rgb({rgb[0]},{rgb[1]},{rgb[2]})"


def _two_places(value: float) -> str:
    text = f"{value:.2f}"
    return "0.00" if text == "-0.00" else text


def vector_rows(vectors: list[np.ndarray], names: list[str], title: str = "", show_values: bool | None = None,
                outlined: int | None = None, ruled: int | None = None, column_name: str = "dimension") -> str:
    """Vectors of one length as rows of cells on one colour scale (±the largest |value|). `outlined` draws a
    box around one row; `ruled` a line above one row (a sum under the terms it adds)."""
    z = np.asarray(np.stack(vectors), dtype=float)                      # (R, N)
    bound = float(np.abs(z).max())
    if show_values is None:
        show_values = z.shape[1] <= 16
    size = "0.78rem" if show_values else "0.6rem"
    head = "".join(f'<th style="font-weight:400;color:#6b7280;font-size:0.65rem;padding:0 1px">{d}</th>'
                   if d % (1 if show_values else max(1, z.shape[1] // 8)) == 0 else "<th></th>"
                   for d in range(z.shape[1]))
    rows = []
    for r, (name, row) in enumerate(zip(names, z)):
        line = "border-top:2px solid #111827;" if r == ruled else ""
        box = "outline:3px solid #f59e0b;outline-offset:-2px;" if r == outlined else ""
        cells = "".join(
            f'<td data-value="{float(v)!r}" title="{html.escape(name)}, {column_name} {d}: {v:.4f}" style="background:'
            f'{colour(v, bound)};color:{"white" if abs(v) > 0.6 * bound else "#111827"};text-align:center;'
            f'padding:{"2px 3px" if show_values else "10px 0"};min-width:{"2.6rem" if show_values else "0"};'
            f'{line}">{_two_places(v) if show_values else ""}</td>'
            for d, v in enumerate(row))
        rows.append(f'<tr data-row="{html.escape(name)}" style="{box}"><th style="text-align:right;font-weight:400;'
                    f'font-size:0.75rem;padding-right:6px;white-space:nowrap;{line}">{html.escape(name)}</th>'
                    f'{cells}</tr>')
    caption = (f'<div style="font-weight:600;margin-bottom:4px">{html.escape(title)}</div>' if title else "")
    stretch = "" if show_values else "width:100%;table-layout:fixed;"     # long strips fill the page's width
    return (f'<div style="overflow-x:auto">{caption}<table style="border-collapse:collapse;font-size:{size};'
            f'font-variant-numeric:tabular-nums;border:none;{stretch}"><colgroup><col style="width:8.5rem">'
            f'</colgroup><tr><th></th>{head}</tr>{"".join(rows)}</table>'
            f'<div style="font-size:0.7rem;color:#6b7280">colour: red below 0, blue above, full at '
            f'±{bound:.2f}; hover a cell for its value</div></div>')
