"""Compare tasks: one text read by the three bundled models (reverse, copy, sort) of the same architecture, and
beside them the learner's model of another task when one is in use, each model's most task-like cross head, and what moves one layer-0 cross head's scores: content or position, split by
the role of each part of the stream (analysis.functional_split) and by its raw source (analysis.circuits)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from transformer.checkpoint import Checkpoint

from ..circuits import (BIASES, CONTENT_CONTENT, CONTENT_POSITION, FOUR, POSITION_CONTENT, POSITION_POSITION, TERMS,
                        WITH_WRITTEN, SplitUnavailable, score_split, sharpest_head)
from ..functional_split import ALONE, PositionMeans, functional_split, top_key_kept, weights_from
from ..labels import reads_writes
from ..lesson import pattern_shares
from ..run import Run
from ..tasks import WORDS, equal_counts, words as task_words

__all__ = ["ALONE", "COMPARED", "OWN", "ROLE_TERMS", "SHARPEST", "TERMS", "WHOLE", "CompareTasks", "TaskColumn",
           "compare_tasks_view", "column_label"]

COMPARED = tuple(WORDS)                  # the tasks side by side, in this order: reverse, copy, sort
OWN = "yours"                            # the column of the model in use, when it is none of the three
SHARPEST = "the sharpest in each model"  # the head choice that lets each model split its own sharpest head
ROLE_TERMS = (*FOUR, BIASES)             # the split by role: position-like and content-like parts, and the biases
WHOLE = "the whole score (the model's own weights)"   # the weights toggle's first choice, beside ALONE's
MIXED = {POSITION_CONTENT: "the query's step against the key's letter",
         CONTENT_POSITION: "the query's letter against the key's place"}


@dataclass(frozen=True)
class TaskColumn:
    """One model on the text. L decoder layers, H heads, T decoder positions, S source positions."""

    id: str                              # its column: a COMPARED task, or OWN
    task: str
    label: str                           # "Reverse", "Copy", "Sort", "Your model (rotate:2)"
    run: Run                             # the model's greedy run on the text
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
    role_shares: dict[str, float] | None  # ROLE_TERMS -> share of what moves the scores, split by role (None: no split)
    role_halves: tuple[float, float] | None   # position·position's share from each half of the random texts
    role_kept: dict[str, tuple[int, int]]     # ALONE -> (steps whose top key those terms alone keep, steps counted)
    role_sentence: str                   # position against content, by role; or why there is no such split
    role_weights: np.ndarray             # (T, S) the split head's weights from the terms the toggle chose
    role_weights_title: str


@dataclass(frozen=True)
class CompareTasks:
    columns: list[TaskColumn]            # one per model, in the order given
    labels: dict[str, str]               # column id -> its column's and tab's label
    split_table: pd.DataFrame            # one row per task: its split head and each of TERMS' shares
    role_table: pd.DataFrame             # one row per task: the split by role, ROLE_TERMS' shares (NaN: no split)


def compare_tasks_view(models: dict[str, Checkpoint], runs: dict[str, Run], split_head: int | str,
                       means: dict[str, PositionMeans | str], weights_from_terms: str = WHOLE) -> CompareTasks:
    """`models` and `runs`, by column id: the bundled model of each COMPARED task (and OWN: the model in use, of
    another task) and its run on the text, in the order they are drawn; `split_head` is the
    layer-0 cross head to split, or SHARPEST for each model's own sharpest; `means`: each task's position-like
    parts for the text's length (functional_split.position_means), or why there are none; `weights_from_terms`:
    WHOLE or a key of ALONE, the terms the toggled weights are recomputed from."""
    columns = [task_column(models[c], runs[c], split_head, means[c], weights_from_terms, c) for c in models]
    table = pd.DataFrame([{"task": c.label, "head": f"cross L0 H{c.split_head}",
                           **{name: c.split_shares[name] for name in TERMS}} for c in columns])
    roles = pd.DataFrame([{"task": c.label, "head": f"cross L0 H{c.split_head}",
                           **{name: (c.role_shares or {}).get(name, math.nan) for name in ROLE_TERMS}}
                          for c in columns])
    return CompareTasks(columns=columns, labels={c.id: c.label for c in columns}, split_table=table,
                        role_table=roles)


def column_label(column: str, task: str) -> str:
    """A column's heading: the bundled task's name, or the model in use with its rule."""
    return f"Your model ({task})" if column == OWN else WORDS[task].label


def task_column(ckpt: Checkpoint, run: Run, split_head: int | str, means: PositionMeans | str,
                weights_from_terms: str = WHOLE, column: str | None = None) -> TaskColumn:
    task, words = run.task, task_words(run.task)
    column = run.task if column is None else column
    label = column_label(column, task)
    shares = np.stack([pattern_shares(run, layer) for layer in range(ckpt.model.config.n_decoder_layers)])  # (L, H)
    layer, best = (int(i) for i in np.unravel_index(int(shares.argmax()), shares.shape))
    held_out = ckpt.metrics.get("held_out", {})
    wrong_note = (f"Wrong on your text, though it writes {held_out['exact_match']:.2%} of {held_out['n']:,} "
                  "held-out random strings exactly: a score on random strings is an average, not a promise about "
                  "every text." if run.output != run.target and {"exact_match", "n"} <= held_out.keys() else None)

    head = (sharpest_head(run.trace, "cross", 0) if split_head == SHARPEST or int(split_head) >= ckpt.model.config.n_heads
            else int(split_head))   # a model with fewer heads splits its sharpest
    split = score_split(ckpt.model, run.trace, "cross", 0, head)
    split_shares = split.shares()
    rows = reads_writes(run.decoder_in, run.decoder_out)
    role = by_role(ckpt, run, split.head, means, weights_from_terms, label)
    return TaskColumn(
        id=column, task=task, label=label, run=run, shares=shares, layer=layer, head=best,
        best=run.trace["cross", layer][best], rows=rows, source=run.source, best_title=f"cross L{layer} H{best}",
        best_caption=f"Cross L{layer} H{best}: {shares[layer, best]:.0%} of your text's output steps put their "
                     f"largest weight on {words.pattern} ({words.short_rule}"
                     f"{', or an equal letter' if equal_counts(task) else ''}), the most of any cross head of this "
                     "model.",
        wrong_note=wrong_note, split_head=split.head, split_shares=split_shares,
        split_sentence=split_sentence(label, split.head, split_shares),
        grid=run.trace.stack_attention("cross"), grid_title=f"{label}: cross-attention, every layer and head",
        split_terms={name: split.centred(name) for name in FOUR},
        split_title=f"{label}: cross L0 H{split.head}, its content and position terms (row mean taken away; "
                    "not shown: what layers wrote, the biases)", **role)


def by_role(ckpt: Checkpoint, run: Run, head: int, means: PositionMeans | str, weights_from_terms: str,
            label: str) -> dict:
    """TaskColumn's role_ fields: the split by role of one head, its noise, what each part alone keeps, and the
    weights from the chosen terms (the model's own where there is no split)."""
    own = run.trace["cross", 0][head]
    title = f"{label}: cross L0 H{head}, weights from {weights_from_terms}"
    if isinstance(means, str):
        return dict(role_shares=None, role_halves=None, role_kept={}, role_weights=own,
                    role_weights_title=f"{label}: cross L0 H{head}, the model's own weights",
                    role_sentence=f"**{label}**: no split by role on this text. {means}")
    try:
        split = functional_split(ckpt.model, run.trace, "cross", 0, head, means.both)
        halves = tuple(functional_split(ckpt.model, run.trace, "cross", 0, head, means.half(i)).shares()[
            POSITION_POSITION] for i in (0, 1))
    except SplitUnavailable as err:
        return dict(role_shares=None, role_halves=None, role_kept={}, role_weights=own,
                    role_weights_title=f"{label}: cross L0 H{head}, the model's own weights",
                    role_sentence=f"**{label}**: no split by role. {err}")
    counted = int((split.allowed.sum(1) >= 2).sum())
    kept = {name: (round(top_key_kept(split, terms) * counted) if counted else 0, counted)
            for name, terms in ALONE.items()}
    shares = split.shares()
    weights = own if weights_from_terms == WHOLE else weights_from(split, ALONE[weights_from_terms])
    return dict(role_shares=shares, role_halves=halves, role_kept=kept, role_weights=weights,
                role_weights_title=title,
                role_sentence=role_sentence(label, head, shares, halves, kept, means.samples))


def role_sentence(label: str, head: int, share: dict[str, float], halves: tuple[float, float],
                  kept: dict[str, tuple[int, int]], samples: int) -> str:
    """Position against content by role, with the noise of the random texts and what each part alone keeps."""
    position, content = share[POSITION_POSITION], share[CONTENT_CONTENT]
    counted = next(iter(kept.values()))[1]
    if math.isnan(position) or not counted:
        return (f"**{label}**: your text has one character, so each row has one key and no term can move a "
                "weight.")
    alone_p, alone_c, both = (kept[name][0] for name in ALONE)
    largest = max(share, key=share.get)
    if largest in MIXED:
        verdict = (f"the largest part mixes the two: {largest} carries **{share[largest]:.1%}**, {MIXED[largest]}. ")
    else:
        verdict = ("position weighs more than content. " if position > content else
                   "content weighs more than position. " if content > position else "the two weigh the same. ")
    low, high = sorted(halves)
    said = (f"**{label}**, cross L0 H{head}, by role: position·position carries **{position:.1%}** of what moves "
            f"its scores (with the mean over either half of the {samples} random texts alone: {low:.1%} and "
            f"{high:.1%}), content·content **{content:.1%}**, so on your text {verdict}"
            f"Its largest weight falls on the same key as the whole score's at **{alone_p} of {counted}** "
            f"steps from position·position alone, {alone_c} of {counted} from content·content alone, and "
            f"{both} of {counted} from the two together.")
    if alone_p == counted:
        return said + " Position alone picks where this head looks on your text."
    # One step more is within what another draw of the random texts moves; and the reading that position narrows
    # the search needs position alone to find the key at half the steps at least (the sorter's finds 0-1 of 20).
    if both >= max(alone_p, alone_c) + 2 and 2 * alone_p >= counted:
        return said + (" Together they keep more steps than either alone. One reading: position narrows where "
                       "the head looks, and the letters choose the key within it.")
    return said


def split_sentence(label: str, head: int, share: dict[str, float]) -> str:
    """The raw split: what the raw codes carry, and why it cannot tell position from content past the encoder."""
    position, content = share[POSITION_POSITION], share[CONTENT_CONTENT]
    if math.isnan(position):
        return (f"**{label}**: your text has one character, so each row has one key and no term can move a "
                "weight.")
    largest = max(share, key=share.get)
    return (
        f"**{label}**, cross L0 H{head}, the raw codes: the largest part is *{largest}* "
        f"(**{share[largest]:.1%}**). Position·position of the sinusoidal rows carries **{position:.1%}** and "
        f"content·content of the embeddings **{content:.1%}**."
        + (" The layers have rewritten the raw codes into what they wrote (the encoder's on the key side, and "
           "the decoder's first self-attention on the query side), so the raw codes, before that rewriting, "
           "leave the largest part unassigned here; the split by role above assigns it, by taking "
           "as position what the stream is on average over random texts."
           if largest == WITH_WRITTEN else ""))
