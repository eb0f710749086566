"""The parts of the Transformer, one small module each, in the order data flows through them.

Shapes: B batch, S source length, T target length, L either, H heads, d_k = d_model / H.
"""

from __future__ import annotations

import math
from typing import Callable, NamedTuple

import torch
import torch.nn.functional as F
from torch import nn

from .trace import Recorder, child_of


# --- Input: token embeddings and sinusoidal positions -------------------------------------------

class TokenEmbedding(nn.Module):
    """Token ids -> vectors, scaled by sqrt(d_model) so they are not drowned by the positions."""

    def __init__(self, vocab_size: int, d_model: int) -> None:
        super().__init__()
        self.lookup = nn.Embedding(vocab_size, d_model)
        self.scale = math.sqrt(d_model)
        nn.init.normal_(self.lookup.weight, std=d_model ** -0.5)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.lookup(ids) * self.scale  # (B, L) -> (B, L, d_model)


def sinusoid_frequencies(d_model: int) -> torch.Tensor:
    """(d_model/2,) float64: the angular frequency w_i = 10000^(-2i/d) of each dimension pair, from 1 down to
    about 1/10000; written once, for the encoding and for the rotations that explain it."""
    return 10000.0 ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)


def sinusoidal_encoding(n_positions: int, d_model: int) -> torch.Tensor:
    """(n_positions, d_model): PE[pos, 2i] = sin(pos / 10000^(2i/d)), PE[pos, 2i+1] = cos(same).

    Each pair of dimensions is a clock turning at its own frequency, slower as i grows,
    so every position gets a unique, bounded code, and PE(pos + delta) is a rotation of PE(pos).
    """
    if d_model % 2:
        raise ValueError(f"d_model must be even, got {d_model}")
    position = torch.arange(n_positions, dtype=torch.float64)[:, None]          # (P, 1)
    angle = position * sinusoid_frequencies(d_model)                            # (P, d/2)
    pe = torch.empty(n_positions, d_model, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(angle)
    pe[:, 1::2] = torch.cos(angle)
    return pe.float()


class PositionalEncoding(nn.Module):
    """Adds the fixed sinusoidal table (a buffer, not a parameter) to the embeddings."""

    def __init__(self, d_model: int, max_positions: int, dropout: float) -> None:
        super().__init__()
        self.register_buffer("table", sinusoidal_encoding(max_positions, d_model), persistent=False)
        self.dropout = nn.Dropout(dropout)

    def encoding(self, length: int) -> torch.Tensor:
        """(length, d_model): the rows that are added to a sequence of this length."""
        if length > self.table.size(0):
            raise ValueError(f"sequence of {length} positions exceeds the table of {self.table.size(0)}")
        return self.table[:length]

    def forward(self, x: torch.Tensor, rows: torch.Tensor | None = None) -> torch.Tensor:
        """Adds the table's first L rows, or `rows` (L, d_model) when an experiment replaces them."""
        return self.dropout(x + (self.encoding(x.size(1)) if rows is None else rows))  # (B, L, d_model)


# --- Attention ---------------------------------------------------------------------------------

class WeightOverride(NamedTuple):
    """Attention weights given from outside for some heads (an experiment: is this pattern enough?)."""

    heads: torch.Tensor    # (H,) bool: True for a head whose weights are replaced
    weights: torch.Tensor  # (B, Tq, Tk) the weights every replaced head uses instead of its softmax


def scaled_dot_product_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None,
    record: Recorder | None = None, dropout: float = 0.0, override: WeightOverride | None = None,
) -> torch.Tensor:
    """softmax(QK^T / sqrt(d_k)) V, written out. q (B,H,Tq,d_k), k and v (B,H,Tk,d_k), mask True = may attend.

    Dividing by sqrt(d_k) keeps the scores' spread near 1 whatever d_k is, so softmax stays soft. An override
    replaces the chosen heads' weights after the softmax: their scores are still recorded as computed.
    """
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))  # (B, H, Tq, Tk)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    if mask is not None:
        # A row whose keys are all masked is NaN after softmax; it attends to nothing, so it is 0.
        weights = weights.masked_fill(~mask, 0.0)
    if override is not None:
        chosen = override.heads.to(weights.device)[None, :, None, None]                 # (1, H, 1, 1)
        weights = torch.where(chosen, override.weights.to(weights)[:, None], weights)  # (B, H, Tq, Tk)
    if record is not None:
        record["scores"], record["weights"] = scores, weights
    if dropout:
        weights = F.dropout(weights, dropout, training=True)
    return weights @ v  # (B, H, Tq, d_k)


class MultiHeadAttention(nn.Module):
    """Project to H heads, attend in each, concatenate, mix with W^O."""

    def __init__(self, d_model: int, n_heads: int, dropout: float) -> None:
        super().__init__()
        self.n_heads, self.d_k = n_heads, d_model // n_heads
        self.w_q = nn.Linear(d_model, d_model)
        self.w_k = nn.Linear(d_model, d_model)
        self.w_v = nn.Linear(d_model, d_model)
        self.w_o = nn.Linear(d_model, d_model)
        self.dropout = dropout

    def split_heads(self, x: torch.Tensor) -> torch.Tensor:
        b, length, _ = x.shape
        return x.view(b, length, self.n_heads, self.d_k).transpose(1, 2)  # (B, H, L, d_k)

    def keys_values(self, key_value: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(B, Tk, d_model) -> keys and values (B, H, Tk, d_k): what a decoding cache keeps, so that a position's
        keys and values are computed once, not again at every later step."""
        return self.split_heads(self.w_k(key_value)), self.split_heads(self.w_v(key_value))

    def forward(
        self,
        query: torch.Tensor,      # (B, Tq, d_model): where the questions come from
        key_value: torch.Tensor,  # (B, Tk, d_model): what is looked at (the encoder output, for cross-attention)
        mask: torch.Tensor | None,
        record: Recorder | None = None,
        head_gate: torch.Tensor | None = None,  # (H,) 0 switches a head's output off (an ablation)
        override: WeightOverride | None = None,  # weights set from outside for some heads
        head_values: list[tuple[int, int, torch.Tensor]] | None = None,  # (head, query position, (d_k,) output)
        kv: tuple[torch.Tensor, torch.Tensor] | None = None,  # keys and values already projected (a decoding
    ) -> torch.Tensor:                                         # cache); key_value is then not read
        q = self.split_heads(self.w_q(query))                  # (B, H, Tq, d_k)
        k, v = self.keys_values(key_value) if kv is None else kv   # (B, H, Tk, d_k) each
        dropout = self.dropout if self.training else 0.0
        if record is not None or override is not None:
            if record is not None:
                record["queries"], record["keys"], record["values"] = q, k, v
            heads = scaled_dot_product_attention(q, k, v, mask, record, dropout, override)
            if record is not None:
                record["heads"] = heads
        else:
            # The fused kernel computes the same thing faster; tests hold it equal to the path above.
            heads = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=dropout)
            if mask is not None:
                heads = heads.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
        if head_values:
            heads = heads.clone()
            for head, position, value in head_values:
                if position < heads.size(2):        # a step not decoded yet has nothing to patch
                    heads[:, head, position] = value
            if record is not None:
                record["heads"] = heads
        if head_gate is not None:
            gate = head_gate.to(heads)[None, :, None, None]  # (1, H, 1, 1)
            if record is not None:
                record["switched_off"] = heads * (1 - gate)
            heads = heads * gate
        b, _, t_query, _ = heads.shape
        concat = heads.transpose(1, 2).reshape(b, t_query, self.n_heads * self.d_k)  # (B, Tq, d_model)
        out = self.w_o(concat)                                                      # (B, Tq, d_model)
        if record is not None:
            record["concat"], record["output"] = concat, out
        return out


# --- Feed-forward, residual and LayerNorm --------------------------------------------------------

class FeedForward(nn.Module):
    """Linear -> ReLU -> Linear, applied to each position on its own (no mixing across positions)."""

    def __init__(self, d_model: int, d_ff: int, dropout: float) -> None:
        super().__init__()
        self.expand = nn.Linear(d_model, d_ff)
        self.contract = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor, record: Recorder | None = None) -> torch.Tensor:
        hidden = torch.relu(self.expand(x))          # (B, L, d_ff)
        out = self.contract(self.dropout(hidden))    # (B, L, d_model)
        if record is not None:
            record["hidden"], record["output"] = hidden, out
        return out


class Residual(nn.Module):
    """Pre-norm: x + sublayer(LN(x)). Post-norm: LN(x + sublayer(x)). Dropout on the sublayer output."""

    def __init__(self, d_model: int, dropout: float, pre_norm: bool) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)
        self.pre_norm = pre_norm

    def forward(self, x: torch.Tensor, sublayer: Callable[[torch.Tensor], torch.Tensor],
                record: Recorder | None = None) -> torch.Tensor:
        inner = self.norm(x) if self.pre_norm else x
        added = x + self.dropout(sublayer(inner))
        out = added if self.pre_norm else self.norm(added)  # (B, L, d_model)
        if record is not None:
            record["sublayer_input"], record["output"] = inner, out
        return out


# --- Encoder and decoder layers ------------------------------------------------------------------

class EncoderLayer(nn.Module):
    """Self-attention over the source, then the feed-forward network, each inside a residual."""

    def __init__(self, d_model: int, n_heads: int, d_ff: int, dropout: float, pre_norm: bool) -> None:
        super().__init__()
        self.self_attention = MultiHeadAttention(d_model, n_heads, dropout)
        self.feed_forward = FeedForward(d_model, d_ff, dropout)
        self.attention_residual = Residual(d_model, dropout, pre_norm)
        self.feed_forward_residual = Residual(d_model, dropout, pre_norm)

    def forward(self, x: torch.Tensor, src_mask: torch.Tensor, record: Recorder | None = None,
                gate: torch.Tensor | None = None) -> torch.Tensor:
        attend = child_of(record, "self_attention")
        x = self.attention_residual(x, lambda h: self.self_attention(h, h, src_mask, attend, gate),
                                    child_of(record, "attention_residual"))
        x = self.feed_forward_residual(x, lambda h: self.feed_forward(h, child_of(record, "feed_forward")),
                                       child_of(record, "feed_forward_residual"))
        return x  # (B, S, d_model)


class DecoderLayer(nn.Module):
    """Masked self-attention, then cross-attention (queries from here, keys/values from the encoder), then FFN."""

    def __init__(self, d_model: int, n_heads: int, d_ff: int, dropout: float, pre_norm: bool) -> None:
        super().__init__()
        self.self_attention = MultiHeadAttention(d_model, n_heads, dropout)
        self.cross_attention = MultiHeadAttention(d_model, n_heads, dropout)
        self.feed_forward = FeedForward(d_model, d_ff, dropout)
        self.self_residual = Residual(d_model, dropout, pre_norm)
        self.cross_residual = Residual(d_model, dropout, pre_norm)
        self.feed_forward_residual = Residual(d_model, dropout, pre_norm)

    def forward(
        self,
        y: torch.Tensor,          # (B, T, d_model)
        memory: torch.Tensor,     # (B, S, d_model) encoder output
        src_mask: torch.Tensor,   # (B, 1, 1, S)
        tgt_mask: torch.Tensor,   # (B, 1, T, T)
        record: Recorder | None = None,
        self_gate: torch.Tensor | None = None,   # (H,) head gates of the two attentions, see MultiHeadAttention
        cross_gate: torch.Tensor | None = None,
        cross_override: WeightOverride | None = None,  # cross-attention weights set from outside, see above
        cross_values: list[tuple[int, int, torch.Tensor]] | None = None,   # cross head outputs patched in
    ) -> torch.Tensor:
        attend, cross = child_of(record, "self_attention"), child_of(record, "cross_attention")
        y = self.self_residual(y, lambda h: self.self_attention(h, h, tgt_mask, attend, self_gate),
                               child_of(record, "self_residual"))
        y = self.cross_residual(y, lambda h: self.cross_attention(h, memory, src_mask, cross, cross_gate,
                                                                  cross_override, cross_values),
                                child_of(record, "cross_residual"))
        y = self.feed_forward_residual(y, lambda h: self.feed_forward(h, child_of(record, "feed_forward")),
                                       child_of(record, "feed_forward_residual"))
        return y  # (B, T, d_model)

    def step(
        self,
        y: torch.Tensor,                                   # (B, P, d_model) the P newest positions only
        cache: "LayerCache",                               # this layer's keys and values so far; grows by P
        key_mask: torch.Tensor,                            # (B, 1, P, t+P) causal, and False on padding keys
        src_mask: torch.Tensor,                            # (B, 1, 1, S)
        self_gate: torch.Tensor | None = None,
        cross_gate: torch.Tensor | None = None,
        cross_override: WeightOverride | None = None,      # its weights' rows for these positions only (B, P, S)
        cross_values: list[tuple[int, int, torch.Tensor]] | None = None,   # patched heads, position 0 = the first new
    ) -> torch.Tensor:
        """New positions through the layer, reading the cache instead of recomputing the past: the causal mask
        means no earlier position ever reads a later one, so their keys, values and outputs stay as they were.
        The same arithmetic as forward() on the whole prefix, its last P rows (tests hold the two equal)."""
        def attend_self(h: torch.Tensor) -> torch.Tensor:
            new_k, new_v = self.self_attention.keys_values(h)                       # (B, H, P, d_k)
            cache.self_k = torch.cat([cache.self_k, new_k], dim=2)                  # (B, H, t+P, d_k)
            cache.self_v = torch.cat([cache.self_v, new_v], dim=2)
            return self.self_attention(h, h, key_mask, head_gate=self_gate, kv=(cache.self_k, cache.self_v))

        y = self.self_residual(y, attend_self)
        y = self.cross_residual(y, lambda h: self.cross_attention(h, h, src_mask, None, cross_gate, cross_override,
                                                                  cross_values, kv=(cache.cross_k, cache.cross_v)))
        return self.feed_forward_residual(y, self.feed_forward)   # (B, P, d_model)


class LayerCache:
    """One decoder layer's keys and values during a decoding: cross-attention's, computed once from the
    memory (which does not change), and self-attention's, one more position each step."""

    def __init__(self, layer: DecoderLayer, memory: torch.Tensor) -> None:
        self.cross_k, self.cross_v = layer.cross_attention.keys_values(memory)     # (B, H, S, d_k) each
        b, h, _, d_k = self.cross_k.shape
        self.self_k = memory.new_zeros(b, h, 0, d_k)                                # (B, H, 0, d_k): nothing yet
        self.self_v = memory.new_zeros(b, h, 0, d_k)

    def keep(self, positions: int) -> None:
        """Forget every position from `positions` on (a draft refused there)."""
        self.self_k, self.self_v = self.self_k[:, :, :positions], self.self_v[:, :, :positions]
