"""The kind / layer / head picker every attention view uses, its value kept in the URL."""

from __future__ import annotations

from typing import NamedTuple, Sequence

import streamlit as st

from analysis.labels import KIND_SHORT
from transformer.config import ModelConfig
from transformer.trace import KINDS, Kind

from .state import VIEW


class Picked(NamedTuple):
    kind: Kind
    layer: int
    head: int


def pick_head(config: ModelConfig, prefix: str = "", kinds: Sequence[Kind] = KINDS, default_kind: Kind = "cross",
              last_layer: bool = True, widths: Sequence[float] = (2, 1, 1), kind_label: str = "Attention kind",
              layer_label: str = "Layer", heads: bool = True) -> Picked:
    """Draw the picker (one kind: no kind control) and return the choice. `prefix` keeps each page's choice
    apart in the URL and the session; layers default to the last one (or the first with last_layer=False).
    With heads=False there is no head control and head 0 is returned."""
    columns = st.columns(widths if len(kinds) > 1 else widths[1:])
    if len(kinds) > 1:
        kind = columns[0].segmented_control(kind_label, list(kinds), format_func=KIND_SHORT.get, default=default_kind,
                                            key=f"{prefix}kind", required=True, **VIEW)
        columns = columns[1:]
    else:
        kind = kinds[0]
    n_layers = config.layers_per_kind[kind]
    layer = columns[0].selectbox(layer_label, range(n_layers), index=n_layers - 1 if last_layer else 0,
                                 key=f"{prefix}layer", **VIEW)
    head = columns[1].selectbox("Head", range(config.n_heads), key=f"{prefix}head", **VIEW) if heads else 0
    return Picked(kind, min(layer, n_layers - 1), head)
