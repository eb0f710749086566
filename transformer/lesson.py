"""The numbers the pages show, computed from the model and returned as numpy arrays.

Each function runs the model once for a learner's input and packs what a page needs, so the app
caches plain values and never holds tensors. Labels keep positions so repeated letters stay apart.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from . import decoding
from .data import pad
from .decoding import greedy_batch
from .model import Transformer
from .trace import KINDS, Trace
from .vocab import SOS, Vocab

COMPANIONS = (  # batch partners for the masks page, so the learner's word sits among padded rows
    "softmax", "residual", "layer norm", "attention", "feed forward", "encoder decoder",
    "query key value", "positional encoding", "multi head attention", "scaled dot product",
)


SOS_LABEL, EOS_LABEL, PAD_LABEL, SPACE_LABEL = "⟨s⟩", "⟨/s⟩", "·", "␣"


def token_label(vocab: Vocab, token_id: int) -> str:
    """A short printable label. Angle brackets are the Unicode ones: '<s>' would be read as HTML by plotly."""
    token = vocab.token(token_id)
    return {"<sos>": SOS_LABEL, "<eos>": EOS_LABEL, "<pad>": PAD_LABEL, " ": SPACE_LABEL}.get(token, token)


@dataclass(frozen=True)
class DecodingRun:
    """Every step of one decoding of one source."""

    source: list[str]            # S source character labels
    output: str                  # the decoded text (before EOS)
    token_ids: list[int]         # n_steps chosen token ids (the last may be EOS)
    chosen: list[str]            # n_steps labels of the chosen tokens
    decoder_inputs: list[list[str]]  # per step: SOS + tokens so far, as labels
    logits: np.ndarray           # (n_steps, vocab) raw scores at each step
    probs: np.ndarray            # (n_steps, vocab) the distribution each token was chosen from
    cross_rows: np.ndarray       # (n_steps, L, H, S) the step's cross-attention row over the source
    self_rows: np.ndarray        # (n_steps, L, H, n_steps) the step's self-attention row; future = 0


def run_decoding(
    model: Transformer, vocab: Vocab, text: str,
    temperature: float | None = None, top_k: int | None = None, seed: int = 0,
) -> DecodingRun:
    src = vocab.encode(text, model.config.max_len)
    trail = decoding.steps(model, src, temperature, top_k, seed)
    n = len(trail)
    c = model.config
    cross = np.zeros((n, c.n_decoder_layers, c.n_heads, len(src)), dtype=np.float32)
    self_rows = np.zeros((n, c.n_decoder_layers, c.n_heads, n), dtype=np.float32)
    for t, s in enumerate(trail):
        for layer in range(c.n_decoder_layers):
            cross[t, layer] = s.trace["cross", layer][0, :, -1].numpy()             # (H, S)
            self_rows[t, layer, :, : t + 1] = s.trace["decoder_self", layer][0, :, -1].numpy()  # (H, t+1)
    tokens = [s.token for s in trail]
    return DecodingRun(
        source=[token_label(vocab, i) for i in src],
        output=vocab.decode(tokens),
        token_ids=tokens,
        chosen=[token_label(vocab, t) for t in tokens],
        decoder_inputs=[[token_label(vocab, i) for i in s.decoder_input] for s in trail],
        logits=np.stack([s.logits.numpy() for s in trail]),
        probs=np.stack([s.probs.numpy() for s in trail]),
        cross_rows=cross,
        self_rows=self_rows,
    )


@dataclass(frozen=True)
class AttentionRun:
    """All attention of one forward pass over a source and the model's own greedy output."""

    source: list[str]            # S labels
    decoder_in: list[str]        # T labels: SOS + output characters (what each decoder position reads)
    decoder_out: list[str]       # T labels: what each decoder position writes (output characters + EOS)
    output: str
    weights: dict[str, np.ndarray]  # kind -> (L, H, Tq, Tk)
    scores: dict[str, np.ndarray]   # kind -> (L, H, Tq, Tk), -inf where masked
    masks: dict[str, np.ndarray]    # kind -> (Tq, Tk) bool, True = may attend
    d_k: int


def trace_weights(trace: Trace) -> dict[str, np.ndarray]:
    """kind -> (L, H, Tq, Tk) attention weights of the first (only) batch row, as numpy."""
    return {k: np.stack([w[0].numpy() for w in getattr(trace, k)]) for k in KINDS}


def run_attention(model: Transformer, vocab: Vocab, text: str) -> AttentionRun:
    src = vocab.encode(text, model.config.max_len)
    out = decoding.generate(model, src)
    tgt = [SOS, *out]
    with torch.inference_mode():
        logits, trace = model(torch.tensor([src]), torch.tensor([tgt]), trace=True)
    written = logits[0].argmax(-1).tolist()  # what each position writes (greedy: out, then EOS)
    return AttentionRun(
        source=[token_label(vocab, i) for i in src],
        decoder_in=[token_label(vocab, i) for i in tgt],
        decoder_out=[token_label(vocab, i) for i in written],
        output=vocab.decode(out),
        weights=trace_weights(trace),
        scores={k: np.stack([trace.scores(k, layer)[0].numpy() for layer in range(len(getattr(trace, k)))])
                for k in KINDS},
        masks={k: trace.mask(k)[0, 0].numpy() for k in KINDS},
        d_k=model.config.d_k,
    )


def companions(text: str, max_len: int, count: int = 2) -> list[str]:
    """Batch partners longer than the text where possible, so the text's own row gets real padding."""
    fitting = [w for w in COMPANIONS if len(w) <= max_len and w != text]
    longer = sorted((w for w in fitting if len(w) > len(text)), key=len)
    shorter = sorted((w for w in fitting if len(w) <= len(text)), key=len, reverse=True)
    return (longer + shorter)[:count]


@dataclass(frozen=True)
class BatchRun:
    """A padded batch: the learner's text first, then its partners."""

    texts: list[str]
    source: list[list[str]]          # B rows of S labels (· for PAD)
    decoder_in: list[list[str]]      # B rows of T labels
    src_mask: np.ndarray             # (B, S) True = real token
    tgt_mask: np.ndarray             # (B, T, T) causal AND padding
    weights: dict[str, np.ndarray]   # kind -> (B, L, H, Tq, Tk)
    scores: dict[str, np.ndarray]    # kind -> (B, L, H, Tq, Tk)
    d_k: int


def run_batch(model: Transformer, vocab: Vocab, texts: list[str]) -> BatchRun:
    sources = [vocab.encode(t, model.config.max_len) for t in texts]
    outputs = greedy_batch(model, sources)
    src, tgt = pad(sources), pad([[SOS, *o] for o in outputs])  # (B, S), (B, T)
    with torch.inference_mode():
        _, trace = model(src, tgt, trace=True)
    layers = {k: len(getattr(trace, k)) for k in KINDS}
    return BatchRun(
        texts=list(texts),
        source=[[token_label(vocab, i) for i in row] for row in src.tolist()],
        decoder_in=[[token_label(vocab, i) for i in row] for row in tgt.tolist()],
        src_mask=trace.src_mask[:, 0, 0].numpy(),
        tgt_mask=trace.tgt_mask[:, 0].numpy(),
        weights={k: np.stack([trace.weights(k, layer).numpy() for layer in range(layers[k])], 1) for k in KINDS},
        scores={k: np.stack([trace.scores(k, layer).numpy() for layer in range(layers[k])], 1) for k in KINDS},
        d_k=model.config.d_k,
    )


def softmax_with_and_without_scaling(scaled_scores: np.ndarray, d_k: int) -> tuple[np.ndarray, np.ndarray]:
    """One row of scaled scores (masked = -inf) -> (softmax of QK^T/sqrt(d_k), softmax of raw QK^T)."""
    scaled = torch.from_numpy(np.asarray(scaled_scores, dtype=np.float64))
    if not torch.isfinite(scaled).any():  # a padded query: every key masked, so it attends to nothing
        return np.zeros(scaled.shape), np.zeros(scaled.shape)
    raw = scaled * math.sqrt(d_k)
    return torch.softmax(scaled, -1).numpy(), torch.softmax(raw, -1).numpy()


@dataclass(frozen=True)
class InputVectors:
    source: list[str]
    embedding_norm: np.ndarray        # (S,) ||embedding * sqrt(d_model)||
    raw_embedding_norm: np.ndarray    # (S,) ||embedding|| before scaling
    position_norm: np.ndarray         # (S,) ||PE(pos)|| = sqrt(d_model / 2)
    positions: np.ndarray             # (S, d_model) the encoding added to each source position
    encoder_input: np.ndarray         # (S, d_model) scaled embedding + PE: what the first layer reads


def run_input_vectors(model: Transformer, vocab: Vocab, text: str) -> InputVectors:
    src = torch.tensor([vocab.encode(text, model.config.max_len)])
    with torch.inference_mode():
        scaled = model.src_embed(src)[0]                    # (S, d_model)
        pe = model.positions.encoding(src.size(1))          # (S, d_model)
    return InputVectors(
        source=[token_label(vocab, i) for i in src[0].tolist()],
        embedding_norm=scaled.norm(dim=1).numpy(),
        raw_embedding_norm=(scaled / model.src_embed.scale).norm(dim=1).numpy(),
        position_norm=pe.norm(dim=1).numpy(),
        positions=pe.numpy().copy(),
        encoder_input=(scaled + pe).numpy(),
    )

