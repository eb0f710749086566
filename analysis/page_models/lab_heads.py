"""Lab: which head does the work? Every head scored against its kind's hypothesis and that hypothesis's offsets,
beside what switching it off costs, and what the two rankings say together.

The hypotheses' table is its own function: the page shows it before it asks for the three sample tables, which
for an own model are computed only when the learner asks (explorer.on_request stops the page until then).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from transformer.intervention import Head
from transformer.trace import Kind

from ..lab import (EVEN_UNIFORMITY, HYPOTHESES, HeadEffect, HeadPattern, correlation_words, rank_agreement,
                   rank_correlation, score_correlation)
from ..labels import KIND_SHORT
from ..offsets import EXPLAINED_SHARE, OFFSETS, OffsetFit, offset_label
from ..tasks import equal_counts, words

FLAT_TOP = 0.3   # a mean top weight below this: the head's largest weight is a slight preference on a flat row

TOP = 4  # how many heads each ranking calls its best


def hypothesis_table(task: str) -> pd.DataFrame:
    """One row per attention kind: its hypothesis, and the keys its offsets name, for this task."""
    pattern = words(task).pattern
    return pd.DataFrame({
        "attention kind": list(HYPOTHESES),
        "hypothesis: query i attends to": [h.format(pattern=pattern) for h in HYPOTHESES.values()],
        f"offsets {OFFSETS[0]}…+{OFFSETS[-1]}: query i attends to":
            [", ".join(offset_label(kind, task, k) for k in OFFSETS) for kind in HYPOTHESES],
    })


@dataclass(frozen=True)
class HeadsLab:
    """N heads, in the order of the pattern ranking (best score first)."""

    table: pd.DataFrame             # (N rows) scores, best offset, cost when off and both ranks
    caption: str
    heads: list[str]                # (N,) the heads' names, for the two scatter charts
    kinds: list[Kind]               # (N,)
    scores: list[float]             # (N,) pattern score
    best_shares: list[float]        # (N,) share of steps on each head's best offset
    drops: list[float]              # (N,) exact match lost when the head is off
    agreement: str                  # do the two rankings agree (markdown)
    bullets: list[str]              # heads in only one top list, grouped, one markdown bullet each
    even: str                       # the even heads and what switching them off costs (markdown)


def heads_lab(task: str, patterns: list[HeadPattern], fits: list[OffsetFit], ablation: tuple[float, list[HeadEffect]],
              sample_size: int, noise_points: float) -> HeadsLab:
    """`patterns` (analysis.lab.pattern_scores, best first), `fits` (analysis.offsets.head_offsets) and
    `ablation` (analysis.lab.ablation_ranking: exact match with every head, and each head's effect, costliest
    first) over the same `sample_size` held-out words; `noise_points` is one standard error of an exact-match
    figure at 50 %, in points. A cost under twice that is not told apart from none."""
    fit = {f.id: f for f in fits}
    _, effects = ablation
    drop = {e.head: e.drop for e in effects}
    harm_rank = {e.head: i + 1 for i, e in enumerate(effects)}
    score = {p.head: p.score for p in patterns}
    table = pd.DataFrame({
        "rank by pattern": range(1, len(patterns) + 1),
        "head": [str(p.head) for p in patterns],
        "pattern score": [p.score for p in patterns],
        "chance": [p.chance for p in patterns],
        "best offset": [fit[p.head].best_offset for p in patterns],
        "key it names": [offset_label(p.head.kind, task, fit[p.head].best_offset) for p in patterns],
        "steps there": [fit[p.head].best_share for p in patterns],
        "mean top weight": [fit[p.head].mean_top_weight for p in patterns],
        "entropy (nats)": [p.entropy for p in patterns],
        "uniformity": [p.uniformity for p in patterns],
        "exact match lost when off": [drop[p.head] for p in patterns],
        "rank by harm": [harm_rank[p.head] for p in patterns],
    })
    caption = (f"Scores are averaged over {sample_size} held-out words with {words(task).output}, correct, fed to the "
               "decoder. Decoder row 0 can only attend to ⟨s⟩ and the end step copies nothing, so neither is counted. "
               + (f"For {task}, weight on any source position holding the right character counts. "
                  if equal_counts(task) else "") +
               "*Steps there*: the share of steps whose largest weight is on the key the best offset names; *mean top "
               "weight*: the mean of each step's largest weight (1: all on one key). "
               f"Each exact-match loss carries up to ±{noise_points:.1f} points of sampling noise.")

    best_by_pattern = {p.head for p in patterns[:TOP]}
    best_by_harm = {e.head for e in effects[:TOP]}
    return HeadsLab(
        table=table, caption=caption, heads=[str(p.head) for p in patterns], kinds=[p.head.kind for p in patterns],
        scores=[p.score for p in patterns], best_shares=[fit[p.head].best_share for p in patterns],
        drops=[drop[p.head] for p in patterns],
        agreement=_agreement(patterns, fit, drop, best_by_pattern & best_by_harm),
        bullets=_bullets(task, score, fit, drop, best_by_pattern, best_by_harm, noise_points),
        even=_even(task, patterns, drop, noise_points, fit))


def _agreement(patterns: list[HeadPattern], fit: dict[Head, OffsetFit], drop: dict[Head, float],
               both: set[Head]) -> str:
    rho = rank_correlation(patterns, drop)
    rho_offset = score_correlation({h: f.best_share for h, f in fit.items()}, drop)
    return (
        (f"Rank correlation between pattern score and harm (Spearman ρ): **{rho:.2f}** over {len(patterns)} heads: "
         f"the two rankings **{correlation_words(rho)}**. "
         if rho is not None else "A rank correlation is not defined here: every head costs the same when removed. ")
        + f"Of the top {TOP} by pattern and the top {TOP} by harm, {len(both)} are the same head"
        + (f" ({', '.join(map(str, sorted(both)))})." if both else ".")
        + " The kinds are scored against different hypotheses with different chance levels, so within each kind: "
        + ", ".join(f"{KIND_SHORT[k].lower()} ρ = {r:.2f}" if r is not None else f"{KIND_SHORT[k].lower()} undefined"
                    for k, r in rank_agreement(patterns, drop).items()) + "."
        + (f" Ranked instead by the share of steps on each head's best offset, ρ = **{rho_offset:.2f}**: that ranking "
           f"and harm **{correlation_words(rho_offset)}**." if rho_offset is not None else ""))


def _bullets(task: str, score: dict[Head, float], fit: dict[Head, OffsetFit], drop: dict[Head, float],
             best_by_pattern: set[Head], best_by_harm: set[Head], noise_points: float) -> list[str]:
    """The heads only one ranking puts in its top: those that look right, and those needed, with or without an
    offset that explains them."""
    bullets = []
    only_pattern, only_harm = sorted(best_by_pattern - best_by_harm), sorted(best_by_harm - best_by_pattern)
    if only_pattern:
        coped = all(drop[h] * 100 < 2 * noise_points for h in only_pattern)
        bullets.append(
            ("- **Look right, but the model copes without any one of them:** " if coped else
             "- **Look right, but others cost more when switched off:** ")
            + ", ".join(f"{h} (score {score[h]:.2f}, {drop[h]:.1%} lost)" for h in only_pattern)
            + (". One reading: heads that share a job cover for each other." if coped else
               ". Each of these is still needed; looking right ranks them first, removing them does not."))

    def named(head: Head) -> str:
        f = fit[head]
        label = offset_label(head.kind, task, f.best_offset)
        where = (f"largest weight on **{label}**, offset {f.best_offset:+d}, in {f.best_share:.0%} of steps"
                 if f.explained else
                 f"its most frequent offset, {label} ({f.best_offset:+d}), holds the largest weight in only "
                 f"{f.best_share:.0%} of steps")
        flat = (": the row is nearly flat, so this is a slight preference" if f.mean_top_weight < FLAT_TOP else "")
        return (f"{head} ({drop[head]:.1%} lost, score {score[head]:.2f}; {where}, mean top weight "
                f"{f.mean_top_weight:.2f}{flat})")

    shifted = [h for h in only_harm if fit[h].explained]
    unexplained = [h for h in only_harm if not fit[h].explained]
    if shifted:
        bullets.append("- **Needed, and explained by an offset:** " + ", ".join(map(named, shifted))
                       + ". The hypothesis scores " + ("them" if len(shifted) > 1 else "it")
                       + " low, yet one offset holds the largest weight in most steps.")
    if unexplained:
        bullets.append("- **Needed, and not explained by any offset:** " + ", ".join(map(named, unexplained))
                       + f". No offset from {OFFSETS[0]} to +{OFFSETS[-1]} holds the largest weight in "
                       f"{EXPLAINED_SHARE:.0%} of steps; this table cannot say what they do.")
    return bullets


def _even(task: str, patterns: list[HeadPattern], drop: dict[Head, float], noise_points: float,
          fit: dict[Head, OffsetFit]) -> str:
    """The heads that read the source and spread their weight evenly: what switching the costliest off shows.
    For a cross head the even mean of the source's values also summarises which letters the text holds; a head
    the offsets named too is joined to that reading (a nearly flat row with a slight preference is both)."""
    even = [p for p in patterns if p.uniformity >= EVEN_UNIFORMITY and p.head.kind != "decoder_self"]
    if not even:
        return (f"No encoder or cross head here spreads its weight almost evenly (uniformity at least "
                f"{EVEN_UNIFORMITY}).")
    costly = max(even, key=lambda p: drop[p.head])
    needed = drop[costly.head] * 100 >= 2 * noise_points
    use = ("which the mirror position n−1−i needs" if task == "reverse" else "which knowing when to stop needs")
    return (
        f"{len(even)} encoder or cross head(s) spread their weight almost evenly over the source (uniformity at "
        f"least {EVEN_UNIFORMITY}). Such a head computes close to the mean of the source positions' values; every "
        "value carries its position's code, so the mean can change with the length n. "
        + (f"Switching off **{costly.head}** (uniformity {costly.uniformity:.2f}) costs **{drop[costly.head]:.1%}** "
           f"of exact match. "
           + (f"It is a cross head, so its mean is over the source's values: one reading is that it summarises "
              "which letters the text holds, the counts of each letter that sorting needs; another, that it tells "
              f"later layers how long the text is, {use}. " if costly.head.kind == "cross" and task == "sort" else
              f"One reading: the mean tells later layers how long the text is, {use}. ")
           + (f"It is also named above with an offset ({fit[costly.head].best_share:.0%} of steps on "
              f"{offset_label('cross', task, fit[costly.head].best_offset)}): with a mean top weight of "
              f"{fit[costly.head].mean_top_weight:.2f} over its keys, a slight preference for one key rides on an "
              "almost even average, and both readings describe the same row. "
              if costly.head in fit and fit[costly.head].explained and costly.head.kind == "cross"
              and fit[costly.head].mean_top_weight < FLAT_TOP else "")
           if needed else
           f"Switching off any one of them costs at most **{drop[costly.head]:.1%}** of exact match "
           f"({costly.head}), within twice the sampling noise: the model copes without each one alone, so this "
           "table neither supports nor rules out that they carry the length. ")
        + ("*How it reverses* switches the evenly spreading heads off and probes for the length; this table does not, and a "
           "cost shows that the model needs a head, not what for. "
           if task == "reverse" else
           "This table does not test it. ") +
        "(An evenly spreading decoder self-attention head averages over what has been written so far instead, which could "
        "tell the decoder how many steps it has taken.)")
