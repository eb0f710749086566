"""Short vectors as rows of coloured cells: the numbers and names explorer/components/front_end.js draws them from
(as it draws Decode's keys and values), with the type sizes and the signed scale's three colours.

A page that walks through one attention weight shows many small vectors; as Plotly charts, each one more for
the browser to draw, they put Inside one head over its budget (benchmarks.browser_latency measures it).
A table of coloured cells costs almost nothing, and keeps the value of every cell: written in the cell when
it fits, in its tooltip always, and in a data-value attribute for tests.
"""

from __future__ import annotations

import numpy as np

from .canvas_heatmap import ON_PROJECTOR

NEGATIVE, ZERO, POSITIVE = (178, 24, 43), (247, 247, 247), (33, 102, 172)   # ColorBrewer RdBu ends and middle
TICK, PROJECTOR_TICK = "0.65rem", "0.8rem"     # column numbers: 22.4 px on a projector's 28-px root
ROW_NAME = "0.75rem"                           # a row's name, off a projector


def vector_rows_spec(vectors: list[np.ndarray], names: list[str], title: str = "", show_values: bool | None = None,
                     outlined: int | None = None, ruled: int | None = None, column_name: str = "dimension") -> dict:
    """Vectors of one length as rows of cells on one colour scale (±the largest |value|). `outlined` draws a
    box around one row; `ruled` a line above one row (a sum under the terms it adds); `show_values` writes the
    values in the cells (by default up to 16 a row)."""
    return {"vectors": np.asarray(np.stack(vectors), dtype=float), "names": [str(n) for n in names],
            "title": title, "show_values": show_values, "outlined": outlined, "ruled": ruled,
            "column_name": column_name, "tick": TICK, "row_name_size": ROW_NAME,
            "signed": {"negative": NEGATIVE, "zero": ZERO, "positive": POSITIVE},
            ON_PROJECTOR: {"tick": PROJECTOR_TICK, "row_name_size": PROJECTOR_TICK}}
