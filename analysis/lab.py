"""The attention lab: experiments that change one thing and measure what the model does differently.

Every function takes an Intervention (or builds one) and leaves the shared model untouched. Results
are numpy arrays and plain values, ready for a page or a test.
"""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass
from typing import Callable

import numpy as np
import torch

from transformer.data import expected_grid, random_string, target
from transformer.intervention import NO_INTERVENTION, Head, Intervention, every_head
from transformer.metrics import exact_match
from transformer.model import Transformer
from transformer.task_rules import LATIN
from transformer.trace import KINDS, Kind, Trace
from transformer.vocab import SOS, Vocab

from .run import TEACHER, Run, correct_tokens, make_run

EVEN_UNIFORMITY = 0.9  # from this uniformity on, a head counts as spreading its weight evenly
HYPOTHESES = {  # a guess per kind at what a head would attend to if it did an obvious part of the task
    "encoder_self": "itself (the diagonal): a guess that adds nothing the residual stream does not already carry",
    "decoder_self": "the previous position: a guess",
    "cross": "the source position the task copies from ({pattern}): what writing the output needs",
}


Progress = Callable[[float], None] | None  # told the share of the work done; may raise to stop the work


def report(progress: Progress, share: float) -> None:
    if progress is not None:
        progress(share)


def lab_limit(model: Transformer) -> int:
    """The lab reads up to twice the length the model was trained on: far enough to fail."""
    return min(2 * model.config.max_len, model.config.max_positions)


def encode_for_lab(vocab: Vocab, text: str, limit: int) -> list[int]:
    """Like vocab.encode, with the lab's longer limit (raises InputTooLongError beyond it)."""
    return vocab.encode(text, limit)


# --- Whole-sample measurements -------------------------------------------------------------------

@dataclass(frozen=True)
class HeadEffect:
    head: Head
    exact_match: float   # with this head alone switched off
    drop: float          # exact match with every head minus this


def ablation_ranking(model: Transformer, vocab: Vocab, texts: list[str], task: str = "reverse",
                     progress: Progress = None) -> tuple[float, list[HeadEffect]]:
    """Exact match with every head, and each head switched off alone, ranked by how much it hurts."""
    heads = every_head(model.config.layers_per_kind, model.config.n_heads)
    report(progress, 0.0)
    base = exact_match(model, vocab, texts, task=task).exact_match
    effects = []
    for done, head in enumerate(heads):
        report(progress, (done + 1) / (len(heads) + 1))
        edit = Intervention(ablated=frozenset({head}))
        without = exact_match(model, vocab, texts, edit, task=task).exact_match
        effects.append(HeadEffect(head, without, base - without))
    return base, sorted(effects, key=lambda e: (-e.drop, e.head))


def ideal_keys(kind: Kind, n_queries: int, text: str, task: str = "reverse", letters: str = LATIN) -> np.ndarray:
    """(n_queries, n_keys) bool: the keys each query would attend to under its kind's hypothesis; a row with
    none is not scored (decoder row 0 can only attend to ⟨s⟩, so it matches by force; the end step copies
    nothing). Cross-attention's keys come from the task (data.expected_keys: for sort, any equal character)."""
    if kind == "encoder_self":
        return np.eye(n_queries, dtype=bool)
    if kind == "decoder_self":
        return np.eye(n_queries, k=-1, dtype=bool)
    return expected_grid([text], task, n_queries, len(text), letters)[0].numpy()


def teacher_forced_trace(model: Transformer, vocab: Vocab, text: str, task: str = "reverse",
                         edit: Intervention = NO_INTERVENTION) -> Trace:
    """One word's traced pass with the task's correct output fed to the decoder (batch of one), so every word
    gives full rows whatever the model would have written."""
    limit = lab_limit(model)
    src = encode_for_lab(vocab, text, limit)
    tgt = [SOS, *correct_tokens(vocab, text, limit, task)[:-1]]
    return model(torch.tensor([src]), torch.tensor([tgt]), trace=True, edit=edit).trace


@dataclass(frozen=True)
class HeadPattern:
    head: Head
    score: float       # mean weight a query puts on the key its kind's hypothesis names, 0..1
    chance: float      # the same for a head spreading its weight evenly: the mean of 1 / (keys the query may see)
    entropy: float     # mean entropy of a query's row, in nats (0 = all on one key)
    uniformity: float  # mean entropy / ln(keys the query may see): 1 = spread evenly, 0 = all on one key


@torch.inference_mode()
def pattern_scores(model: Transformer, vocab: Vocab, texts: list[str], task: str = "reverse",
                   progress: Progress = None) -> list[HeadPattern]:
    """Every head scored against its kind's hypothesis on a sample of words, best first. The decoder reads the
    task's correct output (teacher forcing), so every word gives full rows."""
    totals: dict[Head, np.ndarray] = defaultdict(lambda: np.zeros(5))  # score, chance, entropy, uniformity, rows
    for done, text in enumerate(texts):
        report(progress, done / len(texts))
        trace = teacher_forced_trace(model, vocab, text, task)
        for kind in KINDS:
            allowed = trace.mask(kind)[0].sum(-1).double().numpy()           # (Tq,) keys each query may see
            for layer, weights in enumerate(trace.stack_attention(kind)):
                w = weights[0].double().numpy()                            # (H, Tq, Tk)
                ideal = ideal_keys(kind, w.shape[1], text, task, vocab.letters)   # (Tq, Tk)
                rows = np.flatnonzero(ideal.any(-1))
                on_ideal = (w * ideal)[:, rows].sum(-1)                    # (H, rows) weight on the ideal keys
                entropy = -(w * np.log(np.where(w > 0, w, 1))).sum(-1)     # (H, Tq)
                spread = entropy[:, rows] / np.log(np.maximum(allowed[rows], 2))
                for h in range(w.shape[0]):
                    totals[Head(kind, layer, h)] += [on_ideal[h].sum(), (ideal[rows].sum(-1) / allowed[rows]).sum(),
                                                     entropy[h, rows].sum(), spread[h].sum(), len(rows)]
    patterns = [HeadPattern(head, s / n, c / n, e / n, u / n) for head, (s, c, e, u, n) in totals.items()]
    return sorted(patterns, key=lambda p: (-p.score, p.head))


def rank_correlation(patterns: list[HeadPattern], drop: dict[Head, float]) -> float | None:
    """Spearman ρ between hypothesis score and exact match lost over these heads (None where undefined)."""
    return score_correlation({p.head: p.score for p in patterns}, drop)


def score_correlation(by_head: dict[Head, float], drop: dict[Head, float]) -> float | None:
    """Spearman ρ between any per-head score and exact match lost over these heads (None where undefined)."""
    scores, harms = list(by_head.values()), [drop[h] for h in by_head]
    from scipy.stats import spearmanr          # here: SciPy takes a large part of a second to import
    defined = len(scores) > 2 and len(set(scores)) > 1 and len(set(harms)) > 1
    return float(spearmanr(scores, harms).statistic) if defined else None


def rank_agreement(patterns: list[HeadPattern], drop: dict[Head, float]) -> dict[Kind, float | None]:
    """Per attention kind, rank_correlation of its heads: the kinds are scored against different hypotheses."""
    return {kind: rank_correlation([p for p in patterns if p.head.kind == kind], drop) for kind in KINDS}


def correlation_words(rho: float | None) -> str:
    """How two rankings with Spearman ρ relate, in words that never say more than the number: below 0.3 in
    size they are called barely related, from 0.7 they agree (or run opposite), in between they do so in part."""
    if rho is None:
        return "cannot be compared (ρ is undefined)"
    if abs(rho) < 0.3:
        return "are barely related"
    verb = "agree" if rho > 0 else "run opposite"
    return verb if abs(rho) >= 0.7 else f"{verb} in part"


# --- Teacher forcing against free running ---------------------------------------------------------

def first_divergence(teacher: Run, free: Run) -> int | None:
    """The first step whose free-running input differs from the correct one read under teacher forcing."""
    correct, fed = teacher.decoder_in_ids, free.decoder_in_ids
    return next((t for t in range(len(fed)) if fed[: t + 1] != correct[: t + 1]), None)


# --- Beyond the training length ------------------------------------------------------------------

def exact_match_by_length(
    model: Transformer, vocab: Vocab, lengths: list[int], per_length: int, seed: int = 0, task: str = "reverse",
    progress: Progress = None,
) -> dict[int, float]:
    """Exact match of random strings of each length, including lengths the model never trained on."""
    rng = random.Random(seed)
    limit = lab_limit(model)
    result = {}
    for done, n in enumerate(lengths):
        report(progress, done / len(lengths))
        if not 1 <= n <= limit:
            raise ValueError(f"length {n} is outside 1..{limit}")
        texts = [random_string(rng, n, letters=vocab.letters) for _ in range(per_length)]
        result[n] = exact_match(model, vocab, texts, max_len=limit, task=task).exact_match
    return result


def first_difference(written: str, want: str) -> int:
    """The first step where the output differs from the target (one writes a character where the other ends)."""
    return next(i for i in range(max(len(written), len(want)) + 1)
                if i >= len(written) or i >= len(want) or written[i] != want[i])


@dataclass(frozen=True)
class FirstFailure:
    length: int
    exact: float              # share of strings whose whole output is the task's target
    wrong_at_step_0: float    # share whose first wrong character is the very first one
    first_wrong: float | None  # median step of the first wrong character, over the strings that went wrong
    p_step_0: float           # mean p(correct first character), the decoder reading only ⟨s⟩


def first_failures(model: Transformer, vocab: Vocab, lengths: list[int], per_length: int,
                   seed: int = 0, task: str = "reverse", progress: Progress = None) -> list[FirstFailure]:
    """Where the output first goes wrong, for random strings of each length (with the model's own output),
    and how sure the first step is of the right character."""
    rng = random.Random(seed)
    limit = lab_limit(model)
    rows = []
    for done, n in enumerate(lengths):
        report(progress, done / len(lengths))
        firsts, p0, exact = [], [], 0
        for _ in range(per_length):
            text = random_string(rng, n, letters=vocab.letters)
            written, want = (make_run(model, vocab, text, max_len=limit, task=task).output,
                             target(text, task, vocab.letters))
            exact += written == want
            if written != want:
                firsts.append(first_difference(written, want))
            taught = make_run(model, vocab, text, TEACHER, max_len=limit, task=task)
            p0.append(float(taught.probability_of(correct_tokens(vocab, text, limit, task))[0]))
        rows.append(FirstFailure(n, exact / per_length, sum(f == 0 for f in firsts) / per_length,
                                 float(np.median(firsts)) if firsts else None, float(np.mean(p0))))
    return rows


# --- Queries and keys ----------------------------------------------------------------------------

@dataclass(frozen=True)
class QueryKeyMap:
    query_xy: np.ndarray        # (Tq, 2) each query, projected (an arrow from the origin)
    key_xy: np.ndarray          # (Tk, 2) each key minus the mean key, projected into the same plane
    explained: np.ndarray       # (2,) share of the centred keys' variance each axis keeps
    weights: np.ndarray         # (Tq, Tk) the head's attention
    scores: np.ndarray          # (Tq, Tk) q·k/√d_k, −inf where masked
    picture_top: np.ndarray     # (Tq,) the key with the largest dot product in the plane
    agreement: float            # share of queries whose top key in the plane is the key they attend to most


def query_key_map(run: Run, kind: Kind, layer: int, head: int) -> QueryKeyMap:
    """One head's queries and keys of a run in one plane. Only the keys are centred: subtracting the mean key
    changes every score of a query by the same amount, so its softmax is unchanged; centring the queries
    would not be. The plane is the keys' two principal directions (PCA)."""
    q = run.trace.attention(kind, layer, "queries")[head].astype(np.float64)   # (Tq, d_k)
    k = run.trace.attention(kind, layer, "keys")[head].astype(np.float64)      # (Tk, d_k)
    scores = run.trace.attention(kind, layer, "scores")[head]                   # (Tq, Tk)
    weights = run.trace[kind, layer][head]
    from sklearn.decomposition import PCA       # here: scikit-learn takes 0.9 s to import (analysis.table_store)
    centred = k - k.mean(0)
    pca = PCA(n_components=min(2, len(k)), random_state=0).fit(centred)
    axes = np.zeros((2, q.shape[1]))
    axes[: len(pca.components_)] = pca.components_                             # one key: a single axis
    query_xy, key_xy = q @ axes.T, centred @ axes.T                              # (Tq, 2), (Tk, 2)
    in_plane = np.where(np.isfinite(scores), query_xy @ key_xy.T, -np.inf)      # (Tq, Tk)
    picture_top = in_plane.argmax(-1)
    explained = np.zeros(2)
    explained[: len(pca.explained_variance_ratio_)] = np.nan_to_num(pca.explained_variance_ratio_)
    return QueryKeyMap(query_xy, key_xy, explained, weights, scores, picture_top,
                       float(np.mean(picture_top == weights.argmax(-1))))
