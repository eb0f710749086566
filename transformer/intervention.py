"""Experiments on a trained model: switch heads off, remove or shuffle the positions, set a layer's
cross-attention weights by hand.

An Intervention is a value handed to one forward pass, never a change to the model: the loaded
model is shared by every browser session, so an experiment in one must not leak into another.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Literal

import torch

from .layers import WeightOverride
from .trace import KINDS, Kind

PositionMode = Literal["normal", "zero", "shuffle", "swap"]
POSITION_MODES: tuple[PositionMode, ...] = ("normal", "zero", "shuffle", "swap")
SIDES = ("source", "target")


@dataclass(frozen=True, order=True)
class Head:
    """One attention head: which attention, which layer, which head."""

    kind: Kind
    layer: int
    head: int

    def __str__(self) -> str:
        return f"{self.kind} L{self.layer} H{self.head}"


Pattern = Callable[[torch.Tensor, int], torch.Tensor]  # source ids (B, S), queries Tq -> weights (B, Tq, S)


@dataclass(frozen=True)
class Replacement:
    """One decoder layer's cross-attention weights, for the chosen heads, replaced by a pattern built from the
    source: the heads read the values the pattern points at, whatever their queries and keys say. Switching a
    head off asks whether it is needed; this asks whether a pattern is enough."""

    layer: int
    pattern: Pattern
    heads: frozenset[int] | None = None   # None: every head of the layer

    def override(self, n_heads: int, source: torch.Tensor, n_queries: int) -> WeightOverride:
        """The (H,) heads replaced and their (B, Tq, S) weights for this source and number of queries."""
        heads = range(n_heads) if self.heads is None else sorted(self.heads)
        if not heads or max(heads) >= n_heads or min(heads) < 0:
            raise ValueError(f"head index out of range 0..{n_heads - 1}: {list(heads)}")
        chosen = torch.zeros(n_heads, dtype=torch.bool)                       # (H,)
        chosen[list(heads)] = True
        weights = self.pattern(source, n_queries)                              # (B, Tq, S)
        if weights.shape != (source.size(0), n_queries, source.size(1)):
            raise ValueError(f"a pattern for {n_queries} queries over a source of shape {tuple(source.shape)} "
                             f"must have shape {(source.size(0), n_queries, source.size(1))}, "
                             f"got {tuple(weights.shape)}")
        return WeightOverride(chosen, weights)


PatchSite = Literal["memory", "cross_head", "decoder_stream"]
PATCH_SITES: tuple[PatchSite, ...] = ("memory", "cross_head", "decoder_stream")


@dataclass(frozen=True)
class Patch:
    """One activation of another run copied into this one (activation patching): the encoder's output at a source
    position ("memory"), one cross-attention head's output at a decoder position ("cross_head", before W_O), or
    the decoder's residual stream after a layer at a position ("decoder_stream")."""

    site: PatchSite
    position: int
    layer: int = 0           # the decoder layer (cross_head, decoder_stream)
    head: int = 0            # the head (cross_head)
    value: torch.Tensor | None = field(default=None, compare=False, repr=False)   # (d_model,), a head's (d_k,)

    def __post_init__(self) -> None:
        if self.site not in PATCH_SITES:
            raise ValueError(f"a patch site is one of {PATCH_SITES}, got {self.site!r}")
        if self.value is None or self.value.dim() != 1:
            raise ValueError("a patch needs the value to copy in, one vector")
        if min(self.position, self.layer, self.head) < 0:
            raise ValueError(f"a patch's position, layer and head are 0 or more, got {self}")


@dataclass(frozen=True)
class Intervention:
    ablated: frozenset[Head] = frozenset()   # heads whose output is zeroed before W^O mixes the heads
    positions: PositionMode = "normal"       # "zero": no codes; "shuffle": permuted codes; "swap": two traded
    sides: frozenset[str] = frozenset(SIDES)  # where the position switch applies: source, target or both
    shuffle_seed: int = 0
    replaced: tuple[Replacement, ...] = ()   # cross-attention weights set by hand, at most one per layer
    swapped: tuple[int, int] = (0, 0)        # with positions="swap": the two source positions whose codes trade
    # (B, S, d_model) in place of the source's scaled embeddings: the input gradient methods differentiate
    # through it, so no hook is ever put on the shared model. Left out of == and hash (a tensor has neither).
    source_embeddings: torch.Tensor | None = field(default=None, compare=False, repr=False)
    patches: tuple[Patch, ...] = field(default=(), compare=False, repr=False)   # activations of another run

    def __post_init__(self) -> None:
        if self.positions not in POSITION_MODES:
            raise ValueError(f"positions must be one of {POSITION_MODES}, got {self.positions!r}")
        if not set(self.sides) <= set(SIDES):
            raise ValueError(f"sides must be within {SIDES}, got {sorted(self.sides)}")
        for head in self.ablated:
            if head.kind not in KINDS:
                raise ValueError(f"unknown attention kind {head.kind!r}")
        if self.positions == "swap" and (len(self.swapped) != 2 or min(self.swapped) < 0
                                         or self.swapped[0] == self.swapped[1]):
            raise ValueError(f"a swap needs two different positions, got {self.swapped}")
        layers = [r.layer for r in self.replaced]
        if len(set(layers)) < len(layers):
            raise ValueError(f"at most one replacement per layer, got layers {sorted(layers)}")

    def head_gate(self, kind: Kind, layer: int, n_heads: int) -> torch.Tensor | None:
        """(H,) 1 for a head that works, 0 for one switched off; None when all work (the fast path)."""
        off = [h.head for h in self.ablated if h.kind == kind and h.layer == layer]
        if not off:
            return None
        if max(off) >= n_heads or min(off) < 0:
            raise ValueError(f"head index out of range 0..{n_heads - 1}: {sorted(off)}")
        gate = torch.ones(n_heads)
        gate[off] = 0.0
        return gate

    def cross_override(self, layer: int, n_heads: int, source: torch.Tensor, n_queries: int) -> WeightOverride | None:
        """The weights replacing this decoder layer's cross-attention for a source (B, S) and Tq queries, if any."""
        chosen = [r for r in self.replaced if r.layer == layer]
        return chosen[0].override(n_heads, source, n_queries) if chosen else None

    def patched_memory(self, memory: torch.Tensor) -> torch.Tensor:
        """(B, S, d_model) the encoder's output with the memory patches copied in."""
        chosen = [p for p in self.patches if p.site == "memory"]
        if not chosen:
            return memory
        memory = memory.clone()
        for p in chosen:
            if p.position >= memory.size(1):
                raise ValueError(f"no source position {p.position} in a source of {memory.size(1)}")
            memory[:, p.position] = p.value
        return memory

    def patched_stream(self, layer: int, stream: torch.Tensor, start: int = 0) -> torch.Tensor:
        """(B, P, d_model) the decoder's residual stream after `layer` at positions start .. start+P-1 (the whole
        stream, or the new positions of incremental decoding), with that layer's patches at those positions copied
        in (a position the decoding has not reached yet is left for the step that reaches it)."""
        chosen = [p for p in self.patches if p.site == "decoder_stream" and p.layer == layer
                  and start <= p.position < start + stream.size(1)]
        if not chosen:
            return stream
        stream = stream.clone()
        for p in chosen:
            stream[:, p.position - start] = p.value
        return stream

    def cross_head_values(self, layer: int) -> list[tuple[int, int, torch.Tensor]] | None:
        """(head, position, value) of this decoder layer's patched cross-attention heads, if any."""
        chosen = [(p.head, p.position, p.value) for p in self.patches if p.site == "cross_head" and p.layer == layer]
        return chosen or None

    def position_rows(self, table: torch.Tensor, side: str, length: int, trained: int | None = None) -> torch.Tensor:
        """The (length, d_model) rows to add to a sequence of this length on this side.

        Swap gives positions i and j each other's code and leaves the rest in place, one change a learner can
        predict. Shuffle gives position p the code of position perm[p]. The source permutes its own positions;
        the target draws from the `trained` positions training used (default: every row of `table`) with a
        fixed permutation, and a position past them keeps its own code, so step after step of one decoding sees
        the same code at the same place however long it runs (what incremental decoding needs)."""
        rows = table[:length]
        if self.positions == "normal" or side not in self.sides:
            return rows
        if self.positions == "zero":
            return torch.zeros_like(rows)
        if self.positions == "swap":          # a swap is of the source's positions only
            if side != "source":
                return rows
            i, j = self.swapped
            if max(i, j) >= length:
                raise ValueError(f"cannot swap positions {i} and {j} of a sequence of {length}")
            order = list(range(length))
            order[i], order[j] = j, i
            return rows[order]
        generator = torch.Generator().manual_seed(self.shuffle_seed)
        span = length if side == "source" else min(table.size(0), trained or table.size(0))
        order = torch.randperm(span, generator=generator)
        order = torch.cat([order, torch.arange(span, max(span, length))])[:length]
        return table[order.to(table.device)]


NO_INTERVENTION = Intervention()


def intervention(ablated: tuple[tuple[str, int, int], ...] = (), positions: str = "normal",
                 sides: tuple[str, ...] = SIDES, seed: int = 0) -> Intervention:
    """An Intervention from plain values (heads as (kind, layer, head)), as cache keys and links hold them."""
    return Intervention(frozenset(Head(*h) for h in ablated), positions, frozenset(sides), seed)


def every_head(n_layers: dict[Kind, int], n_heads: int) -> list[Head]:
    return [Head(kind, layer, h) for kind in KINDS for layer in range(n_layers[kind]) for h in range(n_heads)]
