"""Inside one head: every number behind one attention weight, worked out again from the model's weights.

The derivation starts from the residual stream the trace recorded before the sublayer (and, for
cross-attention, from the encoder's output), then does the arithmetic itself in float64 numpy: LayerNorm,
the projections, q·k, the mask, the softmax, the weighted values, the heads side by side, W^O, the residual
add, the rest of the layer, and where the result goes next. Every step is returned beside the value the
model itself computed (its trace), so a page can show how far apart they are, and a test can hold them
together.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import torch
from torch import nn

from transformer.intervention import NO_INTERVENTION, Intervention
from transformer.model import Transformer
from transformer.trace import Kind, Trace, attention_path

# Derived and traced values agree to this, relative to the size of the numbers compared where that is above 1:
# the model runs in float32, whose rounding grows with the number (a score of 41 is 3.8e-6 from its float32
# neighbours), and the softmax passes a score's rounding on to the weights and the outputs after them.
TOLERANCE = 1e-5


@dataclass(frozen=True)
class Checked:
    """One derived quantity beside the model's own value of it."""

    name: str
    derived: np.ndarray
    traced: np.ndarray

    @property
    def difference(self) -> float:
        """The largest absolute difference; −∞ against −∞ (a masked score) counts as equal."""
        derived, traced = np.asarray(self.derived, float), np.asarray(self.traced, float)
        both_masked = np.isneginf(derived) & np.isneginf(traced)
        with np.errstate(invalid="ignore"):                       # −∞ − (−∞) is NaN, and masked out here
            gap = np.nan_to_num(np.abs(np.where(both_masked, 0.0, derived - traced)), nan=np.inf)
        return float(gap.max(initial=0.0))

    @property
    def size(self) -> float:
        """The largest finite number compared, in absolute value."""
        traced = np.abs(np.asarray(self.traced, float))
        return float(traced[np.isfinite(traced)].max(initial=0.0))

    @property
    def scaled_difference(self) -> float:
        """The largest difference over the size of the numbers compared where that is above 1 (else absolute)."""
        return self.difference / max(1.0, self.size)

    @property
    def shape(self) -> tuple[int, ...]:
        return np.shape(self.derived)


def _array(tensor: torch.Tensor) -> np.ndarray:
    return tensor.detach().double().numpy()


def layer_norm(x: np.ndarray, norm: nn.LayerNorm) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """γ ⊙ (x − μ)/√(σ² + ε) + β over the last axis; also μ and √(σ² + ε), for showing."""
    mean = x.mean(-1, keepdims=True)
    spread = np.sqrt(x.var(-1, keepdims=True) + norm.eps)     # the biased variance, as LayerNorm uses
    return (x - mean) / spread * _array(norm.weight) + _array(norm.bias), mean[..., 0], spread[..., 0]


def linear(x: np.ndarray, layer: nn.Linear, rows: slice = slice(None)) -> np.ndarray:
    """x W[rows]ᵀ + b[rows]: a Linear layer, or the rows of its output that belong to one head."""
    out = x @ _array(layer.weight)[rows].T
    return out + _array(layer.bias)[rows] if layer.bias is not None else out


def head_rows(head: int, d_k: int) -> slice:
    return slice(head * d_k, (head + 1) * d_k)


# --- Where each sublayer sits ----------------------------------------------------------------------

@dataclass(frozen=True)
class Sublayer:
    """One residual block of a layer: an attention or the feed-forward network."""

    stack: str          # "encoder" or "decoder"
    layer: int
    part: str           # "self_attention", "cross_attention" or "feed_forward"

    @property
    def path(self) -> str:
        return f"{self.stack}_layers.{self.layer}.{self.part}"

    @property
    def residual_path(self) -> str:
        residual = {"self_attention": "attention_residual" if self.stack == "encoder" else "self_residual",
                    "cross_attention": "cross_residual", "feed_forward": "feed_forward_residual"}[self.part]
        return f"{self.stack}_layers.{self.layer}.{residual}"

    @property
    def title(self) -> str:
        name = {"self_attention": "self-attention", "cross_attention": "cross-attention",
                "feed_forward": "feed-forward"}[self.part]
        return f"{self.stack} layer {self.layer} {name}"


def sublayers(stack: str, layer: int) -> list[Sublayer]:
    parts = ["self_attention", "feed_forward"] if stack == "encoder" else \
        ["self_attention", "cross_attention", "feed_forward"]
    return [Sublayer(stack, layer, p) for p in parts]


def sublayer_of(kind: Kind, layer: int) -> Sublayer:
    return {"encoder_self": Sublayer("encoder", layer, "self_attention"),
            "decoder_self": Sublayer("decoder", layer, "self_attention"),
            "cross": Sublayer("decoder", layer, "cross_attention")}[kind]


def stream_key(sublayer: Sublayer) -> str:
    """The trace's key of the residual stream a sublayer reads: the input vectors, or what the block before wrote."""
    blocks = sublayers(sublayer.stack, sublayer.layer)
    index = blocks.index(sublayer)
    if index:
        return f"{blocks[index - 1].residual_path}.output"
    if sublayer.layer:
        return f"{sublayer.stack}_layers.{sublayer.layer - 1}.feed_forward_residual.output"
    return "src_positions.output" if sublayer.stack == "encoder" else "tgt_positions.output"


def stream_before(trace: Trace, sublayer: Sublayer) -> np.ndarray:
    """(L, d_model) the residual stream a sublayer reads."""
    return trace[stream_key(sublayer)]


def _module(model: Transformer, sublayer: Sublayer) -> nn.Module:
    layers = model.encoder_layers if sublayer.stack == "encoder" else model.decoder_layers
    return getattr(layers[sublayer.layer], sublayer.part)


def _residual_module(model: Transformer, sublayer: Sublayer) -> nn.Module:
    layers = model.encoder_layers if sublayer.stack == "encoder" else model.decoder_layers
    return getattr(layers[sublayer.layer], sublayer.residual_path.rsplit(".", 1)[1])


# --- One sublayer at one position ------------------------------------------------------------------

@dataclass(frozen=True)
class AttentionAt:
    """An attention sublayer worked out at query position i, every head (H heads, Tk keys, d_k each)."""

    sublayer: Sublayer
    stream: np.ndarray           # (d_model,) x_i, the residual stream before the sublayer (from the trace)
    mean: float                  # μ and √(σ² + ε) of x_i, when the sublayer reads LN(x_i) (pre-norm)
    spread: float
    normed: Checked              # (d_model,) what the sublayer reads: LN(x_i) pre-norm, x_i post-norm
    key_rows: np.ndarray         # (Tk, d_model) what keys and values are made from
    queries: Checked             # (H, d_k)
    keys: Checked                # (H, Tk, d_k)
    values: Checked              # (H, Tk, d_k)
    allowed: np.ndarray          # (Tk,) True = may attend
    scores: Checked              # (H, Tk) q·k/√d_k, −∞ where masked
    weights: Checked             # (H, Tk)
    heads: Checked               # (H, d_k) Σ_j w_j v_j, before any switching off
    gate: np.ndarray             # (H,) 1 works, 0 switched off
    concat: Checked              # (d_model,)
    output: Checked              # (d_model,) concat W^O + b
    residual: Checked            # (d_model,) the stream after the sublayer
    exps: np.ndarray             # (H, Tk) e^(s − max s), the softmax before its division; 0 where masked

    @property
    def checks(self) -> list[Checked]:
        return [self.normed, self.queries, self.keys, self.values, self.scores, self.weights, self.heads,
                self.concat, self.output, self.residual]


@dataclass(frozen=True)
class FeedForwardAt:
    sublayer: Sublayer
    stream: np.ndarray           # (d_model,)
    normed: Checked              # (d_model,)
    hidden: Checked              # (d_ff,) after ReLU
    output: Checked              # (d_model,)
    residual: Checked            # (d_model,)

    @property
    def checks(self) -> list[Checked]:
        return [self.normed, self.hidden, self.output, self.residual]


def _read(x: np.ndarray, residual: nn.Module, what: str, traced: np.ndarray) -> tuple[Checked, float, float]:
    """What a sublayer reads from x (…, d_model): LN(x) pre-norm, x itself post-norm."""
    if residual.pre_norm:
        normed, mean, spread = layer_norm(x, residual.norm)
        return Checked(what, normed, traced), float(np.ravel(mean)[-1]), float(np.ravel(spread)[-1])
    return Checked(what, x, traced), math.nan, math.nan


def _add(x: np.ndarray, added: np.ndarray, residual: nn.Module, traced: np.ndarray, what: str) -> Checked:
    total = x + added
    return Checked(what, total if residual.pre_norm else layer_norm(total, residual.norm)[0], traced)


def attention_at(model: Transformer, trace: Trace, kind: Kind, layer: int, query: int,
                 edit: Intervention = NO_INTERVENTION) -> AttentionAt:
    sublayer = sublayer_of(kind, layer)
    attention, residual = _module(model, sublayer), _residual_module(model, sublayer)
    path, n_heads, d_k = attention_path(kind, layer), attention.n_heads, attention.d_k
    stream_all = stream_before(trace, sublayer).astype(float)                  # (Tq, d_model)
    x = stream_all[query]
    traced_in = trace[f"{sublayer.residual_path}.sublayer_input"]
    normed, mean, spread = _read(x, residual, "what the sublayer reads", traced_in[query])
    if kind == "cross":
        key_rows = trace["encoder_norm.output"].astype(float)                  # (S, d_model) the memory
    else:
        key_rows = _read(stream_all, residual, "", traced_in)[0].derived        # (Tq, d_model) every position
    split = lambda flat: flat.reshape(*flat.shape[:-1], n_heads, d_k)           # (..., d_model) -> (..., H, d_k)
    q = split(linear(normed.derived, attention.w_q))                          # (H, d_k)
    k = split(linear(key_rows, attention.w_k)).transpose(1, 0, 2)             # (H, Tk, d_k)
    v = split(linear(key_rows, attention.w_v)).transpose(1, 0, 2)             # (H, Tk, d_k)
    allowed = np.asarray(trace.mask(kind)[query], bool)                        # (Tk,)
    scores = np.einsum("hd,htd->ht", q, k) / math.sqrt(d_k)                    # (H, Tk)
    scores = np.where(allowed, scores, -np.inf)
    weights, shifted = np.zeros_like(scores), np.zeros_like(scores)
    if allowed.any():
        shifted = np.exp(scores - scores.max(-1, keepdims=True))               # (H, Tk)
        weights = shifted / shifted.sum(-1, keepdims=True)
    heads = np.einsum("ht,htd->hd", weights, v)                                # (H, d_k)
    gate_tensor = edit.head_gate(kind, layer, n_heads)
    gate = np.ones(n_heads) if gate_tensor is None else gate_tensor.double().numpy()
    concat = (heads * gate[:, None]).reshape(-1)                               # (d_model,)
    output = linear(concat, attention.w_o)
    return AttentionAt(
        sublayer, x, mean, spread, normed, key_rows,
        Checked("queries q = … W_Q + b_Q", q, trace[f"{path}.queries"][:, query]),
        Checked("keys k = … W_K + b_K", k, trace[f"{path}.keys"]),
        Checked("values v = … W_V + b_V", v, trace[f"{path}.values"]),
        allowed,
        Checked("scores q·k/√d_k, masked", scores, trace[f"{path}.scores"][:, query]),
        Checked("weights (softmax of the row)", weights, trace[f"{path}.weights"][:, query]),
        Checked("head outputs Σ_j w_j v_j", heads, trace[f"{path}.heads"][:, query]),
        gate,
        Checked("heads concatenated", concat, trace[f"{path}.concat"][query]),
        Checked("output concat W^O + b", output, trace[f"{path}.output"][query]),
        _add(x, output, residual, trace[f"{sublayer.residual_path}.output"][query], "residual stream after"),
        shifted,
    )


def feed_forward_at(model: Transformer, trace: Trace, stack: str, layer: int, position: int) -> FeedForwardAt:
    sublayer = Sublayer(stack, layer, "feed_forward")
    network, residual = _module(model, sublayer), _residual_module(model, sublayer)
    x = stream_before(trace, sublayer)[position].astype(float)
    normed, _, _ = _read(x, residual, "what the sublayer reads",
                         trace[f"{sublayer.residual_path}.sublayer_input"][position])
    hidden = np.maximum(linear(normed.derived, network.expand), 0.0)          # (d_ff,)
    output = linear(hidden, network.contract)                                  # (d_model,)
    return FeedForwardAt(
        sublayer, x, normed,
        Checked("hidden ReLU(x W₁ + b₁)", hidden, trace[f"{sublayer.path}.hidden"][position]),
        Checked("output hidden W₂ + b₂", output, trace[f"{sublayer.path}.output"][position]),
        _add(x, output, residual, trace[f"{sublayer.residual_path}.output"][position], "residual stream after"),
    )


# --- The whole walk ------------------------------------------------------------------------------

@dataclass(frozen=True)
class NextStop:
    """Where the layer's output at this position goes: the next layer, or the stack's end."""

    description: str
    final: Checked | None = None     # the stack's final output at this position, when this was the last layer
    logits: Checked | None = None    # (V,) for the decoder's last layer


@dataclass(frozen=True)
class InsideHead:
    kind: Kind
    layer: int
    head: int
    query: int
    key: int
    d_k: int
    pre_norm: bool
    attention: AttentionAt
    rest: list[AttentionAt | FeedForwardAt]    # the sublayers after this one in the layer, at this position
    next_stop: NextStop
    products: np.ndarray = field(repr=False)   # (d_k,) q_i[d] · k_j[d], term by term

    @property
    def dot(self) -> float:
        return float(self.products.sum())

    @property
    def switched_off(self) -> bool:
        return not self.attention.gate[self.head]

    @property
    def checks(self) -> list[Checked]:
        return [check for _, check in self.checks_by_block]

    @property
    def checks_by_block(self) -> list[tuple[str, Checked]]:
        """Every check, with the sublayer (or the stack's end) it belongs to."""
        blocks = [self.attention, *self.rest]
        ends = [c for c in (self.next_stop.final, self.next_stop.logits) if c is not None]
        return ([(block.sublayer.title, check) for block in blocks for check in block.checks]
                + [("end of the stack", check) for check in ends])

    @property
    def largest_difference(self) -> float:
        """Over every check, relative to the number's size above 1 (see TOLERANCE)."""
        return max(c.scaled_difference for c in self.checks)


def inside_head(model: Transformer, trace: Trace, kind: Kind, layer: int, head: int, query: int, key: int,
                edit: Intervention = NO_INTERVENTION) -> InsideHead:
    """Every number behind weight (query, key) of one head, and what follows it at that position."""
    attention = attention_at(model, trace, kind, layer, query, edit)
    n_keys = attention.keys.derived.shape[1]
    if not 0 <= key < n_keys:
        raise IndexError(f"key position {key} outside 0..{n_keys - 1}")
    stack = "encoder" if kind == "encoder_self" else "decoder"
    rest: list[AttentionAt | FeedForwardAt] = []
    if kind == "decoder_self":
        rest.append(attention_at(model, trace, "cross", layer, query, edit))
    rest.append(feed_forward_at(model, trace, stack, layer, query))
    products = attention.queries.derived[head] * attention.keys.derived[head, key]
    return InsideHead(kind, layer, head, query, key, attention.keys.derived.shape[2], model.config.norm == "pre",
                      attention, rest, _next_stop(model, trace, stack, layer, query, rest[-1].residual.derived),
                      products)


def _next_stop(model: Transformer, trace: Trace, stack: str, layer: int, position: int,
               out: np.ndarray) -> NextStop:
    n_layers = model.config.n_encoder_layers if stack == "encoder" else model.config.n_decoder_layers
    if layer + 1 < n_layers:
        return NextStop(f"{stack} layer {layer + 1} reads it as its residual stream at position {position}")
    norm = model.encoder_norm if stack == "encoder" else model.decoder_norm
    normed = isinstance(norm, nn.LayerNorm)                       # pre-norm stacks end with one; post-norm do not
    final = layer_norm(out, norm)[0] if normed else out
    if stack == "encoder":
        return NextStop(("the encoder's final LayerNorm makes it" if normed else "it is")
                        + " the memory that every cross-attention reads",
                        Checked("encoder output (memory)", final, trace["encoder_norm.output"][position]))
    logits = final @ _array(model.generator.weight).T
    return NextStop(("the decoder's final LayerNorm, then the generator, make it" if normed else
                     "the generator makes it") + " the scores of the next token",
                    Checked("decoder output", final, trace["decoder_norm.output"][position]),
                    Checked("logits (generator)", logits, trace["generator.logits"][position]))


# --- What each sublayer writes, and what each key sends ------------------------------------------------

@dataclass(frozen=True)
class ResidualRow:
    step: str
    added: float        # ‖what the step wrote‖ (the input vectors themselves for the first row)
    stream: float       # ‖the stream after the step‖


def residual_norms(trace: Trace, stack: str, position: int) -> list[ResidualRow]:
    """The residual stream at one position, block by block: how big it is, and how much each block added."""
    first = trace["src_positions.output" if stack == "encoder" else "tgt_positions.output"][position]
    rows = [ResidualRow("embedding + position", float(np.linalg.norm(first)), float(np.linalg.norm(first)))]
    n_layers = trace.count(f"{stack}_layers.{{}}.feed_forward_residual.output")
    for layer in range(n_layers):
        for block in sublayers(stack, layer):
            rows.append(ResidualRow(block.title, float(np.linalg.norm(trace[f"{block.path}.output"][position])),
                                    float(np.linalg.norm(trace[f"{block.residual_path}.output"][position]))))
    return rows


def value_weighted(model: Transformer, trace: Trace, kind: Kind, layer: int,
                   edit: Intervention = NO_INTERVENTION) -> np.ndarray:
    """(H, Tq, Tk) ‖w_ij v_j W_O^h‖: how much key j actually sends into query i's output through head h
    (Kobayashi et al. 2020), zero for a switched-off head. w_ij ≥ 0, so it is w_ij ‖v_j W_O^h‖."""
    attention = _module(model, sublayer_of(kind, layer))
    weights, values = trace.attention(kind, layer), trace.attention(kind, layer, "values")   # (H,Tq,Tk), (H,Tk,d_k)
    n_heads, d_k = attention.n_heads, attention.d_k
    w_o = _array(attention.w_o.weight)                                                      # (d_model, d_model)
    sent = np.stack([values[h].astype(float) @ w_o[:, head_rows(h, d_k)].T for h in range(n_heads)])  # (H,Tk,d)
    gate = edit.head_gate(kind, layer, n_heads)
    gate = np.ones(n_heads) if gate is None else gate.double().numpy()
    return weights * np.linalg.norm(sent, axis=-1)[:, None, :] * gate[:, None, None]


# --- Logit lens ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class LogitLens:
    """What the generator would write if the decoder stopped after each layer (N layers, T steps)."""

    top_ids: np.ndarray        # (N, T)
    top_p: np.ndarray          # (N, T)
    correct_p: np.ndarray      # (N, T) probability of the correct token, NaN past the correct output's end
    last_difference: float     # the last layer's lens against the model's own logits


@torch.inference_mode()
def logit_lens(model: Transformer, trace: Trace, correct_ids: list[int]) -> LogitLens:
    streams = torch.from_numpy(np.array(trace.stack("decoder_layers.{}.feed_forward_residual.output")))  # (N,T,d)
    logits = model.generator(model.decoder_norm(streams))                                               # (N,T,V)
    probs = torch.softmax(logits, -1).numpy()
    n_layers, n_steps, _ = probs.shape
    correct = np.full((n_layers, n_steps), np.nan)
    steps = min(n_steps, len(correct_ids))
    correct[:, :steps] = probs[:, np.arange(steps), correct_ids[:steps]]
    last = float(np.abs(logits[-1].numpy() - trace["generator.logits"]).max())
    return LogitLens(probs.argmax(-1), probs.max(-1), correct, last)
