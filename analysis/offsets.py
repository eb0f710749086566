"""Where each head's largest weight lands, against a family of patterns: its kind's hypothesis shifted by k.

One hypothesis per kind (analysis.lab.HYPOTHESES) scores a head that is off by one position as if it did
something else: the reverser's sharpest cross head reads n−i, one position right of the mirror n−1−i, the
source position of the character the step has just read. So every head is scored against the offsets
k = −2..+2 of its kind's pattern (offset 0 is the hypothesis itself, analysis.lab.ideal_keys), and the offset
where its largest weight lands most often is named.

The offsets, for step (query) i of a text of n characters:
- cross-attention, reverse: source position n−1−i+k; copy: i+k; sort: wherever the character of rank i+k in
  sorted order stands (equal characters count together, as in lab.pattern_scores); any other rule: the key its
  position map names for output step i+k (so −1 is the key of the character the step has just read);
- encoder self-attention: key i+k (offset 0: itself);
- decoder self-attention: key i−1+k (offset 0: the previous position, +1: itself, +2 is in the masked future).
A step is counted when offset 0 names a key for it (the rows lab.pattern_scores scores), so the shares of one
head are over one set of steps; a step whose shifted key falls outside the text lands on no offset there.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np
import torch

from transformer.data import expected_keys
from transformer.intervention import NO_INTERVENTION, Head, Intervention
from transformer.model import Transformer
from transformer.task_rules import LATIN
from transformer.trace import KINDS, Kind
from transformer.vocab import Vocab

from .lab import Progress, ideal_keys, report, teacher_forced_trace
from .run import Run

OFFSETS = (-2, -1, 0, 1, 2)
READ_OFFSET = {"reverse": 1}  # cross offset of the character step i reads (written at i−1); every other rule: −1
EXPLAINED_SHARE = 0.5  # from this share on, one offset holds a head's largest weight in most of its steps:
                       # more often than every other key of the row put together


@dataclass(frozen=True)
class OffsetFit:
    kind: Kind
    layer: int
    head: int
    best_offset: int           # the offset holding the head's largest weight in the most steps (ties: nearest 0)
    best_share: float          # the share of counted steps whose largest weight is on that offset's key
    shares: dict[int, float]   # offset -> share of counted steps whose largest weight lands there
    mean_top_weight: float     # mean over counted steps of the row's largest weight (1: all on one key)

    @property
    def id(self) -> Head:
        return Head(self.kind, self.layer, self.head)

    @property
    def explained(self) -> bool:
        """Whether one offset holds this head's largest weight in at least EXPLAINED_SHARE of its steps."""
        return self.best_share >= EXPLAINED_SHARE


def _signed(c: int) -> str:
    return "" if c == 0 else f"+{c}" if c > 0 else f"−{-c}"


def offset_label(kind: Kind, task: str, k: int) -> str:
    """The key offset k names, as a formula of the step i (and the length n): 'n−i' for reverse, k = +1."""
    if kind == "encoder_self":
        return f"i{_signed(k)}"
    if kind == "decoder_self":
        return f"i{_signed(k - 1)}"
    if task == "reverse":
        return f"n{_signed(k - 1)}−i"
    if task == "sort":
        return f"rank i{_signed(k)} in sorted order"
    if task == "copy":
        return f"i{_signed(k)}"
    return f"the key of step i{_signed(k)}"


def read_offset(task: str) -> int:
    """The cross offset of the character step i reads: the one step i−1 wrote."""
    return READ_OFFSET.get(task, -1)


def offset_keys(kind: Kind, n_queries: int, text: str, task: str, k: int, letters: str = LATIN) -> np.ndarray:
    """(n_queries, n_keys) bool: the key(s) offset k names for each query (none where it leaves the text)."""
    if kind == "encoder_self":
        return np.eye(n_queries, k=k, dtype=bool)
    if kind == "decoder_self":
        return np.eye(n_queries, k=k - 1, dtype=bool)
    n = len(text)
    grid = np.zeros((n_queries, n), dtype=bool)
    keys = expected_keys(text, task, letters)             # per output step, the keys offset 0 names
    for i in range(min(n_queries, len(keys))):
        if task == "reverse":                             # by position: n−1−i shifted by k
            grid[i, [p + k for p in keys[i] if 0 <= p + k < n]] = True
        elif 0 <= i + k < len(keys):                      # by output step: the key step i+k reads
            grid[i, sorted(keys[i + k])] = True
    return grid


def _tally(weights: np.ndarray, kind: Kind, text: str, task: str, offsets: tuple[int, ...],
           letters: str = LATIN) -> np.ndarray:
    """weights (H, Tq, Tk) of one layer -> (H, len(offsets) + 2): per head, the steps whose largest weight
    lands on each offset, then the sum of those steps' largest weights, then the number of steps counted."""
    n_queries = weights.shape[1]
    rows = np.flatnonzero(ideal_keys(kind, n_queries, text, task, letters).any(-1))   # (R,) the steps counted
    top = weights[:, rows].argmax(-1)                                        # (H, R) each step's top key
    hits = [offset_keys(kind, n_queries, text, task, k, letters)[rows[None], top].sum(-1)
            for k in offsets]                                                # (H,) each
    return np.column_stack([*hits, weights[:, rows].max(-1).sum(-1), np.full(len(weights), len(rows))])


def _fits(totals: dict[Head, np.ndarray], offsets: tuple[int, ...]) -> list[OffsetFit]:
    fits = []
    for h, t in sorted(totals.items()):
        steps = max(t[-1], 1)
        shares = {k: float(t[j] / steps) for j, k in enumerate(offsets)}
        best = max(offsets, key=lambda k: (shares[k], -abs(k), k))
        fits.append(OffsetFit(h.kind, h.layer, h.head, best, shares[best], shares, float(t[-2] / steps)))
    return fits


def _chosen(kind: Kind | None, layer: int | None, head: int | None, depth: dict[Kind, int],
            n_heads: int) -> list[tuple[Kind, int]]:
    """The (kind, layer) pairs to score, refusing a kind, layer or head the model does not have."""
    if kind is not None and kind not in KINDS:
        raise ValueError(f"unknown attention kind {kind!r}: one of {', '.join(KINDS)}")
    if head is not None and not 0 <= head < n_heads:
        raise ValueError(f"head {head} is outside 0..{n_heads - 1}")
    kinds = KINDS if kind is None else (kind,)
    if layer is not None and any(not 0 <= layer < depth[k] for k in kinds):
        raise ValueError(f"layer {layer} is outside 0..{min(depth[k] for k in kinds) - 1}")
    return [(k, l) for k in kinds for l in (range(depth[k]) if layer is None else (layer,))]


@torch.inference_mode()
def head_offsets(model: Transformer, vocab: Vocab, texts: list[str], task: str = "reverse",
                 kind: Kind | None = None, layer: int | None = None, head: int | None = None,
                 offsets: tuple[int, ...] = OFFSETS, edit: Intervention = NO_INTERVENTION,
                 progress: Progress = None) -> list[OffsetFit]:
    """Every head (or those of one kind, layer, head) against the offsets of its kind's pattern, over these
    words with the task's correct output fed to the decoder (teacher forcing, as lab.pattern_scores), under
    `edit` if given (another head switched off: what this head does without it). Ordered by head."""
    if not texts:
        raise ValueError("head_offsets needs at least one text")
    c = model.config
    pairs = _chosen(kind, layer, head, {"encoder_self": c.n_encoder_layers, "decoder_self": c.n_decoder_layers,
                                        "cross": c.n_decoder_layers}, c.n_heads)
    heads = range(c.n_heads) if head is None else (head,)
    totals: dict[Head, np.ndarray] = defaultdict(lambda: np.zeros(len(offsets) + 2))
    for done, text in enumerate(texts):
        report(progress, done / len(texts))
        trace = teacher_forced_trace(model, vocab, text, task, edit)
        for k, l in pairs:
            tally = _tally(trace[k, l][0].double().numpy(), k, text, task, offsets, vocab.letters)   # (H, K + 2)
            for h in heads:
                totals[Head(k, l, h)] += tally[h]
    return _fits(totals, offsets)


def run_offsets(run: Run, kind: Kind, layer: int, offsets: tuple[int, ...] = OFFSETS) -> list[OffsetFit]:
    """Every head of one layer against the offsets, on one run's own trace (a learner's text as decoded)."""
    tally = _tally(np.asarray(run.trace[kind, layer], dtype=np.float64), kind, run.text, run.task, offsets,
                   run.letters)
    return _fits({Head(kind, layer, h): t for h, t in enumerate(tally)}, offsets)


def read_head(fits: list[OffsetFit], task: str, last_layer: int) -> OffsetFit | None:
    """Among cross heads before the last decoder layer, the one whose largest weight lands most often where the
    character its step reads came from (READ_OFFSET: n−i for reverse); None if there are no such heads. Whether
    that offset explains it is for the caller to read (fit.best_offset, fit.explained)."""
    earlier = [f for f in fits if f.kind == "cross" and f.layer < last_layer]
    return max(earlier, key=lambda f: (f.shares[read_offset(task)], -f.layer, -f.head), default=None)
