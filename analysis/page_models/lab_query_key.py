"""Queries and keys: one head's queries and centred keys in the keys' main plane, beside its real scores."""

from __future__ import annotations

from dataclasses import dataclass

from ..lab import QueryKeyMap, query_key_map
from ..labels import KIND_SHORT, attention_axes
from ..run import Run


@dataclass(frozen=True)
class QueryKeyView:
    """Tq queries, Tk keys of the chosen head."""

    plane: QueryKeyMap          # the two main directions of the keys, and the real scores
    queries: list[str]          # (Tq,) labels
    keys: list[str]             # (Tk,) labels
    title: str
    caption: str                # how much the plane keeps, and how often it names the head's top key


def query_key_view(run: Run, kind: str, layer: int, head: int) -> QueryKeyView:
    plane = query_key_map(run, kind, layer, head)
    queries, keys, _, _ = attention_axes(kind, run.source, run.decoder_in)
    caption = (
        f"The plane keeps {plane.explained.sum():.0%} of the variance of the centred {run.d_k}-dimensional keys. "
        f"For {plane.agreement:.0%} of the queries, the key with the largest dot product in the plane is the key the "
        "head attends to most" + (
            "; for the others, the dimensions the plane leaves out decide. " if plane.agreement < 1 else
            ", though the plane leaves dimensions out. ")
        + "The picture is a hint; the scores on the right are the answer.")
    return QueryKeyView(plane, queries, keys, f"{KIND_SHORT[kind]}-attention, layer {layer}, head {head}", caption)
