"""The attention lab: experiments that change one thing and measure what the model does differently.

Every function takes an Intervention (or builds one) and leaves the shared model untouched. Results
are numpy arrays and plain values, ready for a page or a test.
"""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass

import numpy as np
import torch
from sklearn.decomposition import PCA

from . import decoding
from .data import random_string
from .decoding import greedy_batch
from .intervention import NO_INTERVENTION, Head, Intervention, every_head
from .lesson import trace_weights
from .model import Transformer
from .trace import KINDS, Kind
from .vocab import EOS, SOS, Vocab

LONGEST_LAB_INPUT = 48  # twice the training length: far enough to fail, small enough for a shared server
IDEAL_PATTERN = {       # what a head would attend to if it did the obvious job for reversing
    "encoder_self": "itself (the diagonal)",
    "decoder_self": "the previous position",
    "cross": "the mirrored source position n−1−i (the anti-diagonal)",
}


def encode_for_lab(vocab: Vocab, text: str) -> list[int]:
    """Like vocab.encode, with the lab's longer limit (raises InputTooLongError beyond it)."""
    return vocab.encode(text, LONGEST_LAB_INPUT)


# --- Whole-sample measurements -------------------------------------------------------------------

def exact_match(model: Transformer, vocab: Vocab, texts: list[str], edit: Intervention = NO_INTERVENTION) -> float:
    """Share of words reversed exactly under an intervention. With shuffled positions words are batched by
    length, so padding never changes which positions the shuffle hands out."""
    groups: dict[int, list[str]] = defaultdict(list)
    for text in texts:
        groups[len(text) if edit.positions == "shuffle" else 0].append(text)
    right = 0
    for group in groups.values():
        outputs = greedy_batch(model, [encode_for_lab(vocab, t) for t in group], edit=edit)
        right += sum(vocab.decode(out) == text[::-1] for out, text in zip(outputs, group))
    return right / max(len(texts), 1)


@dataclass(frozen=True)
class HeadEffect:
    head: Head
    exact_match: float   # with this head alone switched off
    drop: float          # exact match with every head minus this


def ablation_ranking(model: Transformer, vocab: Vocab, texts: list[str]) -> tuple[float, list[HeadEffect]]:
    """Exact match with every head, and each head switched off alone, ranked by how much it hurts."""
    base = exact_match(model, vocab, texts)
    effects = []
    for head in every_head(model.config.layers_per_kind, model.config.n_heads):
        without = exact_match(model, vocab, texts, Intervention(ablated=frozenset({head})))
        effects.append(HeadEffect(head, without, base - without))
    return base, sorted(effects, key=lambda e: (-e.drop, e.head))


def ideal_keys(kind: Kind, n_queries: int, source_length: int) -> np.ndarray:
    """(n_queries,) the key each query would pick in the ideal pattern of its kind; -1 where none applies."""
    i = np.arange(n_queries)
    if kind == "encoder_self":
        return i
    if kind == "decoder_self":
        return np.maximum(i - 1, 0)
    mirrored = source_length - 1 - i  # cross: output step i copies source n-1-i; the end step has none
    return np.where(mirrored >= 0, mirrored, -1)


@dataclass(frozen=True)
class HeadPattern:
    head: Head
    score: float     # mean weight a query puts on its ideal key, 0..1
    entropy: float   # mean entropy of a query's row, in nats (0 = all on one key; ln n = spread evenly)


@torch.inference_mode()
def pattern_scores(model: Transformer, vocab: Vocab, texts: list[str]) -> list[HeadPattern]:
    """Every head scored against the ideal pattern of its kind on a sample of words, best first.
    The decoder reads the correct reversal (teacher forcing), so every word gives full rows."""
    totals: dict[Head, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])  # score sum, entropy sum, rows
    for text in texts:
        src = encode_for_lab(vocab, text)
        tgt = [SOS, *vocab.encode(text[::-1], LONGEST_LAB_INPUT)]
        trace = model(torch.tensor([src]), torch.tensor([tgt]), trace=True).trace
        for kind in KINDS:
            for layer, weights in enumerate(getattr(trace, kind)):
                w = weights[0].double().numpy()                            # (H, Tq, Tk)
                keys = ideal_keys(kind, w.shape[1], len(src))
                rows = np.flatnonzero(keys >= 0)
                on_ideal = w[:, rows, keys[rows]]                          # (H, rows)
                entropy = -(w * np.log(np.where(w > 0, w, 1))).sum(-1)     # (H, Tq)
                for h in range(w.shape[0]):
                    t = totals[Head(kind, layer, h)]
                    t[0] += on_ideal[h].sum()
                    t[1] += entropy[h, rows].sum()
                    t[2] += len(rows)
    patterns = [HeadPattern(head, s / n, e / n) for head, (s, e, n) in totals.items()]
    return sorted(patterns, key=lambda p: (-p.score, p.head))


# --- One word, before and after --------------------------------------------------------------------

@dataclass(frozen=True)
class WordRun:
    """One word under one intervention: its free-running output, and the correct reversal fed in."""

    output: str                        # greedy decoding, the model's own tokens
    p_correct: np.ndarray              # (n + 1,) probability of the correct next character (then EOS) per step,
                                       #          the decoder reading the correct prefix (teacher forcing)
    weights: dict[str, np.ndarray]     # kind -> (L, H, Tq, Tk) attention with the correct prefix fed in


@torch.inference_mode()
def run_word(model: Transformer, vocab: Vocab, text: str, edit: Intervention = NO_INTERVENTION) -> WordRun:
    src = encode_for_lab(vocab, text)
    gold = vocab.encode(text[::-1], LONGEST_LAB_INPUT) + [EOS]
    logits, trace = model(torch.tensor([src]), torch.tensor([[SOS, *gold[:-1]]]), trace=True, edit=edit)
    probs = torch.softmax(logits[0], -1)                                           # (n + 1, vocab)
    return WordRun(
        output=vocab.decode(decoding.generate(model, src, edit=edit)),
        p_correct=probs[torch.arange(len(gold)), torch.tensor(gold)].numpy(),
        weights=trace_weights(trace),
    )


@dataclass(frozen=True)
class ForcingComparison:
    """Teacher forcing (the correct prefix fed in) against free running (the model's own prefix)."""

    correct: list[int]           # the correct reversal, then EOS
    forced_choice: list[int]     # teacher forcing: the model's pick at each step given the correct prefix
    free_input: list[list[int]]  # free running: the prefix each step read (after SOS)
    free_choice: list[int]       # free running: the model's pick at each step
    fed: list[int]               # free running: the token actually fed onward (a learner may overrule one)
    first_divergence: int | None  # first step whose free-running prefix differs from the correct one
    free_cross: np.ndarray       # (L, H, T, S) cross-attention of every free-running step (the last step's pass
                                 #               holds every row: each row sees only its own prefix)


@torch.inference_mode()
def teacher_forcing_vs_free_running(
    model: Transformer, vocab: Vocab, text: str, forced: dict[int, int] | None = None,
    edit: Intervention = NO_INTERVENTION,
) -> ForcingComparison:
    src = encode_for_lab(vocab, text)
    correct = vocab.encode(text[::-1], LONGEST_LAB_INPUT) + [EOS]
    logits = model(torch.tensor([src]), torch.tensor([[SOS, *correct[:-1]]]), edit=edit).logits[0]  # (n+1, V)
    steps = decoding.steps(model, src, edit=edit, forced=forced)
    fed = [(forced or {}).get(t, s.token) for t, s in enumerate(steps)]
    free_input = [list(s.decoder_input[1:]) for s in steps]
    divergence = next((t for t, prefix in enumerate(free_input) if prefix != correct[:t]), None)
    return ForcingComparison(correct, logits.argmax(-1).tolist(), free_input, [s.token for s in steps], fed,
                             divergence, trace_weights(steps[-1].trace)["cross"])


# --- Beyond the training length ------------------------------------------------------------------

def exact_match_by_length(
    model: Transformer, vocab: Vocab, lengths: list[int], per_length: int, seed: int = 0,
) -> dict[int, float]:
    """Exact match of random strings of each length, including lengths the model never trained on."""
    rng = random.Random(seed)
    result = {}
    for n in lengths:
        if not 1 <= n <= LONGEST_LAB_INPUT:
            raise ValueError(f"length {n} is outside 1..{LONGEST_LAB_INPUT}")
        texts = [random_string(rng, n) for _ in range(per_length)]
        result[n] = exact_match(model, vocab, texts)
    return result


# --- Queries and keys ----------------------------------------------------------------------------

@dataclass(frozen=True)
class QueryKeyMap:
    query_xy: np.ndarray        # (Tq, 2) each query position, projected
    key_xy: np.ndarray          # (Tk, 2) each key position, projected into the same plane
    explained: np.ndarray       # (2,) share of the variance each axis keeps
    weights: np.ndarray         # (Tq, Tk) the head's attention, for reference


@torch.inference_mode()
def query_key_map(model: Transformer, vocab: Vocab, text: str, kind: Kind, layer: int, head: int) -> QueryKeyMap:
    """One head's query and key vectors projected together to 2D with PCA, for the greedy decoding of the text."""
    src = encode_for_lab(vocab, text)
    tgt = [SOS, *decoding.generate(model, src)]
    trace = model(torch.tensor([src]), torch.tensor([tgt]), trace=True).trace
    q = trace.queries[kind][layer][0, head].double().numpy()   # (Tq, d_k)
    k = trace.keys[kind][layer][0, head].double().numpy()      # (Tk, d_k)
    pca = PCA(n_components=2, random_state=0).fit(np.concatenate([q, k]))
    return QueryKeyMap(pca.transform(q), pca.transform(k), pca.explained_variance_ratio_,
                       trace[kind, layer][0, head].numpy())
