"""What makes a head's score (its QK circuit split into content and position) and what its value path writes
(its OV circuit, letter in -> logit out), from the model's weights and one traced run.

The split. A pre-norm head reads LN(x), and x, the residual stream, is a sum: the scaled token embedding
(content), the positional code (position), and whatever earlier sublayers wrote (nothing at a layer-0
self-attention). With the LayerNorm frozen at the run's own mean and spread at each position, LN is linear
in x, so LN(x) = Σ_part γ⊙(part − mean(part))/σ + β, and q and k split the same way (the bias part of q is
β W_Q + b_Q, and likewise for k). Every score q·k/√d_k is then a sum of products of a query part and a key
part, grouped into TERMS below; they add up to the model's own score to float precision.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from torch import nn

from transformer.model import Transformer
from transformer.trace import Kind, Trace
from transformer.vocab import SPECIALS, Vocab

from .inside import _array, _module, _residual_module, head_rows, stream_before, sublayer_of
from .labels import token_label

CONTENT, POSITION, WRITTEN, BIAS = "content", "position", "written", "bias"
# The groups every score splits into, named query part · key part.
CONTENT_CONTENT, CONTENT_POSITION = "content·content", "content·position"
POSITION_CONTENT, POSITION_POSITION = "position·content", "position·position"
WITH_WRITTEN, BIASES = "with what layers wrote", "biases"
TERMS = (CONTENT_CONTENT, CONTENT_POSITION, POSITION_CONTENT, POSITION_POSITION, WITH_WRITTEN, BIASES)
FOUR = TERMS[:4]


class SplitUnavailable(ValueError):
    """The stream cannot be split linearly into content and position for this head; the message says why."""


@dataclass(frozen=True)
class ScoreSplit:
    """One head's scores q·k/√d_k (after the division by √d_k, before the mask), split into TERMS."""

    kind: Kind
    layer: int
    head: int
    terms: dict[str, np.ndarray]   # term -> (Tq, Tk); they sum to the score
    allowed: np.ndarray            # (Tq, Tk) True = may attend (the mask the model applies afterwards)
    written: bool                  # True when the streams carry what earlier sublayers wrote

    @property
    def score(self) -> np.ndarray:
        return sum(self.terms.values())                                    # (Tq, Tk)

    def at(self, query: int, key: int) -> dict[str, float]:
        return {name: float(term[query, key]) for name, term in self.terms.items()}

    def centred(self, name: str) -> np.ndarray:
        """(Tq, Tk) the term minus its row's mean over the keys the query may attend to, NaN where masked:
        softmax ignores a constant added to a whole row, so only this part can move the weights."""
        term = np.where(self.allowed, self.terms[name], np.nan)
        with np.errstate(invalid="ignore"):
            mean = np.nanmean(term, axis=1, keepdims=True)                 # a row with no key: NaN, ignored
        return term - mean

    def shares(self) -> dict[str, float]:
        """Each term's share of what moves the scores between keys: Σ|row-centred term| over the allowed cells,
        over the same summed for every term. NaN when no row has two keys (nothing to move)."""
        sizes = {name: float(np.nansum(np.abs(self.centred(name)))) for name in self.terms}
        total = sum(sizes.values())
        return {name: size / total if total > 0 else math.nan for name, size in sizes.items()}


def _parts(trace: Trace, side: str, stream: np.ndarray) -> dict[str, np.ndarray]:
    """(L, d_model) each: a stream split into the scaled embedding, the positional rows and the rest."""
    name = "src" if side == "source" else "tgt"
    content = trace[f"{name}_embed.output"].astype(float)
    position = trace[f"{name}_positions.rows"].astype(float)
    return {CONTENT: content, POSITION: position, WRITTEN: stream - content - position}


def _frozen_norm(parts: dict[str, np.ndarray], stream: np.ndarray, norm: nn.Module | None) -> dict[str, np.ndarray]:
    """LN(stream) as a sum of parts, with the LayerNorm's mean and spread taken from the whole stream; without
    a LayerNorm (None, or a post-norm model's Identity), the stream as it is."""
    if not isinstance(norm, nn.LayerNorm):
        return {**parts, BIAS: np.zeros(stream.shape[-1])}
    spread = np.sqrt(stream.var(-1, keepdims=True) + norm.eps)          # (L, 1), the biased variance as LN uses
    gain = _array(norm.weight)
    normed = {name: gain * (part - part.mean(-1, keepdims=True)) / spread for name, part in parts.items()}
    return {**normed, BIAS: _array(norm.bias)}


def _project(parts: dict[str, np.ndarray], layer: nn.Linear, rows: slice) -> dict[str, np.ndarray]:
    """Each part through one head's rows of a Linear layer; the layer's bias joins the bias part."""
    weight = _array(layer.weight)[rows]                                 # (d_k, d_model)
    out = {name: part @ weight.T for name, part in parts.items()}
    out[BIAS] = out[BIAS] + _array(layer.bias)[rows]
    return out


def _group(query_part: str, key_part: str) -> str:
    if WRITTEN in (query_part, key_part):
        return WITH_WRITTEN
    if BIAS in (query_part, key_part):
        return BIASES
    return f"{query_part}·{key_part}"


def score_split(model: Transformer, trace: Trace, kind: Kind, layer: int, head: int) -> ScoreSplit:
    """Split every score of one head into TERMS (see the module's docstring). For cross-attention the keys come
    from the encoder's output, whose stream holds the source embedding, its positions and what the encoder's
    sublayers wrote, read through the encoder's final LayerNorm."""
    pre_norm = model.config.norm == "pre"
    if not pre_norm and not (layer == 0 and kind != "cross"):
        raise SplitUnavailable("This post-norm model normalises the stream after every sublayer, so past the "
                               "first self-attention its input is no longer a sum of embedding and position.")
    sublayer = sublayer_of(kind, layer)
    attention, residual = _module(model, sublayer), _residual_module(model, sublayer)
    rows = head_rows(head, attention.d_k)
    stream = stream_before(trace, sublayer).astype(float)                               # (Tq, d_model)
    query_side = _frozen_norm(_parts(trace, "source" if kind == "encoder_self" else "target", stream), stream,
                              residual.norm if pre_norm else None)
    if kind == "cross":
        n_encoder = model.config.n_encoder_layers
        memory_stream = trace[f"encoder_layers.{n_encoder - 1}.feed_forward_residual.output"].astype(float)
        key_side = _frozen_norm(_parts(trace, "source", memory_stream), memory_stream, model.encoder_norm)
    else:
        key_side = query_side
    q = _project(query_side, attention.w_q, rows)                                       # part -> (Tq, d_k)
    k = _project(key_side, attention.w_k, rows)                                         # part -> (Tk, d_k)
    written = layer > 0 or kind == "cross"
    scale = math.sqrt(attention.d_k)
    terms = {name: 0.0 for name in TERMS}
    for a, qa in q.items():
        for b, kb in k.items():
            if not written and WRITTEN in (a, b):
                continue                     # the float32 rounding of e + p, not a part of the stream
            terms[_group(a, b)] = terms[_group(a, b)] + np.atleast_2d(qa) @ np.atleast_2d(kb).T / scale
    shape = (stream.shape[0], k[CONTENT].shape[0])
    terms = {name: np.broadcast_to(term, shape).copy() for name, term in terms.items()
             if written or name != WITH_WRITTEN}
    allowed = np.asarray(trace.mask(kind), bool)
    return ScoreSplit(kind, layer, head, terms, allowed, written)


def sharpest_head(trace: Trace, kind: Kind, layer: int) -> int:
    """The head of one layer whose rows put the most weight on a single key, on average (its mean top weight)."""
    weights = np.asarray(trace[kind, layer], float)                                     # (H, Tq, Tk)
    return int(weights.max(-1).mean(-1).argmax())


# --- What a cross head copies: letter in -> logit out ---------------------------------------------------

@dataclass(frozen=True)
class LetterMap:
    """(C, C) over the C characters: the logit each output character gets when a head's whole weight sits on a
    source position holding the input character, along the direct path (the layers after the head skipped)."""

    layer: int
    head: int
    letters: list[str]        # (C,) labels, '␣' for the space
    logits: np.ndarray        # (C in, C out)
    normed: bool              # True when the two final LayerNorms were applied (frozen); False for post-norm

    @property
    def top(self) -> np.ndarray:
        return self.logits.argmax(-1)                                                   # (C,)

    @property
    def copies(self) -> int:
        """On how many input characters the top logit is the character itself."""
        return int((self.top == np.arange(len(self.letters))).sum())


def _frozen_gain(stream: np.ndarray, norm: nn.Module) -> np.ndarray:
    """(d_model,) a LayerNorm's gain over the stream's mean spread, γ/σ̄; ones where there is no LayerNorm."""
    if not isinstance(norm, nn.LayerNorm):
        return np.ones(stream.shape[-1])
    return _array(norm.weight) / float(np.sqrt(stream.var(-1) + norm.eps).mean())


def letter_map(model: Transformer, trace: Trace, vocab: Vocab, layer: int, head: int) -> LetterMap:
    """A cross-attention head's OV circuit on the characters, without position: each character's scaled
    embedding alone, centred and scaled by the encoder's final LayerNorm (frozen at its mean spread over this
    run's source positions), through the head's W_V and W_O, then centred and scaled by the decoder's final
    LayerNorm (frozen likewise over this run's steps) and the generator. The biases (β, b_V, b_O) are left out:
    they add the same to every row, whatever the letter."""
    attention = _module(model, sublayer_of("cross", layer))
    rows = head_rows(head, attention.d_k)
    ids = np.arange(len(SPECIALS), vocab.size)
    embedding = _array(model.src_embed.lookup.weight)[ids] * model.src_embed.scale          # (C, d_model)
    n_encoder, n_decoder = model.config.n_encoder_layers, model.config.n_decoder_layers
    encoder_stream = trace[f"encoder_layers.{n_encoder - 1}.feed_forward_residual.output"].astype(float)
    decoder_stream = trace[f"decoder_layers.{n_decoder - 1}.feed_forward_residual.output"].astype(float)
    gain_in = _frozen_gain(encoder_stream, model.encoder_norm)
    gain_out = _frozen_gain(decoder_stream, model.decoder_norm)
    normed = isinstance(model.decoder_norm, nn.LayerNorm)
    centre = (lambda x: x - x.mean(-1, keepdims=True)) if normed else (lambda x: x)
    memory = centre(embedding) * gain_in                                                    # (C, d_model)
    values = memory @ _array(attention.w_v.weight)[rows].T                                  # (C, d_k)
    written = values @ _array(attention.w_o.weight)[:, rows].T                              # (C, d_model)
    final = centre(written) * gain_out                                                      # (C, d_model)
    logits = final @ _array(model.generator.weight)[ids].T                                  # (C, C)
    letters = [token_label(vocab, int(i)) for i in ids]
    return LetterMap(layer, head, letters, logits, normed)
