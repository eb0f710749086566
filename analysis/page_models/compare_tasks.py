"""Compare tasks: one text read by the three bundled models (reverse, copy, sort) of the same architecture, each
model's most task-like cross head, and what moves one layer-0 cross head's scores: content or position."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from transformer.checkpoint import Checkpoint

from ..circuits import CONTENT_CONTENT, FOUR, POSITION_POSITION, TERMS, WITH_WRITTEN, score_split, sharpest_head
from ..labels import reads_writes
from ..lesson import pattern_shares
from ..run import Run
from ..tasks import WORDS

__all__ = ["COMPARED", "SHARPEST", "TERMS", "CompareTasks", "TaskColumn", "compare_tasks_view"]

COMPARED = tuple(WORDS)                  # the tasks side by side, in this order: reverse, copy, sort
SHARPEST = "the sharpest in each model"  # the head choice that lets each model split its own sharpest head


@dataclass(frozen=True)
class TaskColumn:
    """One model on the text. L decoder layers, H heads, T decoder positions, S source positions."""

    task: str
    label: str                           # "Reverse", "Copy", "Sort"
    run: Run                             # the bundled model's greedy run on the text
    shares: np.ndarray                   # (L, H) each cross head's share of output steps on the task's pattern
    layer: int                           # the most task-like cross head: the largest share
    head: int
    best: np.ndarray                     # (T, S) that head's cross-attention
    rows: list[str]                      # (T,) what each decoder position reads → writes
    source: list[str]                    # (S,)
    best_title: str
    best_caption: str
    wrong_note: str | None               # when the model gets the text wrong: its held-out score beside it
    split_head: int                      # the layer-0 cross head whose scores are split
    split_shares: dict[str, float]       # TERMS -> its share of what moves that head's scores (NaN: nothing moves)
    split_sentence: str                  # which part moves them most, content or position
    grid: np.ndarray                     # (L, H, T, S) every cross head
    grid_title: str
    split_terms: dict[str, np.ndarray]   # FOUR -> (T, S) the content and position terms, row mean taken away
    split_title: str


@dataclass(frozen=True)
class CompareTasks:
    columns: list[TaskColumn]            # one per COMPARED task, in that order
    labels: dict[str, str]               # task -> its column's and tab's label
    split_table: pd.DataFrame            # one row per task: its split head and each of TERMS' shares


def compare_tasks_view(models: dict[str, Checkpoint], runs: dict[str, Run], split_head: int | str) -> CompareTasks:
    """`models` and `runs`: the bundled model of each COMPARED task and its run on the text; `split_head` is the
    layer-0 cross head to split, or SHARPEST for each model's own sharpest."""
    columns = [task_column(models[task], runs[task], split_head) for task in COMPARED]
    table = pd.DataFrame([{"task": c.label, "head": f"cross L0 H{c.split_head}",
                           **{name: c.split_shares[name] for name in TERMS}} for c in columns])
    return CompareTasks(columns=columns, labels={c.task: c.label for c in columns}, split_table=table)


def task_column(ckpt: Checkpoint, run: Run, split_head: int | str) -> TaskColumn:
    task, words = run.task, WORDS[run.task]
    shares = np.stack([pattern_shares(run, layer) for layer in range(ckpt.model.config.n_decoder_layers)])  # (L, H)
    layer, best = (int(i) for i in np.unravel_index(int(shares.argmax()), shares.shape))
    held_out = ckpt.metrics.get("held_out", {})
    wrong_note = (f"Wrong on your text, though it writes {held_out['exact_match']:.2%} of {held_out['n']:,} "
                  "held-out random strings exactly: a score on random strings is an average, not a promise about "
                  "every text." if run.output != run.target and {"exact_match", "n"} <= held_out.keys() else None)

    head = sharpest_head(run.trace, "cross", 0) if split_head == SHARPEST else int(split_head)
    split = score_split(ckpt.model, run.trace, "cross", 0, head)
    split_shares = split.shares()
    rows = reads_writes(run.decoder_in, run.decoder_out)
    return TaskColumn(
        task=task, label=words.label, run=run, shares=shares, layer=layer, head=best,
        best=run.trace["cross", layer][best], rows=rows, source=run.source, best_title=f"cross L{layer} H{best}",
        best_caption=f"Cross L{layer} H{best}: {shares[layer, best]:.0%} of your text's output steps put their "
                     f"largest weight on {words.pattern} ({words.short_rule}"
                     f"{', or an equal letter' if task == 'sort' else ''}), the most of any cross head of this model.",
        wrong_note=wrong_note, split_head=split.head, split_shares=split_shares,
        split_sentence=split_sentence(words.label, split.head, split_shares),
        grid=run.trace.stack_attention("cross"), grid_title=f"{words.label}: cross-attention, every layer and head",
        split_terms={name: split.centred(name) for name in FOUR},
        split_title=f"{words.label}: cross L0 H{split.head}, its content and position terms (row mean taken away; "
                    "not shown: what layers wrote, the biases)")


def split_sentence(label: str, head: int, share: dict[str, float]) -> str:
    """The largest part of what moves the head's scores, and position·position against content·content."""
    position, content = share[POSITION_POSITION], share[CONTENT_CONTENT]
    if math.isnan(position):
        return (f"**{label}**: your text has one character, so each row has one key and no term can move a "
                "weight.")
    largest = max(share, key=share.get)
    return (
        f"**{label}**, cross L0 H{head}: the largest part is *{largest}* (**{share[largest]:.1%}**). "
        f"Position·position carries **{position:.1%}** and content·content **{content:.1%}**, so of these two, on "
        "your text, "
        + ("position weighs more than content." if position > content else
           "content weighs more than position." if content > position else "position and content weigh the same.")
        + (" One reading: this head compares less the raw characters and positions than what the encoder and the "
           "decoder's first self-attention computed from them." if largest == WITH_WRITTEN else ""))
