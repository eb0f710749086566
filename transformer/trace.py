"""The record of one forward pass: every activation, keyed by the path of the module that made it.

Like TransformerLens' ActivationCache, a traced call returns a fresh record and leaves nothing on the
modules, so one shared model can serve many sessions at once. Keys (B batch, S source length, T target
length, L either, H heads, d_k = d_model / H, V vocabulary; every entry starts with the batch):

    src_embed.output          (B, S, d_model)  token embeddings × √d_model
    src_positions.rows        (B, S, d_model)  the positional rows added to them
    src_positions.output      (B, S, d_model)  their sum: the residual stream entering encoder layer 0
    tgt_embed.output, tgt_positions.rows, tgt_positions.output: the same for the decoder input, T long
    masks.source              (B, 1, 1, S)     True = may attend (padding of the source)
    masks.target              (B, 1, T, T)     causal AND padding of the decoder input

    For each encoder layer i, p = encoder_layers.{i}:
    p.attention_residual.sublayer_input  (B, S, d_model)  what attention reads: LN(stream) pre-norm, the stream post-norm
    p.self_attention.queries / keys / values  (B, H, L, d_k)
    p.self_attention.scores   (B, H, Tq, Tk)   QKᵀ/√d_k, −inf where masked
    p.self_attention.weights  (B, H, Tq, Tk)   softmax of the scores; masked entries exactly 0
    p.self_attention.heads    (B, H, Tq, d_k)  each head's output, weights @ values
    p.self_attention.switched_off (B, H, Tq, d_k)  what an Intervention zeroed (only when it switched heads off)
    p.self_attention.concat   (B, Tq, d_model) the heads side by side, after any switching off
    p.self_attention.output   (B, Tq, d_model) concat @ W^O + b
    p.attention_residual.output          (B, S, d_model)  the residual stream after the sublayer
    p.feed_forward_residual.sublayer_input, p.feed_forward.hidden (B, S, d_ff) after ReLU,
    p.feed_forward.output, p.feed_forward_residual.output
    For each decoder layer, decoder_layers.{i}: self_residual + self_attention, cross_residual +
    cross_attention (queries from the decoder, keys and values from the memory), feed_forward_residual +
    feed_forward, named as above.

    encoder_norm.output       (B, S, d_model)  the memory cross-attention reads
    decoder_norm.output       (B, T, d_model)
    generator.logits          (B, T, V)

Short forms: trace["cross", 1] is decoder_layers.1.cross_attention.weights; trace.attention(kind, layer,
name) any other entry of an attention; trace.stack(pattern) one entry over every layer.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Literal

import numpy as np
import torch

Kind = Literal["encoder_self", "decoder_self", "cross"]
KINDS: tuple[Kind, ...] = ("encoder_self", "decoder_self", "cross")
ATTENTION_PATHS: dict[Kind, str] = {
    "encoder_self": "encoder_layers.{}.self_attention",
    "decoder_self": "decoder_layers.{}.self_attention",
    "cross": "decoder_layers.{}.cross_attention",
}


class Recorder:
    """Where a traced pass writes: one shared dict, and the path of the module writing into it."""

    def __init__(self, store: dict[str, torch.Tensor] | None = None, path: str = "") -> None:
        self.store = {} if store is None else store
        self.path = path

    def child(self, name: str) -> Recorder:
        return Recorder(self.store, f"{self.path}.{name}" if self.path else name)

    def __setitem__(self, name: str, value: torch.Tensor) -> None:
        self.store[f"{self.path}.{name}" if self.path else name] = value.detach()


def child_of(record: Recorder | None, name: str) -> Recorder | None:
    """The recorder of a submodule, or None on the untraced fast path."""
    return None if record is None else record.child(name)


class Trace(Mapping):
    """Activations by path, as torch tensors (from the model) or numpy arrays (from `row`)."""

    def __init__(self, activations: dict[str, Any]) -> None:
        self._activations = dict(activations)

    def __getitem__(self, key: str | tuple[Kind, int]) -> Any:
        if isinstance(key, tuple):
            kind, layer = key
            return self.attention(kind, layer)
        return self._activations[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._activations)

    def __len__(self) -> int:
        return len(self._activations)

    def attention(self, kind: Kind, layer: int, name: str = "weights") -> Any:
        return self._activations[f"{attention_path(kind, layer)}.{name}"]

    def n_layers(self, kind: Kind) -> int:
        return self.count(attention_path(kind, None) + ".weights")

    def count(self, pattern: str) -> int:
        """How many layers have the entry `pattern`, whose '{}' stands for the layer index."""
        n = 0
        while pattern.format(n) in self._activations:
            n += 1
        return n

    def stack(self, pattern: str) -> Any:
        """One entry over every layer, the layer first: stack("decoder_layers.{}.cross_attention.weights")."""
        n = self.count(pattern)
        if n == 0:
            raise KeyError(f"no activation matches {pattern!r}")
        parts = [self._activations[pattern.format(i)] for i in range(n)]
        return np.stack(parts) if isinstance(parts[0], np.ndarray) else torch.stack(parts)

    def stack_attention(self, kind: Kind, name: str = "weights") -> Any:
        return self.stack(f"{attention_path(kind, None)}.{name}")

    def mask(self, kind: Kind) -> Any:
        """(B, T_query, T_key) boolean mask of one attention kind, True = may attend; (T_query, T_key) in a row."""
        source, target = self._activations["masks.source"], self._activations["masks.target"]
        if kind == "decoder_self":
            return target[..., 0, :, :]
        queries = source.shape[-1] if kind == "encoder_self" else target.shape[-1]
        source = source[..., 0, :, :]                                   # (..., 1, S)
        shape = (*source.shape[:-2], queries, source.shape[-1])
        return np.broadcast_to(source, shape) if isinstance(source, np.ndarray) else source.expand(shape)

    def row(self, b: int = 0) -> Trace:
        """Batch row b as numpy, the batch dimension taken away: what a page or a cache keeps. The arrays are
        read-only, as a cache shares them between sessions. A batch of one keeps its tensors' memory (nothing
        else holds them); a row of a larger batch is copied, so that it does not keep the whole batch alive.
        The copies were 3.6 % of a busy class server's time (benchmarks.classroom under py-spy)."""
        if next(iter(self._activations.values())).shape[0] == 1:
            return Trace({k: read_only(v[0].numpy()) for k, v in self._activations.items()})
        return Trace({k: read_only(v[b].numpy().copy()) for k, v in self._activations.items()})


def read_only(array: np.ndarray) -> np.ndarray:
    """The array, no longer writable: a cached run is shared by every session."""
    array.flags.writeable = False
    return array


def attention_path(kind: Kind, layer: int | None) -> str:
    """The module path of one attention; layer None leaves '{}' for Trace.stack."""
    if kind not in ATTENTION_PATHS:
        raise KeyError(f"attention kind must be one of {KINDS}, not {kind!r}")
    return ATTENTION_PATHS[kind].format("{}" if layer is None else layer)
