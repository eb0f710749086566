"""Why this character?: the lenses at one output step, one row each over the source characters."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .canvas_heatmap import RD_BU, Axes, Grid, Panel, Scale, heatmap_spec

SHOWN_VALUES = 16   # source characters up to which each cell also prints its number


def lens_rows_spec(names: list[str], values: np.ndarray, sources: list[str], title: str, flat: float = 1e-3) -> dict:
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
    panel = Panel(title, shown, cells=text if len(sources) <= SHOWN_VALUES else None,
                  hover=[[f"value {t}" for t in row] for row in text])
    return heatmap_spec([panel], Axes(names, sources, "lens", "source character", row_names=names, col_names=sources,
                                      col_name="source"), title,
                        Scale(1.0, -1.0, RD_BU, "value", bar=False), Grid(height=80 + 46 * len(names), gaps=True),
                        summary=f"{title}, {len(names)} lenses by {len(sources)} source characters. "
                                + "; ".join(said) + ".")


def causal_cone_specs(memory: np.ndarray, stream: np.ndarray, sources: list[str], positions: list[str],
                      title: str = "") -> tuple[dict, dict]:
    """Every single patch's effect, as two canvas heatmaps on one colour scale from 0 to the largest cell: the
    output steps whose top token moves for the encoder's output at each source position ((S,) memory: one row),
    and for the decoder stream after each layer at each position ((L, T) stream, layer 0 first)."""
    memory, stream = np.asarray(memory, dtype=float), np.asarray(stream, dtype=float)
    most = max(1.0, float(memory.max(initial=0)), float(stream.max(initial=0)))   # (of `steps`) so 1 is not near-white
    scale = Scale(most, value_name="steps changed")
    layers = [f"after layer {i}" for i in range(len(stream))]

    def said(m: np.ndarray, name_of) -> str:
        """Where a single patch changes the most output steps (the first four such places)."""
        if m.max(initial=0) <= 0:
            return "no single patch changes any output step"
        where = [name_of(tuple(int(k) for k in i)) for i in np.argwhere(m == m.max())[:4]]
        return f"at most {int(m.max())} output step{'s' if m.max() != 1 else ''} change, patching " + " or ".join(where)

    return (heatmap_spec([Panel("encoder output", memory[None, :])],
                         Axes(["encoder output"], sources, "", "source position", row_names=["encoder output"],
                              col_names=sources, col_name="source"),
                         f"{title}: the encoder's output, by source position", replace(scale, bar=False),
                         Grid(height=110, gaps=True),
                         summary=f"{title}, the encoder's output at {len(sources)} source positions: "
                                 f"{said(memory, lambda i: f'source {sources[i[0]]}')}."),
            heatmap_spec([Panel("decoder stream", stream)],
                         Axes(layers, positions, "layer", "decoder position", row_names=layers,
                              col_names=[f"position {p}" for p in positions], col_name="decoder position"),
                         f"{title}: the decoder stream, by layer and position", scale,
                         Grid(height=80 + 40 * len(stream), gaps=True),
                         summary=f"{title}, the decoder stream after each of {len(layers)} layers at "
                                 f"{len(positions)} positions: "
                                 f"{said(stream, lambda i: f'{layers[i[0]]} at decoder position {positions[i[1]]}')}."))
