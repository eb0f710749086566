"""Attention: every layer and head of one kind, one head beside their average, and what each key sends."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from transformer.model import Transformer

from ..inside import value_weighted
from ..labels import KIND_NAMES, attention_axes, visible, weight_text
from ..lesson import pattern_shares
from ..offsets import OFFSETS, offset_label, run_offsets
from ..run import Run
from ..tasks import equal_counts, words

EXPLAIN = {
    "encoder_self": "Each source character (row, the query) looks at every source character (column, the key). "
                    "Nothing is masked: the encoder sees the whole input at once.",
    "decoder_self": "Each decoder position (row) looks at the positions up to itself (columns). The causal mask "
                    "hides the future, so everything above the diagonal is exactly 0.",
    "cross": "Queries come from the decoder, keys and values from the encoder's output: rows are target "
             "positions (labelled *what it reads → what it writes*), columns are source positions. {task}",
}
CROSS_PATTERN = {
    "reverse": "To reverse, the position that writes the i-th output character should look at source position "
               "n−1−i: an anti-diagonal.",
    "copy": "To copy, the position that writes the i-th output character should look at source position i: "
            "the diagonal.",
    "sort": "To sort, the position that writes the i-th output character should look at wherever the i-th "
            "smallest character stands: a pattern set by the letters, not by their positions.",
}


def cross_pattern(task: str) -> str:
    """The sentence that says where a task's cross-attention should look: the bundled three's own, else the
    rule's position map in words (analysis.tasks)."""
    if task in CROSS_PATTERN:
        return CROSS_PATTERN[task]
    w = words(task)
    return (f"To {w.verb}, the position that writes the i-th output character should look at {w.reads}: "
            f"{w.pattern}.")


@dataclass(frozen=True)
class AttentionView:
    """One kind of attention in one run. L layers, H heads, Tq query rows, Tk key columns."""

    kind: str
    kind_name: str
    explanation: str
    io_caption: str                 # the input and what the model wrote
    weights: np.ndarray             # (L, H, Tq, Tk)
    rows: list[str]                 # (Tq,) query labels
    cols: list[str]                 # (Tk,) key labels
    row_title: str
    col_title: str
    matrix: np.ndarray              # (Tq, Tk) the chosen head
    mean: np.ndarray                # (Tq, Tk) the average of the layer's heads
    row_sums: str                   # the softmax rows' sums and the masked entries, in words
    pattern_sentence: str | None    # cross-attention only: how often each head's top weight is on the task's pattern
    influence: np.ndarray           # (Tq, Tk) ‖w_ij v_j W_O^h‖, what each key sends through the chosen head
    influence_sentence: str

    @property
    def n_heads(self) -> int:
        return self.weights.shape[1]


def attention_view(model: Transformer, run: Run, kind: str, layer: int, head: int) -> AttentionView:
    return layer_views(model, run, kind, layer)[head]


def layer_views(model: Transformer, run: Run, kind: str, layer: int) -> list[AttentionView]:
    """Every head of one layer, one view each (the page sends them all, and the browser switches between them).
    What the heads share (the layer's weights, the axes, the pattern sentence) is computed once."""
    weights = run.trace.stack_attention(kind)                   # (L, H, Tq, Tk)
    rows, cols, row_title, col_title = attention_axes(kind, run.source, run.decoder_in, run.decoder_out)
    masked = ~run.trace.mask(kind)                              # (Tq, Tk) True where a key is hidden
    influences = value_weighted(model, run.trace, kind, layer)  # (H, Tq, Tk)
    pattern_sentence = cross_pattern_sentence(run, layer) if kind == "cross" else None
    mean = weights[layer].mean(axis=0)                          # (Tq, Tk)
    explanation = EXPLAIN[kind].format(task=cross_pattern(run.task))
    io_caption = f"Input **{visible(run.text)}** → output **{visible(run.output) or '(nothing)'}**"
    views = []
    for head, (matrix, influence) in enumerate(zip(weights[layer], influences)):    # (Tq, Tk) each
        sums = matrix.sum(axis=1)
        row_sums = (
            f"Every row of the softmax sums to 1: row sums here range from **{sums.min():.6f}** to "
            f"**{sums.max():.6f}**. "
            + (f"Masked entries: **{int(masked.sum())}**, largest weight on any of them "
               f"**{weight_text(float(matrix[masked].max()))}**."
               if masked.any() else "No entry is masked in this kind of attention."))
        real = masked.sum(axis=1) < matrix.shape[1]                        # rows with a key to look at
        differ = int((matrix.argmax(1) != influence.argmax(1))[real].sum())
        influence_sentence = (
            "A head's output is the weighted sum of its keys' values, mixed by W^O. A large weight on a key whose "
            "value, after W^O, is short moves the output little, so the weights alone do not say what a head passes "
            "on. Here, beside the weights above: the length of what each key actually sends (Kobayashi et al., "
            f"2020). In this head, the key with the largest weight is not the key that sends the most in **{differ} "
            f"of {int(real.sum())}** rows. This length is itself one measure: it does not show how the keys' vectors "
            "add up or cancel, nor what later layers do with them.")
        views.append(AttentionView(
            kind=kind, kind_name=KIND_NAMES[kind], explanation=explanation, io_caption=io_caption, weights=weights,
            rows=rows, cols=cols, row_title=row_title, col_title=col_title, matrix=matrix, mean=mean,
            row_sums=row_sums, pattern_sentence=pattern_sentence, influence=influence,
            influence_sentence=influence_sentence))
    return views


def cross_pattern_sentence(run: Run, layer: int) -> str:
    """How often each head of a cross layer puts its top weight on the task's pattern, and, where an offset of it
    wins, that offset's share."""
    hits = pattern_shares(run, layer)
    pattern = words(run.task)
    shifted = {f.head: f for f in run_offsets(run, "cross", layer) if f.best_offset != 0}
    return (f"Share of output characters whose largest cross-attention weight falls on {pattern.pattern} "
            f"({pattern.short_rule}{', or an equal character' if equal_counts(run.task) else ''}), layer {layer}: "
            + ", ".join(f"head {h}: **{s:.0%}**" + (
                f" (more often on {offset_label('cross', run.task, shifted[h].best_offset)}: "
                f"**{shifted[h].best_share:.0%}**)" if h in shifted else "") for h, s in enumerate(hits))
            + f". A head can follow the pattern shifted by a position or two; where one offset from "
            f"{OFFSETS[0]} to +{OFFSETS[-1]} holds the largest weight more often, it is named beside the share "
            "(*Which head does the work?* scores every head so on held-out words).")
