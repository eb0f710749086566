"""A head's circuits: its score split into content and position terms (bars for one cell, canvas panels for
every cell), and its letter-in -> logit-out map. Signed values on the diverging scale."""

from __future__ import annotations

import html

import numpy as np

from .attention import GRID_MIN_PANEL, GRID_STRIP
from .canvas_heatmap import RD_BU, Axes, Grid, Panel, Scale, heatmap_spec

POSITIVE, NEGATIVE, TOTAL = "#1d4ed8", "#b91c1c", "#d1d5db"


def term_bars(values: dict[str, float], score: float, title: str = "", total_name: str = "sum = the score") -> str:
    """One horizontal bar per term and one for their sum, in plain HTML for st.html (a Plotly chart here was
    drawn again for every new word): each bar grows left or right of a zero line, labelled with its signed value
    (the sign is in the label and the bar's direction, not only its colour), its name and value in its tooltip
    and in data-term / data-value for tests."""
    names = [*values, total_name]
    numbers = [float(v) for v in (*values.values(), score)]
    reach = max(1e-9, max(abs(v) for v in numbers))
    rows = []
    for k, (name, v) in enumerate(zip(names, numbers)):
        colour = TOTAL if k == len(names) - 1 else POSITIVE if v >= 0 else NEGATIVE
        width = 48 * abs(v) / reach                                  # percent of the bar area on one side
        bar = f"left:50%;width:{width:.2f}%" if v >= 0 else f"right:50%;width:{width:.2f}%"
        rows.append(
            f'<div data-term="{html.escape(name)}" data-value="{v!r}" title="{html.escape(name)}: {v:.4f}" '
            f'style="display:flex;align-items:center;gap:8px;margin:2px 0">'
            f'<span style="flex:0 0 35%;text-align:right">{html.escape(name)}</span>'
            f'<span style="position:relative;flex:1;height:1.5em;background:linear-gradient(#6b7280,#6b7280) '
            f'50% 0 / 1px 100% no-repeat">'
            f'<span style="position:absolute;{bar};top:0.2em;bottom:0.2em;background:{colour};'
            f'{"outline:1px solid #6b7280;" if colour == TOTAL else ""}"></span></span>'
            f'<span style="flex:0 0 4.2em;text-align:right;font-variant-numeric:tabular-nums">{v:+.2f}</span></div>')
    largest = max(values, key=lambda n: abs(values[n])) if values else total_name
    summary = (f"{title}: {len(values)} terms add up to {score:.4f}; the largest in size is {largest}, "
               f"{float(values.get(largest, score)):+.4f}.")
    heading = f'<div style="font-weight:600;margin-bottom:4px">{html.escape(title)}</div>' if title else ""
    return (f'<figure aria-label="{html.escape(summary)}" style="margin:0">{heading}{"".join(rows)}'
            f'<figcaption style="font-size:0.85em;text-align:center">adds to the score (after ÷ √d_k); hover a '
            f'bar for its value</figcaption></figure>')


def terms_spec(terms: dict[str, np.ndarray], query_labels: list[str], key_labels: list[str], title: str,
               query_title: str = "query", key_title: str = "key", columns: int = 2) -> dict:
    """(Tq, Tk) terms as canvas panels, `columns` to a row (one on a phone), on one scale symmetric about 0;
    NaN cells (masked ones) grey."""
    values = [np.asarray(m, dtype=float) for m in terms.values()]
    finite = np.concatenate([m[np.isfinite(m)] for m in values])
    reach = float(np.abs(finite).max()) if finite.size else 1.0
    reach = reach or 1.0
    return heatmap_spec([Panel(name, m) for name, m in zip(terms, values)],
                        Axes(query_labels, key_labels, query_title, key_title), title,
                        Scale(reach, -reach, RD_BU, "adds", null_text="masked"),
                        Grid(columns, GRID_MIN_PANEL, GRID_STRIP))


def letter_map_spec(logits: np.ndarray, letters: list[str], title: str) -> dict:
    """(C in, C out) logits on a scale symmetric about 0, for the canvas, each row's largest outlined."""
    logits = np.asarray(logits, dtype=float)
    reach = float(np.abs(logits).max()) or 1.0
    top = logits.argmax(-1)
    axes = Axes(letters, letters, "letter in (on the source position attended to)",
                "logit out (the character written)", row_names=letters, col_names=letters, row_name="in",
                col_name="out")
    panel = Panel(title, logits, outlines=[(r, int(c), int(c) + 1) for r, c in enumerate(top)])
    return heatmap_spec([panel], axes, title, Scale(reach, -reach, RD_BU, "logit"), Grid(height=560))
