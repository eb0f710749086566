"""The kind / layer / head picker every attention view uses, its value kept in the URL."""

from __future__ import annotations

from typing import NamedTuple, Sequence

import streamlit as st

from analysis.labels import KIND_SHORT
from transformer.config import ModelConfig
from transformer.intervention import every_head
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
    if len(kinds) > 1:   # a row of its own: beside the boxes, a 1024-px screen cut its last option off
        kind = st.segmented_control("Attention kind", list(kinds), format_func=KIND_SHORT.get,
                                    default=default_kind, key=f"{prefix}kind", required=True, **VIEW)
    else:
        kind = kinds[0]
    columns = st.columns(2)
    n_layers = config.layers_per_kind[kind]
    layer = columns[0].selectbox(layer_label, range(n_layers), index=n_layers - 1 if last_layer else 0,
                                 key=f"{prefix}layer", **VIEW)
    head = columns[1].selectbox("Head", range(config.n_heads), key=f"{prefix}head", **VIEW) if heads else 0
    return Picked(kind, layer, head)


def head_names(config: ModelConfig) -> dict[str, tuple[Kind, int, int]]:
    """Every head by the name a learner picks it by ('cross L1 H0'), as plain values for the run caches."""
    return {str(h): (h.kind, h.layer, h.head) for h in every_head(config.layers_per_kind, config.n_heads)}


def pick_switched_off(config: ModelConfig, label: str = "Heads to switch off") -> tuple[tuple[Kind, int, int], ...]:
    """The heads switched off, one choice for every page that offers it (kept in the URL as `ablated`), so
    the lab's experiment follows the learner to the pages that look inside it."""
    heads = head_names(config)
    chosen = st.multiselect(label, list(heads), key="ablated", placeholder="Choose heads, e.g. cross L1 H0",
                            help="Named as attention kind, layer L, head H.", **VIEW)
    return tuple(heads[name] for name in chosen)
