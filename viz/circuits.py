"""A head's circuits: its score split into content and position terms (bars for one cell, canvas panels for
every cell), and its letter-in -> logit-out map. Signed values on the diverging scale."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .attention import GRID_MIN_PANEL, GRID_STRIP
from .canvas_heatmap import RD_BU, heatmap_spec
from .style import figure

POSITIVE, NEGATIVE, TOTAL = "#1d4ed8", "#dc2626", "#d1d5db"


def term_bars(values: dict[str, float], score: float, title: str = "", total_name: str = "sum = the score") -> go.Figure:
    """One horizontal bar per term and one for their sum, each labelled with its value (the sign is in the
    label and the bar's direction, not only its colour)."""
    names = [*values, total_name]
    numbers = [*values.values(), score]
    colours = [POSITIVE if v >= 0 else NEGATIVE for v in values.values()] + [TOTAL]
    bars = dict(type="bar", orientation="h", x=numbers, y=names, marker=dict(color=colours),
                text=[f"{v:+.2f}" for v in numbers], textposition="outside", cliponaxis=False,
                hovertemplate="%{y}: %{x:.4f}<extra></extra>")
    reach = max(1e-9, max(abs(v) for v in numbers)) * 1.35                  # room for the labels outside the bars
    return figure([bars], title, 60 + 42 * len(names),
                  xaxis=dict(title=dict(text="adds to the score (after ÷ √d_k)"), range=[-reach, reach],
                             zeroline=True, zerolinecolor="#6b7280"),
                  yaxis=dict(title=dict(text="term (query part · key part)"), autorange="reversed", automargin=True),
                  showlegend=False)


def terms_spec(terms: dict[str, np.ndarray], query_labels: list[str], key_labels: list[str], title: str,
               query_title: str = "query", key_title: str = "key", columns: int = 2,
               projector: bool = False) -> dict:
    """(Tq, Tk) terms as canvas panels, `columns` to a row (one on a phone), on one scale symmetric about 0;
    NaN cells (masked ones) grey."""
    values = [np.asarray(m, dtype=float) for m in terms.values()]
    finite = np.concatenate([m[np.isfinite(m)] for m in values])
    reach = float(np.abs(finite).max()) if finite.size else 1.0
    return heatmap_spec(list(zip(terms, values)), query_labels, key_labels, title, query_title, key_title, "adds",
                        reach or 1.0, RD_BU, projector=projector, zmin=-(reach or 1.0), null_text="masked",
                        columns=columns, min_panel=GRID_MIN_PANEL, strip_height=GRID_STRIP)


def letter_map_spec(logits: np.ndarray, letters: list[str], title: str, projector: bool = False) -> dict:
    """(C in, C out) logits on a scale symmetric about 0, for the canvas, each row's largest outlined."""
    logits = np.asarray(logits, dtype=float)
    reach = float(np.abs(logits).max()) or 1.0
    top = logits.argmax(-1)
    return heatmap_spec([(title, logits)], letters, letters, title, "letter in (on the source position attended to)",
                        "logit out (the character written)", "logit", reach, RD_BU, {0: [(r, int(c), int(c) + 1)
                                                                                         for r, c in enumerate(top)]},
                        projector=projector, zmin=-reach, row_names=letters, col_names=letters, row_name="in", col_name="out",
                        strip_height=560)
