"""Inside one head's logit lens (the head's weights and its letter map are canvas specs too; its short vectors
are tables of cells, viz/strips.py)."""

from __future__ import annotations

import numpy as np

from .canvas_heatmap import Axes, Grid, Panel, Scale, heatmap_spec


def logit_lens_spec(correct_p: np.ndarray, top_labels: list[list[str]], step_labels: list[str], title: str) -> dict:
    """(N layers, T steps) p(correct) if the decoder stopped after each layer, for the canvas: the top token
    written in each cell where it fits, and named with p(correct) in the hover."""
    z = np.asarray(correct_p, dtype=float)
    layers = [f"after layer {i}" for i in range(len(z))]
    hover = [[f"top token {top}, p(correct) {p:.3f}" for top, p in zip(tops, row)] for tops, row in zip(top_labels, z)]
    return heatmap_spec([Panel(title, z, cells=[list(t) for t in top_labels], hover=hover)],
                        Axes(layers, step_labels, "the stream", "step (what it should write)", row_names=layers,
                             col_name="step"), title,
                        Scale(value_name="p(correct)"), Grid(height=120 + 60 * len(z), gaps=True))
