"""Which source character made the model write this one? Lenses on one run, each a number per (output step,
source position), and how far each agrees with the most direct of them, occlusion.

- attention: the cross-attention weights (per head; a layer's heads averaged is a summary, not a model quantity);
- value-weighted influence ‖w_ij v_j W_O^h‖ (analysis.inside.value_weighted);
- gradient × input (autograd) and integrated gradients (Captum) of the step's chosen-token log-probability with
  respect to the source's scaled embeddings, summed over their d_model numbers. The gradients flow through an
  Intervention that hands the embeddings to the call, so no hook is put on the shared model;
- occlusion: how much the chosen token's probability drops when one source character is replaced, averaged over
  replacement letters (QUICK_LETTERS first, about 240 passes at 48 characters; every other letter on request,
  about 1,200), with the decoder reading the same prefix;
- attention rollout (Abnar & Zuidema 2020): the encoder's self-attention, heads averaged, multiplied through its
  layers with the residual counted as half of each, then the last decoder layer's cross-attention on top.
"""

from __future__ import annotations

import threading
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import torch

from transformer.data import LETTERS
from transformer.intervention import Intervention
from transformer.model import Transformer
from transformer.vocab import Vocab

from .inside import value_weighted
from .lab import Progress, report
from .run import Run

FIRST_POINTS, MOST_POINTS = 64, 1024   # points on the integrated gradients' path (Gauss-Legendre), doubled
COMPLETENESS_TOLERANCE = 0.05          # nats: until |Σ attributions − (f(text) − f(baseline))| is at most this
IG_BATCH = 64           # path points a pass: at 48 characters 78 MB at its peak against 281 MB for 256 a pass,
                        # for 1.14 times the time (8 steps, one thread)
OCCLUSION_BATCH = 32    # variants a pass: 0.77 × the time of 256 a pass (the activations stay in the cache)
QUICK_LETTERS, QUICK_COUNT = "afkpuz", 5   # spread over the alphabet: each position's first 5 that differ from it


def quick_letters(letters: str) -> str:
    """QUICK_COUNT + 1 letters spread over the model's alphabet (QUICK_LETTERS for a-z)."""
    if letters == LETTERS:
        return QUICK_LETTERS
    step = max(1, len(letters) // (QUICK_COUNT + 1))
    return letters[::step][:QUICK_COUNT + 1]


@dataclass(frozen=True)
class Lenses:
    """Every lens but integrated gradients (a step at a time: integrated_gradients), for T output steps, S source
    positions, L decoder layers, H heads."""
    attention: np.ndarray        # (L, H, T, S) cross-attention weights
    influence: np.ndarray        # (L, H, T, S) ‖w_ij v_j W_O^h‖
    grad_input: np.ndarray       # (T, S) gradient × input, summed over d_model
    occlusion: np.ndarray        # (T, S) drop in p(chosen token), averaged over replacement letters
    rollout: np.ndarray          # (T, S) attention rollout into the last cross layer
    every_letter: bool           # occlusion over every other letter (else QUICK_COUNT of `swaps`)
    swaps: str = QUICK_LETTERS   # the letters the quick occlusion tried


def _chosen_log_p(model: Transformer, src: torch.Tensor, tgt: torch.Tensor, chosen: torch.Tensor,
                  embeddings: torch.Tensor) -> torch.Tensor:
    """(B, S, d) source embeddings -> (B, T) log p of each step's chosen token, the decoder reading `tgt`."""
    batch = embeddings.size(0)
    edit = Intervention(source_embeddings=embeddings)
    memory = model.encode(src.expand(batch, -1), None, edit)
    logits = model.decode(tgt.expand(batch, -1), memory, None, edit)                # (B, T, V)
    log_p = torch.log_softmax(logits, -1)
    return log_p.gather(-1, chosen.expand(batch, -1)[..., None])[..., 0]             # (B, T)


def _pieces(model: Transformer, run: Run):
    """The run's scaled source embeddings (1, S, d), and the function of them every gradient lens
    differentiates."""
    src, tgt = torch.tensor([run.source_ids]), torch.tensor([run.decoder_in_ids])
    chosen = torch.tensor([run.chosen_ids])
    with torch.no_grad():
        embeddings = model.src_embed(src)
    return embeddings, lambda e: _chosen_log_p(model, src, tgt, chosen, e)


@dataclass(frozen=True)
class Integrated:
    """Integrated gradients of one step: attributions per source position, what they must add up to, and by how
    much they miss it."""
    attributions: np.ndarray     # (S,) summed over d_model
    gap: float                   # f(text) − f(zero baseline), in nats
    error: float                 # Σ attributions − gap
    points: int                  # points on the path it took to come within COMPLETENESS_TOLERANCE (or the most)


def integrated_gradients(model: Transformer, run: Run, step: int) -> Integrated:
    """Captum's integrated gradients of step `step`'s chosen-token log-probability with respect to the source's
    scaled embeddings, from a zero baseline, the path's points doubled until the attributions add up to the gap
    within COMPLETENESS_TOLERANCE (at most MOST_POINTS)."""
    from captum.attr import IntegratedGradients   # here: Captum (with matplotlib) takes most of a second to import,
                                                  # and the lesson, which imports this module, never calls it
    embeddings, forward = _pieces(model, run)
    baseline = torch.zeros_like(embeddings)
    with torch.no_grad():
        gap = float((forward(embeddings) - forward(baseline))[0, step])
    points = FIRST_POINTS
    with torch.enable_grad():
        while True:
            attr, delta = IntegratedGradients(forward).attribute(
                embeddings, baselines=baseline, target=step, n_steps=points, method="gausslegendre",
                return_convergence_delta=True, internal_batch_size=IG_BATCH)
            if abs(float(delta[0])) <= COMPLETENESS_TOLERANCE or points >= MOST_POINTS:
                return Integrated(attr.sum(-1)[0].detach().numpy(), gap, float(delta[0]), points)
            points *= 2


def gradient_x_input(model: Transformer, run: Run) -> np.ndarray:
    """(T, S) gradient × input of each step's chosen-token log-probability, summed over d_model: one forward pass
    at batch 1, then a backward pass per step, batched by autograd (`is_grads_batched`; torch loops over the steps
    where an operation has no batching rule, the attention kernel's and LayerNorm's backward among them). Captum's
    InputXGradient gives the same numbers from one forward pass over T copies of the text, 1.4 times as long at
    48 characters (benchmarks.lenses; tests hold the two equal)."""
    embeddings, forward = _pieces(model, run)
    steps = len(run.chosen_ids)
    with torch.enable_grad():
        given = embeddings.clone().requires_grad_()                                   # (1, S, d)
        (grads,) = torch.autograd.grad(forward(given)[0], given, torch.eye(steps), is_grads_batched=True)
    return (grads * embeddings).sum(-1)[:, 0].numpy()                                 # (T, 1, S, d) -> (T, S)


def occlusion(model: Transformer, vocab: Vocab, run: Run, letters: str | None = None,
              most: int | None = None, progress: Progress = None, helper: Executor | None = None) -> np.ndarray:
    """(T, S) p(chosen token) with the text as it is, minus its mean with source position j replaced by each
    letter of `letters` other than its own (the first `most` of them), the decoder reading the same prefix:
    positive where the character mattered to the step. With `helper`, a thread of that executor (not the one
    calling) takes batches too once it is free, and the batches' results are summed in their own order, so the
    numbers do not depend on which thread ran what. If the caller's part stops (a progress report raises when
    Streamlit stops the run), the helper stops after its batch in hand."""
    src, tgt = list(run.source_ids), torch.tensor([run.decoder_in_ids])
    chosen = torch.tensor([run.chosen_ids])
    base = torch.softmax(torch.tensor(run.logits, dtype=torch.float32), -1)                # (T, V)
    base_p = base.gather(-1, chosen[0][:, None])[:, 0].numpy()                            # (T,)
    variants, owner = [], []
    replacements = [vocab.encode(letter, 1)[0] for letter in (vocab.letters if letters is None else letters)]
    for j, token in enumerate(src):
        others = [t for t in replacements if t != token][:most]
        for other in others:
            variants.append([*src[:j], other, *src[j + 1:]])
            owner.append(j)
    starts = range(0, len(variants), OCCLUSION_BATCH)
    found: list[np.ndarray | None] = [None] * len(starts)      # each batch's (B, T) p(chosen token)
    pending, taking, stopped = iter(range(len(starts))), threading.Lock(), threading.Event()

    def take_batches(reports: bool) -> None:
        with torch.inference_mode():                   # per thread, like every grad mode
            while True:
                with taking:
                    i = None if stopped.is_set() else next(pending, None)
                if i is None:
                    return
                if reports:                            # Streamlit takes progress from the script's thread only
                    report(progress, i / len(starts))
                batch = torch.tensor(variants[starts[i]:starts[i] + OCCLUSION_BATCH])         # (B, S)
                logits = model.decode(tgt.expand(len(batch), -1), model.encode(batch))        # (B, T, V)
                p = torch.softmax(logits, -1).gather(-1, chosen.expand(len(batch), -1)[..., None])[..., 0]
                found[i] = p.numpy()                                                          # (B, T)

    helping = helper.submit(take_batches, False) if helper is not None else None
    try:
        take_batches(True)
    except BaseException:
        stopped.set()
        raise
    if helping is not None:
        helping.result()
    drops = np.zeros((len(run.chosen_ids), len(src)))
    counts = np.zeros(len(src))
    for start, rows in zip(starts, found):
        for row, j in zip(rows, owner[start:start + OCCLUSION_BATCH]):
            drops[:, j] += base_p - row
            counts[j] += 1
    return drops / np.maximum(counts, 1)[None, :]


def rollout(run: Run) -> np.ndarray:
    """(T, S) attention rollout: R = Π over encoder layers of (½ A + ½ I), rows renormalised, A the layer's
    self-attention with its heads averaged; then the last decoder layer's cross-attention, heads averaged, times R.
    It merges heads and layers by assuming each passes on what it weighs, which the model never computes."""
    n = len(run.source)
    merged = np.eye(n)
    for layer in range(run.trace.n_layers("encoder_self")):
        a = 0.5 * run.trace["encoder_self", layer].mean(0) + 0.5 * np.eye(n)                 # (S, S)
        merged = (a / a.sum(-1, keepdims=True)) @ merged
    last = run.trace.n_layers("cross") - 1
    return run.trace["cross", last].mean(0) @ merged                                      # (T, S)


def lenses(model: Transformer, vocab: Vocab, run: Run, every_letter: bool = False,
           progress: Progress = None) -> Lenses:
    """Every lens but integrated gradients; occlusion over QUICK_COUNT letters, or every other one (its share
    done reported to `progress`)."""
    layers = run.trace.n_layers("cross")
    attention = np.stack([run.trace["cross", layer] for layer in range(layers)])          # (L, H, T, S)
    influence = np.stack([value_weighted(model, run.trace, "cross", layer) for layer in range(layers)])
    # The gradients on a thread of their own while occlusion runs here (it reports progress, which Streamlit takes
    # from the script's thread only), and that thread takes occlusion's remaining batches once the gradients are
    # done: torch lets go of the GIL in its operations, so a second core shares the whole wait. No hook is put on
    # the model; the two threads share only occlusion's list of batches and its slots for their results. Every
    # letter (1,200 passes at 48 characters) runs in the server's heavy lane, on one core: the other is the pages'.
    with ThreadPoolExecutor(max_workers=1) as pool:
        gradients = pool.submit(gradient_x_input, model, run)
        swaps = quick_letters(vocab.letters)
        occluded = (occlusion(model, vocab, run, progress=progress) if every_letter else   # the heavy lane's: one core
                    occlusion(model, vocab, run, swaps, QUICK_COUNT, helper=pool))
        return Lenses(attention, influence, gradients.result(), occluded, rollout(run), every_letter, swaps)


# --- Agreement with occlusion ------------------------------------------------------------------------

VARIES = 1e-3   # a step's lens (or occlusion) varies over the source when its values span more than this: below,
                # float noise (a saturated step's gradient is ~1e-6 nats) would be ranked as if it were a finding


@dataclass(frozen=True)
class Agreement:
    rho: float | None            # Spearman ρ with occlusion, averaged over the steps where both vary
    steps: int                   # the steps where both vary: the only ones either figure counts
    same_top: float | None       # the share of those steps where the lens's largest value is on one of occlusion's


def varies(row: np.ndarray) -> bool:
    return float(np.ptp(row)) > VARIES


def tops(row: np.ndarray) -> set[int]:
    """The positions within VARIES of a row's largest value: a saturated step's drops of 1.000 at two
    positions are a tie, not a ranking."""
    return {int(i) for i in np.flatnonzero(row >= row.max() - VARIES)}


def without_noise(row: np.ndarray) -> np.ndarray:
    """Values within VARIES of 0 set to 0, so that ranks tie them instead of ranking float noise (±1e-7)."""
    return np.where(np.abs(row) > VARIES, row, 0.0)


def agreement(lens: np.ndarray, occluded: np.ndarray) -> Agreement:
    """How far a (T, S) lens ranks the source positions as occlusion does, over the steps where both vary:
    Spearman ρ with values within VARIES of 0 tied at 0, and how often the lens's top is among occlusion's
    (within VARIES). Every step at once: the page asks for five, and step by step they took nine
    tenths of its page model's time at 48 characters (cProfile)."""
    steps = min(len(lens), len(occluded))
    lens, occluded = lens[:steps], occluded[:steps]
    both = (np.ptp(lens, 1) > VARIES) & (np.ptp(occluded, 1) > VARIES)                      # (T,)
    lens, occluded = lens[both], occluded[both]                                              # (K, S)
    a, b = without_noise(lens), without_noise(occluded)
    ranked = (np.ptp(a, 1) > 0) & (np.ptp(b, 1) > 0)      # (±0.0009 would be all 0)
    lens, occluded, a, b = lens[ranked], occluded[ranked], a[ranked], b[ranked]
    if not len(a):
        return Agreement(None, 0, None)
    rhos = spearman_rows(a, b)                                                               # (K,)
    at_top = occluded[np.arange(len(lens)), lens.argmax(1)]                                  # (K,)
    same = float(np.mean(at_top >= occluded.max(1) - VARIES))    # the lens's top among occlusion's tops
    return Agreement(float(np.mean(rhos)), len(a), same)


def spearman_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(K, S), (K, S) -> (K,): Spearman's ρ of each row pair, as scipy.stats.spearmanr gives it (Pearson's r of the
    ranks, ties at their average rank), for every row at once: spearmanr row by row was 30 % of the lab page's
    rerun. No row may be constant."""
    from scipy.stats import rankdata             # here: SciPy takes most of a second to import (analysis.lab)
    ra, rb = rankdata(a, axis=1), rankdata(b, axis=1)                       # (K, S)
    ra -= ra.mean(1, keepdims=True)
    rb -= rb.mean(1, keepdims=True)
    return (ra * rb).sum(1) / np.sqrt((ra * ra).sum(1) * (rb * rb).sum(1))
