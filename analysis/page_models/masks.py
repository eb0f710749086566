"""Masks: a learner's text padded in a batch, the padding and causal masks, one head's masked scores and
weights, and the √d_k argument on random vectors."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from transformer.task_rules import LATIN

from ..labels import PAD_LABEL, attention_axes, weight_text
from ..lesson import ScalingSample, companions, scaling_experiment
from ..run import Run

D_K_SIZES = (4, 16, 64, 256, 1024)   # the √d_k table's rows, and the sizes the slider offers
MASK_USED = {"encoder_self": "padding of the source", "decoder_self": "causal AND padding",
             "cross": "padding of the source"}


def batch_texts(text: str, max_len: int, letters: str = LATIN) -> tuple[str, ...]:
    """The learner's text first, then partners longer than it where possible, so its own row gets padding."""
    return (text, *companions(text, max_len, letters=letters))


@dataclass(frozen=True)
class MasksView:
    """B batch rows, S padded source positions, T decoder positions, Tq × Tk the chosen head's matrix."""

    row_names: list[str]           # (B,)
    batch_sources: pd.DataFrame    # (B, S) each row's source labels, padding included
    padding_mask: np.ndarray       # (B, S) True = a real token
    causal_mask: np.ndarray        # (T, T) True = may attend
    queries: list[str]             # (Tq,)
    keys: list[str]                # (Tk,)
    scores: np.ndarray             # (Tq, Tk) QKᵀ/√d_k, −inf where masked
    weights: np.ndarray            # (Tq, Tk) after softmax
    mask_used: str
    row_facts: pd.DataFrame        # per query: its row sum and its largest masked weight
    masked_sentence: str
    scaling: ScalingSample         # the chosen d_k
    scaling_table: pd.DataFrame    # one row per D_K_SIZES
    scaling_caption: str


def masks_view(batch: list[Run], kind: str, layer: int, head: int, row: int, d_k: int) -> MasksView:
    """`batch` is one padded pass over batch_texts, a run per row; the head and the batch row are the learner's."""
    row_names = [f"row {i}" for i in range(len(batch))]
    padding = np.stack([run.trace["masks.source"][0, 0] for run in batch])   # (B, S)
    steps = len(batch[0].decoder_in)

    run = batch[row]
    queries, keys, _, _ = attention_axes(kind, run.source, run.decoder_in)
    scores = run.trace.attention(kind, layer, "scores")[head]                # (Tq, Tk)
    weights = run.trace[kind, layer][head]                                   # (Tq, Tk)
    may = np.isfinite(scores)                                                # (Tq, Tk) False where masked
    real_queries = may.any(axis=1)
    padded_keys = [i for i, label in enumerate(keys) if label == PAD_LABEL]
    sums = weights.sum(axis=1)
    row_facts = pd.DataFrame({
        "query": [f"{i}:{q}" for i, q in enumerate(queries)], "row sum": sums,
        "largest masked weight": [weight_text(float(weights[i][~may[i]].max())) if (~may[i]).any() else "none masked"
                                  for i in range(len(queries))]})
    masked_sentence = (
        f"Masked entries: **{int((~may).sum())}**, and the largest weight any of them received is "
        f"**{weight_text(float(weights[~may].max())) if (~may).any() else 'none (nothing is masked)'}**. "
        + (f"Padded key columns {padded_keys} get total weight **{weight_text(float(weights[:, padded_keys].sum()))}**. "
           if padded_keys else "This row has no padding (it is the longest in the batch). ")
        + f"Every row with at least one key it may see sums to 1 (from {sums[real_queries].min():.6f} to "
        f"{sums[real_queries].max():.6f}). Padding queries (rows labelled {PAD_LABEL}) still get a row, because "
        "the mask hides keys, not queries; the loss ignores their output. A row whose keys are all masked would be "
        "NaN after a plain softmax; this model sets it to zeros.")

    chosen = scaling_experiment(d_k)
    table = [scaling_experiment(size) for size in D_K_SIZES]
    scaling_table = pd.DataFrame({
        "d_k": [s.d_k for s in table], "√d_k": [s.d_k ** 0.5 for s in table],
        "std of q·k": [s.score_std for s in table], "std of q·k/√d_k": [s.scaled_std for s in table],
        "largest weight, raw": [s.top_weight for s in table],
        "largest weight, scaled": [s.scaled_top_weight for s in table],
        "gradient size, raw": [s.gradient for s in table], "gradient size, scaled": [s.scaled_gradient for s in table],
    }).round(3)
    scaling_caption = (
        f"Means over 2,000 random draws of one query and 10 keys. At d_k = {d_k}: std of q·k {chosen.score_std:.1f} "
        f"(√d_k = {d_k ** 0.5:.1f}), the largest weight {chosen.top_weight:.3f} without the scaling and "
        f"{chosen.scaled_top_weight:.3f} with it; the softmax's gradient {chosen.gradient:.3f} against "
        f"{chosen.scaled_gradient:.3f}. This model's heads have d_k = {run.d_k}.")

    return MasksView(
        row_names=row_names, batch_sources=pd.DataFrame([r.source for r in batch], index=row_names),
        padding_mask=padding, causal_mask=np.tril(np.ones((steps, steps), dtype=bool)),
        queries=queries, keys=keys, scores=scores, weights=weights, mask_used=MASK_USED[kind],
        row_facts=row_facts, masked_sentence=masked_sentence,
        scaling=chosen, scaling_table=scaling_table, scaling_caption=scaling_caption)
