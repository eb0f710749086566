"""How this model reverses: an evidence chain, each link a live number on the learner's text.

One record (or sentence) per section, in the order the page draws them, because the lab's whole-sample tables
stand between the sections: for an own model each is computed only when the learner asks (explorer.on_request
stops the page until then), and the sections drawn so far must stay on screen meanwhile. Where a table's
arguments follow from another table (the even heads, the head read first), a function here names them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import pandas as pd

from transformer.config import ModelConfig
from transformer.model import Transformer

from ..lab import (EVEN_UNIFORMITY, FirstFailure, HeadEffect, HeadPattern, correlation_words, rank_agreement,
                   score_correlation)
from ..labels import KIND_SHORT, attention_axes, visible
from ..lesson import pattern_shares
from ..mechanism import READABLE, LengthProbe, output_range, read_length
from ..offsets import EXPLAINED_SHARE, OFFSETS, OffsetFit, offset_label, read_head, read_offset
from ..patching import PatchScore, past_rescue, past_span
from ..run import Run

HeadKey = tuple[str, int, int]   # (kind, layer, head): a head as plain values, as the lab's cached tables take it
NOTICEABLE = 0.05   # a change of this share of steps or more is called a change (about 2 standard errors of a
                    # share near 50 % over the ~2,400 steps of 200 held-out words is 0.02; this leaves margin)
CLEAR = 0.2         # a fall of this share of steps or more: the layer "depends on" the head


def mirror_needs_length(text: str, escape: Callable[[str], str]) -> str:
    """Section 1: where the learner's text's first and last steps copy from. `escape` makes a character safe in
    markdown (explorer.text.escape_markdown)."""
    n = len(text)
    return (f"To write your text backwards, output step i copies source position n−1−i. Your text has n = {n}, so "
            f"step 0 copies position {n - 1} ('{escape(visible(text[-1]))}') and step {n - 1} copies position 0. "
            "The position to copy moves with n: a word one letter longer starts from a different place. So the model "
            "has to know n before it writes its first character. The position codes alone do not tell it: position "
            "0 has the same code in every word (*Positional encoding* shows the map from a position to its mirror "
            "changes with n).")


def even_heads(patterns: list[HeadPattern]) -> tuple[HeadKey, ...]:
    """The encoder self-attention heads that spread their weight almost evenly: the candidates for carrying the
    length, which the page switches off (their probe table is asked for with these keys)."""
    return tuple((p.head.kind, p.head.layer, p.head.head) for p in patterns
                 if p.head.kind == "encoder_self" and p.uniformity >= EVEN_UNIFORMITY)


@dataclass(frozen=True)
class LengthSource:
    """Section 2: linear probes for the length n, R streams by P source positions, with the even heads on and
    off, and what they read on the learner's text."""

    r2: pd.DataFrame                 # (R, P) held-out R² of each probe, every head working, rounded as shown
    caption: str
    even: str | None                 # the even heads and the two questions (None: no head spreads evenly)
    r2_off: pd.DataFrame | None      # (R, P) the intact model's probes, the even heads off
    r2_refit: pd.DataFrame | None    # (R, P) probes refitted with the even heads off
    exact: str                       # exact match on the lab's sample, every head working
    off_label: str
    exact_off: str                   # the same with the even heads off
    exact_change: str
    reading: str                     # what the tables show, and what the probes read of the learner's text
    no_candidate: str | None         # why nothing is switched off (None: there are even heads)


def length_source(probe: LengthProbe, run: Run, ablated: Run | None, sample_size: int,
                  noise_points: float) -> LengthSource:
    """`probe` is fitted with its heads_off the even heads; `run` is the learner's text and `ablated` the same
    text with those heads off (None when there are none); the probes are scored on `sample_size` held-out words,
    whose exact match carries `noise_points` of sampling noise (one standard error at 50 %, in points)."""
    columns = [f"position {p}" for p in probe.positions]

    def table(r2: np.ndarray) -> pd.DataFrame:                         # (R, P), as shown
        return pd.DataFrame(r2, index=probe.streams, columns=columns).round(3)

    memory, n = len(probe.streams) - 1, len(run.text)                # the encoder output, read at position 0
    guess = read_length(probe, memory, 0, run.trace)
    caption = (f"Probes fitted on about 600 held-out words, scored on {sample_size} others, at source positions "
               f"{', '.join(map(str, probe.positions))} (doubling: fewer words reach the far ones). In the input the best "
               f"R² is {np.nanmax(probe.r2[0]):.2f}; in the encoder output the worst is "
               f"{output_range(probe.r2)[0]:.2f}.")
    even = probe.heads_off
    exact = dict(exact=f"{probe.exact:.1%}", off_label=f"With the {len(even)} evenly spreading encoder heads off",
                 exact_off=f"{probe.exact_off:.1%}", exact_change=f"{probe.exact_off - probe.exact:+.1%}")
    if ablated is None:
        return LengthSource(
            r2=table(probe.r2), caption=caption, even=None, r2_off=None, r2_refit=None, **exact,
            reading=f"For your text, the probe reading the encoder output at position 0 says n ≈ **{guess:.1f}** "
                    f"(it is {n}).",
            no_candidate=f"No encoder head of this model spreads its weight evenly (uniformity at least "
                         f"{EVEN_UNIFORMITY}), so there is no candidate to switch off here.")
    guess_off, guess_refit = (read_length(probe, memory, 0, ablated.trace, refit) for refit in (False, True))
    (old_low, old_high), (refit_low, refit_high) = output_range(probe.r2_off), output_range(probe.r2_refit)
    return LengthSource(
        r2=table(probe.r2), caption=caption,
        even=f"{len(even)} encoder self-attention head(s) spread their weight almost evenly (uniformity at least "
             f"{EVEN_UNIFORMITY} on *Which head does the work?*): {', '.join(map(str, even))}. Such a head computes "
             "close to the mean of the positions' values; every value carries its position's code, so the mean can "
             "change with n: a candidate way in for the length. Switch them off and ask two questions on the same "
             "words: do the probes fitted on the intact model still read n (left), and can probes fitted afresh on "
             "the changed model read it (right)?",
        r2_off=table(probe.r2_off), r2_refit=table(probe.r2_refit), **exact,
        reading=f"In the encoder output, with the heads off, the intact model's probes score R² **{old_low:.2f}** to "
                f"**{old_high:.2f}**, and probes refitted on the changed model **{refit_low:.2f}** to "
                f"**{refit_high:.2f}**. " + length_verdict(probe, noise_points)
                + f" For your text, the probe reading the encoder output at position 0 says n ≈ **{guess:.1f}** (it "
                f"is {n}); with those heads off, the intact model's probe says **{guess_off:.1f}** and the refitted "
                f"one **{guess_refit:.1f}**.",
        no_candidate=None)


def length_verdict(probe: LengthProbe, noise_points: float) -> str:
    """What the two probe tables and the exact match show together, in words that follow the numbers."""
    old_low, old_high = output_range(probe.r2_off)
    refit_low, refit_high = output_range(probe.r2_refit)
    fell = probe.exact_off * 100 < probe.exact * 100 - 2 * noise_points
    exact = (f"The exact match falls from {probe.exact:.1%} to {probe.exact_off:.1%}: the model needs these heads. "
             if fell else f"The exact match is {probe.exact_off:.1%} (every head working: {probe.exact:.1%}). ")
    if refit_low >= READABLE:
        moved = (" What fell is the old probes' fit: the stream has moved away from what they were fitted on."
                 if old_high < refit_low - 0.2 else "")
        return (f"So the length is still linearly readable in the encoder output with these heads off.{moved} These "
                "numbers do not show that the length enters through these heads. " + exact
                + ("The probes do not say what for. One reading: the later layers, like the old probes, were "
                   "fitted to the intact stream." if fell else ""))
    if refit_high < READABLE:
        return ("Refitted probes cannot read it either: with these heads off, a linear read-out finds little of the "
                "length in the encoder output. That fits the reading that the length enters through these heads, "
                "though switching a head off removes everything it does. " + exact)
    return ("Refitted probes read it at some positions and not at others, so the length is only partly readable "
            "with these heads off. " + exact)


def every_encoder_head(config: ModelConfig, even: tuple[HeadKey, ...]) -> tuple[HeadKey, ...] | None:
    """Every encoder self-attention head, for the comparison with all of them off; None when those are the even
    heads already (the comparison would repeat the table above)."""
    every = tuple(("encoder_self", layer, h) for layer in range(config.n_encoder_layers) for h in range(config.n_heads))
    return None if set(every) == set(even) else every


def every_head_off(every: LengthProbe) -> str:
    """Section 2's comparison: `every` is fitted with every encoder head off, where no length can get through."""
    low, high = output_range(every.r2_refit)
    return (f"For comparison, with **every** encoder head off ({len(every.heads_off)}), refitted probes score R² "
            f"**{low:.2f}** to **{high:.2f}** in the encoder output, and the exact match is **{every.exact_off:.1%}**. "
            "Without encoder self-attention a position sees only its own character and code, so no length can "
            "reach the encoder's output: "
            + ("the probes find none, as they must." if high < READABLE else
               "what a refitted probe scores there is its error on held-out words, not a length."))


def last_cross_heads(config: ModelConfig) -> tuple[HeadKey, ...]:
    """Every cross-attention head of the last decoder layer, which section 3 switches off."""
    return tuple(("cross", config.n_decoder_layers - 1, h) for h in range(config.n_heads))


def last_layer_mirror(config: ModelConfig, run: Run, broken: Run, escape: Callable[[str], str]) -> str:
    """Section 3: how often the last layer's heads look at the mirrored position on the learner's text (`run`),
    and what the model writes with them off (`broken`)."""
    shares = pattern_shares(run, config.n_decoder_layers - 1)                        # (H,)
    return (f"In the last decoder layer, the share of your text's output steps whose largest cross-attention weight "
            f"is on the mirrored source position: " + ", ".join(f"head {h} **{s:.0%}**" for h, s in enumerate(shares))
            + f" (a head looking at a random position would score about 1/n = {1 / len(run.text):.0%}). Switch those "
            f"{config.n_heads} heads off and the model writes **{escape(visible(broken.output) or '(nothing)')}** "
            f"instead of **{escape(visible(run.output))}**.")


def read_first(fits: list[OffsetFit], task: str, last_layer: int) -> tuple[HeadKey] | None:
    """Section 4's head, as a key to switch off: the cross head before the last layer whose largest weight lands
    where the character its step reads came from, when that offset explains it; None when no head does so."""
    first = read_head(fits, task, last_layer)
    return ((first.kind, first.layer, first.head),) if _reads_first(first, task) else None


def _reads_first(first: OffsetFit | None, task: str) -> bool:
    return first is not None and first.best_offset == read_offset(task) and first.explained


@dataclass(frozen=True)
class TwoSteps:
    """Section 4: a head that reads where the character just read came from, and the last layer one to the left.
    H heads of the last layer, Tq decoder positions, S source characters."""

    info: str | None                 # the model has a single decoder layer: nothing to show
    sentences: list[str]             # what the numbers show, in order
    on: np.ndarray | None            # (H, Tq, S) the last layer's cross-attention, every head on (None: no head)
    off: np.ndarray | None           # (H, Tq, S) the same with the first head off
    rows: list[str]                  # (Tq,) what each step reads and writes
    cols: list[str]                  # (S,)
    off_name: str                    # the first head, as the chart stars it
    caption: str | None


def two_steps(task: str, last_layer: int, fits: list[OffsetFit], effects: list[HeadEffect],
              without: list[OffsetFit] | None, taught: Run, taught_off: Run | None, sample_size: int) -> TwoSteps:
    """`fits` scores every head against the offsets of its pattern on `sample_size` held-out words, `without`
    the last layer's heads with the read_first head off; `effects` is the single-head ablation ranking; `taught`
    and `taught_off` the learner's text with the correct reversal fed in, the head on and off (`without` and
    `taught_off` are None when read_first names no head)."""
    empty = dict(on=None, off=None, rows=[], cols=[], off_name="", caption=None)
    first = read_head(fits, task, last_layer)
    if first is None:
        return TwoSteps(info="This model has a single decoder layer: no cross head comes before the last one, so "
                             "none can pass anything on to it.", sentences=[], **empty)
    read_label = offset_label("cross", task, read_offset(task))
    if not _reads_first(first, task):
        return TwoSteps(info=None, sentences=[
            f"Step i reads the character written at step i−1, which stood at source position {read_label}. No cross "
            f"head before the last layer puts its largest weight there in at least {EXPLAINED_SHARE:.0%} of steps: "
            f"the closest, {first.id}, does so in {first.shares[read_offset(task)]:.0%} (its best offset is "
            f"{first.best_offset:+d}, {offset_label('cross', task, first.best_offset)}, in {first.best_share:.0%}). "
            "So this model shows no such first step."], **empty)
    mirror_label = offset_label("cross", task, 0)
    drop = {e.head: e.drop for e in effects}
    on = np.array([f.shares[0] for f in fits if f.kind == "cross" and f.layer == last_layer])    # (H,)
    off = np.array([f.shares[0] for f in without])                                               # (H,)
    fall = on.mean() - off.mean()
    sentences = [
        f"Step i reads the character written at step i−1, which stood at source position **{read_label}**. Over "
        f"{sample_size} held-out words with the correct reversal fed in, **{first.id}** puts its largest weight "
        f"there in **{first.best_share:.1%}** of steps (mean top weight {first.mean_top_weight:.2f}); switched off "
        f"alone it costs {drop[first.id]:.1%} of exact match. The last layer's heads land on the mirror "
        f"{mirror_label}, one position to the left, in **{on.min():.0%}–{on.max():.0%}** of steps (mean "
        f"{on.mean():.1%}); with {first.id} switched off, in **{off.min():.0%}–{off.max():.0%}** (mean "
        f"{off.mean():.1%})."]
    if fall >= CLEAR:
        sentences.append(
            f"So where the last layer looks depends on {first.id}: switching it off takes {fall:.0%} of the steps "
            f"off the mirror. One reading is: layer {first.layer} finds where the character just read came from, "
            "and the last layer steps one to the left. The numbers show the dependence; how the last layer turns "
            f"{read_label} into {mirror_label} (through its queries, its keys, or both) they do not show.")
    elif fall >= NOTICEABLE:
        sentences.append(f"Switching it off takes {fall:.0%} of the last layer's steps off the mirror: the last layer "
                         "depends on it in part, and finds the mirror in most steps without it.")
    else:
        sentences.append(f"Switching it off moves the last layer's share on the mirror by {fall:+.0%}: these numbers "
                         "do not show the last layer building on it.")
    rows, cols, _, _ = attention_axes("cross", taught.source, taught.decoder_in, taught.decoder_out)
    return TwoSteps(
        info=None, sentences=sentences, on=taught.trace["cross", last_layer], off=taught_off.trace["cross", last_layer],
        rows=rows, cols=cols, off_name=str(first.id),
        caption="Your text with the correct reversal fed in, so each row reads the same character in both rows of "
                f"maps. Unstarred: every head on; starred (*): {first.id} switched off.")


def looking_and_needed(task: str, patterns: list[HeadPattern], fits: list[OffsetFit],
                       effects: list[HeadEffect]) -> str:
    """Section 5: how far looking right (a head's pattern score, its best offset) goes with being needed (what
    switching it off costs), and what the costliest head looks at."""
    drop = {e.head: e.drop for e in effects}
    by_kind = rank_agreement(patterns, drop)
    rho_offset = score_correlation({f.id: f.best_share for f in fits}, drop)
    costliest = effects[0]
    costly = next(f for f in fits if f.id == costliest.head)
    costly_score = next(p.score for p in patterns if p.head == costliest.head)
    shifted = costly.explained and costly.best_offset != 0
    return (
        "An attention map shows where a head looks, not whether the model needs what it finds there "
        "(attention is not explanation), and a hypothesis can miss a head that follows it shifted by a position. "
        "Within each kind of attention, the rank correlation between matching its hypothesis and what switching "
        "the head off costs is "
        + ", ".join(f"{KIND_SHORT[k].lower()} **ρ = {r:.2f}**" if r is not None else
                    f"{KIND_SHORT[k].lower()} undefined" for k, r in by_kind.items()) + ". "
        + f"The costliest head, **{costliest.head}** ({costliest.drop:.1%} of exact match lost), scores "
        f"{costly_score:.2f} against its hypothesis"
        + (f", yet its largest weight lands on **{offset_label(costly.kind, task, costly.best_offset)}** (offset "
           f"{costly.best_offset:+d}) in **{costly.best_share:.1%}** of steps: it follows the hypothesis shifted by "
           f"{costly.best_offset:+d}, not something unnamed. " if shifted else
           f", and its largest weight lands on the hypothesis's key in {costly.shares[0]:.1%} of steps. "
           if costly.explained else
           f"; no offset from {OFFSETS[0]} to +{OFFSETS[-1]} holds its largest weight in {EXPLAINED_SHARE:.0%} of "
           f"steps (best: {offset_label(costly.kind, task, costly.best_offset)}, {costly.best_share:.0%}). ")
        + (f"Over every head, the share of steps on each head's best offset and the cost rank with ρ = "
           f"**{rho_offset:.2f}**: the two rankings {correlation_words(rho_offset)}. "
           if rho_offset is not None else "")
        + "Switching heads off is the evidence of need; the maps, scored against a family of patterns, say where to "
          "look.")


@dataclass(frozen=True)
class BeyondTraining:
    """Section 6: where random strings longer than trained first go wrong."""

    longer: bool         # whether the model reads any text longer than it was trained on
    sentence: str
    caption: str | None  # the longest length measured (None: no longer text)


def beyond_training(failures: list[FirstFailure], max_len: int) -> BeyondTraining:
    """`failures` is the lab's first-failure table (analysis.lab.first_failures) around the trained length
    `max_len`; only the lengths past it count here."""
    past = [f for f in failures if f.length > max_len]
    if not past:
        return BeyondTraining(False, "This model reads no text longer than it was trained on, so there is nothing "
                                     "to show here.", None)
    at_once = sum(f.wrong_at_step_0 for f in past) / len(past)
    beyond = past[-1]
    return BeyondTraining(
        True,
        f"Past {max_len} characters, {at_once:.0%} of random strings go wrong at the very first output character "
        "(*Longer than trained*). Step 0 must copy position n−1, so it needs the length, and in training no encoder "
        f"head ever averaged over more than {max_len} positions. One reading is that the length read-out fails "
        "first, and every later step inherits the wrong start.",
        f"At length {beyond.length}: {beyond.exact:.0%} reversed exactly, p(correct first character) "
        f"{beyond.p_step_0:.3f}.")


def length_reading_tested(model: Transformer, own: PatchScore, mirror: PatchScore, layer: int,
                          noise_points: float) -> str | None:
    """Build a head's test of section 6's reading: the mirror, built from the true length, in place of cross
    layer `layer`; what it rescues past the trained length (analysis.patching.past_rescue), in words that follow
    the numbers. None when the model reads no longer words."""
    if own.past is None or mirror.past is None:
        return None
    said = (f"*Build a head* tests it: the ideal mirror, built from the true length n, in place of every cross head "
            f"of layer {layer}. On the {mirror.n_within} held-out words it keeps **{mirror.within:.1%}** exact "
            f"(own weights {own.within:.1%}); on {mirror.n_past} words of {past_span(model)} characters, "
            f"**{mirror.past:.1%}** (own weights {own.past:.1%}). ")
    gain = mirror.past - own.past
    return said + {
        "worse": "The mirror does worse than the model's own weights here: handing over the length does not help.",
        "noise": "Handing over the true length rescues no more than the noise: what fails lies elsewhere too.",
        "nearly all": "Handing over the true length rescues nearly all of them, which fits the reading that the "
                      "length read-out is what fails.",
        "most": f"Handing over the true length rescues {gain * 100:.1f} points, most of what the model's own weights "
                f"lose, though {1 - mirror.past:.0%} still fail: the length read-out is a large part of what fails.",
        "some": f"Handing over the true length rescues {gain * 100:.1f} points, not most of the words: the length "
                "read-out is at most part of what fails.",
    }[past_rescue(own, mirror, noise_points)]
