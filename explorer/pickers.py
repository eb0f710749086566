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
              last_layer: bool = True, layer_label: str = "Layer", heads: bool = True) -> Picked:
    """Draw the picker (one kind: no kind control; heads=False: no head control, head 0) and return the choice.
    `prefix` keeps each page's choice apart in the URL and the session; the layer defaults to the last one
    (the first with last_layer=False). A value that is not among the options falls back to the default."""
    columns = st.columns([2, 1, 1] if len(kinds) > 1 else [1, 1])
    if len(kinds) > 1:
        kind = columns[0].segmented_control("Attention kind", list(kinds), format_func=KIND_SHORT.get,
                                            default=default_kind, key=f"{prefix}kind", required=True, **VIEW)
        columns = columns[1:]
    else:
        kind = kinds[0]
    n_layers = config.layers_per_kind[kind]
    layer = columns[0].selectbox(layer_label, range(n_layers), index=n_layers - 1 if last_layer else 0,
                                 key=f"{prefix}layer", **VIEW)
    head = columns[1].selectbox("Head", range(config.n_heads), key=f"{prefix}head", **VIEW) if heads else 0
    return Picked(kind, layer, head)
