"""How this model reverses: an evidence chain, each link a live number on the learner's text."""

import numpy as np
import pandas as pd
import streamlit as st

from analysis.lab import EVEN_UNIFORMITY, correlation_words, rank_agreement, score_correlation
from analysis.labels import KIND_SHORT, attention_axes
from analysis.lesson import pattern_shares
from analysis.mechanism import READABLE, LengthProbe, output_range, read_length
from analysis.offsets import EXPLAINED_SHARE, OFFSETS, READ_OFFSET, offset_label, read_head
from analysis.patching import PatchScore, past_lengths
from explorer.charts import show_chart
from explorer.lab_runs import (NOISE_POINTS, SAMPLE_SIZE, ablation_table, failure_table, length_probe, offset_table,
                               patch_table, pattern_table)
from explorer.model import checkpoint_or_stop, reversal_only, text_run
from explorer.state import learner_text
from explorer.text import escape_markdown, visible
from viz.lab import maps_with_and_without

NOTICEABLE = 0.05   # a change of this share of steps or more is called a change (about 2 standard errors of a
                    # share near 50 % over the ~2,400 steps of 200 held-out words is 0.02; this leaves margin)
CLEAR = 0.2         # a fall of this share of steps or more: the layer "depends on" the head


def length_verdict(probe: LengthProbe) -> str:
    """What the two probe tables and the exact match show together, in words that follow the numbers."""
    old_low, old_high = output_range(probe.r2_off)
    refit_low, refit_high = output_range(probe.r2_refit)
    fell = probe.exact_off * 100 < probe.exact * 100 - 2 * NOISE_POINTS
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


def length_reading_tested(own: PatchScore, mirror: PatchScore, layer: int, lengths: str) -> str:
    """Build a head's test of the reading above: the mirror, built from the true length, in place of the last
    cross layer; what it rescues past the trained length, in words that follow the numbers."""
    said = (f"*Build a head* tests it: the ideal mirror, built from the true length n, in place of every cross head "
            f"of layer {layer}. On the {mirror.n_within} held-out words it keeps **{mirror.within:.1%}** exact "
            f"(own weights {own.within:.1%}); on {mirror.n_past} words of {lengths} characters, **{mirror.past:.1%}** "
            f"(own weights {own.past:.1%}). ")
    gain = mirror.past - own.past
    if gain * 100 < -NOISE_POINTS:
        return said + "The mirror does worse than the model's own weights here: handing over the length does not help."
    if gain * 100 <= NOISE_POINTS:
        return said + "Handing over the true length rescues no more than the noise: what fails lies elsewhere too."
    if mirror.past >= 0.9:
        return said + ("Handing over the true length rescues nearly all of them, which fits the reading that the "
                       "length read-out is what fails.")
    if gain >= (1 - own.past) / 2:
        return said + (f"Handing over the true length rescues {gain * 100:.1f} points, most of what the model's own "
                       f"weights lose, though {1 - mirror.past:.0%} still fail: the length read-out is a large part "
                       "of what fails.")
    return said + (f"Handing over the true length rescues {gain * 100:.1f} points, not most of the words: the length "
                   "read-out is at most part of what fails.")


st.title("🧩 How this model reverses")
reversal_only("This page")
st.markdown(
    "What does this model actually do to reverse your text? Each step below is a piece of evidence measured "
    "on the model, not a story about Transformers in general. Where the evidence only fits an explanation "
    "without proving it, the page says so."
)

ckpt = checkpoint_or_stop()
text = learner_text(ckpt)
config = ckpt.model.config
n = len(text)
run = text_run(text)
last_layer = config.n_decoder_layers - 1

st.header("1 · The mirror needs the length")
st.markdown(
    f"To write your text backwards, output step i copies source position n−1−i. Your text has n = {n}, so step 0 "
    f"copies position {n - 1} ('{escape_markdown(visible(text[-1]))}') and step {n - 1} copies position 0. The "
    "position to copy moves with n: a word one letter longer starts from a different place. So the model has "
    "to know n before it writes its first character. The position codes alone do not tell it: position 0 "
    "has the same code in every word (*Positional encoding* shows the map from a position to its mirror "
    "changes with n)."
)

st.header("2 · Where the length comes from")
patterns = pattern_table()
even = [p.head for p in patterns if p.head.kind == "encoder_self" and p.uniformity >= EVEN_UNIFORMITY]
even_keys = tuple((h.kind, h.layer, h.head) for h in even)
probe = length_probe(even_keys)
columns = [f"position {p}" for p in probe.positions]
st.markdown(
    "A **linear probe** is a small regression fitted to read one thing from the model's numbers. Here one probe "
    "per row and column reads n from the encoder's residual stream at one source position; its R² on held-out "
    "words (1: reads n exactly, 0: no better than guessing the average length) says how much of the length a "
    "linear read-out finds there. Below 0 it does worse than guessing the average, as when a stream has moved "
    "away from what the probe was fitted on."
)
st.dataframe(pd.DataFrame(probe.r2, index=probe.streams, columns=columns).round(3), width="content")
st.caption(f"Probes fitted on about 600 held-out words, scored on {SAMPLE_SIZE} others. In the input the best R² "
           f"is {np.nanmax(probe.r2[0]):.2f}; in the encoder output the worst is {output_range(probe.r2)[0]:.2f}.")
memory = len(probe.streams) - 1                                       # the encoder output, read at position 0
guess = read_length(probe, memory, 0, run.trace)
if even:
    st.markdown(
        f"{len(even)} encoder self-attention head(s) spread their weight almost evenly (uniformity at least "
        f"{EVEN_UNIFORMITY} on *Which head does the work?*): {', '.join(map(str, even))}. Such a head computes close "
        "to the mean of the positions' values; every value carries its position's code, so the mean can change with n: "
        "a candidate way in for the length. Switch them off and ask two questions on the same words: do the "
        "probes fitted on the intact model still read n (left), and can probes fitted afresh on the changed model "
        "read it (right)?"
    )
    left, right = st.columns(2)
    left.markdown("**The intact model's probes, heads off**")
    left.dataframe(pd.DataFrame(probe.r2_off, index=probe.streams, columns=columns).round(3), width="content")
    right.markdown("**Probes refitted with the heads off**")
    right.dataframe(pd.DataFrame(probe.r2_refit, index=probe.streams, columns=columns).round(3), width="content")
    ablated = text_run(text, teacher=True, ablated=even_keys).trace
    guess_off, guess_refit = (read_length(probe, memory, 0, ablated, refit) for refit in (False, True))
    left, right = st.columns(2)
    left.metric("Exact match, every head working", f"{probe.exact:.1%}")
    right.metric(f"With the {len(even)} even encoder heads off", f"{probe.exact_off:.1%}",
                 delta=f"{probe.exact_off - probe.exact:+.1%}", delta_color="normal")
    (old_low, old_high), (refit_low, refit_high) = output_range(probe.r2_off), output_range(probe.r2_refit)
    st.markdown(
        f"In the encoder output, with the heads off, the intact model's probes score R² **{old_low:.2f}** to "
        f"**{old_high:.2f}**, and probes refitted on the changed model **{refit_low:.2f}** to **{refit_high:.2f}**. "
        + length_verdict(probe)
        + f" For your text, the probe reading the encoder output at position 0 says n ≈ **{guess:.1f}** (it is "
        f"{n}); with those heads off, the intact model's probe says **{guess_off:.1f}** and the refitted one "
        f"**{guess_refit:.1f}**."
    )
    every_keys = tuple(("encoder_self", layer, h) for layer in range(config.n_encoder_layers)
                       for h in range(config.n_heads))
    if set(every_keys) != set(even_keys):
        every = length_probe(every_keys)
        low, high = output_range(every.r2_refit)
        st.markdown(
            f"For comparison, with **every** encoder head off ({len(every_keys)}), refitted probes score R² "
            f"**{low:.2f}** to **{high:.2f}** in the encoder output, and the exact match is **{every.exact_off:.1%}**. "
            "Without encoder self-attention a position sees only its own character and code, so no length can "
            "reach the encoder's output: "
            + ("the probes find none, as they must." if high < READABLE else
               "what a refitted probe scores there is its error on held-out words, not a length.")
        )
else:
    st.markdown(f"For your text, the probe reading the encoder output at position 0 says n ≈ **{guess:.1f}** (it is "
                f"{n}).")
    st.info(f"No encoder head of this model spreads its weight evenly (uniformity at least {EVEN_UNIFORMITY}), so there is "
            "no candidate to switch off here.", icon="ℹ️")

st.header("3 · The last layer and the mirrored position")
shares = pattern_shares(run, last_layer)
cross_off = tuple(("cross", last_layer, h) for h in range(config.n_heads))
broken = text_run(text, ablated=cross_off)
st.markdown(
    f"In the last decoder layer, the share of your text's output steps whose largest cross-attention weight is "
    f"on the mirrored source position: " + ", ".join(f"head {h} **{s:.0%}**" for h, s in enumerate(shares))
    + f" (a head looking at a random position would score about 1/n = {1 / n:.0%}). Switch those "
    f"{config.n_heads} heads off and the model writes **{escape_markdown(visible(broken.output) or '(nothing)')}** "
    f"instead of **{escape_markdown(visible(run.output))}**."
)

st.header("4 · Two steps: where the character just read came from, then one to the left")
fits = offset_table()
base, effects = ablation_table()
drop = {e.head: e.drop for e in effects}
read_label = offset_label("cross", ckpt.task, READ_OFFSET[ckpt.task])
mirror_label = offset_label("cross", ckpt.task, 0)
first = read_head(fits, ckpt.task, last_layer)
if first is None:
    st.info("This model has a single decoder layer: no cross head comes before the last one, so none can pass "
            "anything on to it.", icon="ℹ️")
elif not (first.best_offset == READ_OFFSET[ckpt.task] and first.explained):
    st.markdown(
        f"Step i reads the character written at step i−1, which stood at source position {read_label}. No cross "
        f"head before the last layer puts its largest weight there in at least {EXPLAINED_SHARE:.0%} of steps: the "
        f"closest, {first.id}, does so in {first.shares[READ_OFFSET[ckpt.task]]:.0%} (its best offset is "
        f"{first.best_offset:+d}, {offset_label('cross', ckpt.task, first.best_offset)}, in {first.best_share:.0%}). "
        "So this model shows no such first step."
    )
else:
    off_key = (("cross", first.layer, first.head),)
    last = [f for f in fits if f.kind == "cross" and f.layer == last_layer]
    without = offset_table(off_key, "cross", last_layer)
    on, off = np.array([f.shares[0] for f in last]), np.array([f.shares[0] for f in without])
    fall = on.mean() - off.mean()
    st.markdown(
        f"Step i reads the character written at step i−1, which stood at source position **{read_label}**. Over "
        f"{SAMPLE_SIZE} held-out words with the correct reversal fed in, **{first.id}** puts its largest weight "
        f"there in **{first.best_share:.1%}** of steps (mean top weight {first.mean_top_weight:.2f}); switched off "
        f"alone it costs {drop[first.id]:.1%} of exact match. The last layer's heads land on the mirror "
        f"{mirror_label}, one position to the left, in **{on.min():.0%}–{on.max():.0%}** of steps (mean "
        f"{on.mean():.1%}); with {first.id} switched off, in **{off.min():.0%}–{off.max():.0%}** (mean "
        f"{off.mean():.1%})."
    )
    if fall >= CLEAR:
        st.markdown(
            f"So where the last layer looks depends on {first.id}: switching it off takes {fall:.0%} of the steps "
            f"off the mirror. One reading is: layer {first.layer} finds where the character just read came from, "
            "and the last layer steps one to the left. The numbers show the dependence; how the last layer turns "
            f"{read_label} into {mirror_label} (through its queries, its keys, or both) they do not show."
        )
    elif fall >= NOTICEABLE:
        st.markdown(f"Switching it off takes {fall:.0%} of the last layer's steps off the mirror: the last layer "
                    "depends on it in part, and finds the mirror in most steps without it.")
    else:
        st.markdown(f"Switching it off moves the last layer's share on the mirror by {fall:+.0%}: these numbers do "
                    "not show the last layer building on it.")
    taught = text_run(text, teacher=True)
    rows, cols, _, _ = attention_axes("cross", taught.source, taught.decoder_in, taught.decoder_out)
    show_chart(maps_with_and_without(taught.trace["cross", last_layer],
                                     text_run(text, teacher=True, ablated=off_key).trace["cross", last_layer],
                                     rows, cols, str(first.id),
                                     title="Last layer"),
               key="composition")
    st.caption("Your text with the correct reversal fed in, so each row reads the same character in both rows of "
               f"maps. Top: every head on; bottom (*): {first.id} switched off.")

st.header("5 · Looking right, looking shifted, being needed")
by_kind = rank_agreement(patterns, drop)
rho_offset = score_correlation({f.id: f.best_share for f in fits}, drop)
costliest = effects[0]
costly = next(f for f in fits if f.id == costliest.head)
costly_score = next(p.score for p in patterns if p.head == costliest.head)
shifted = costly.explained and costly.best_offset != 0
st.markdown(
    "An attention map shows where a head looks, not whether the model needs what it finds there "
    "(attention is not explanation), and a hypothesis can miss a head that follows it shifted by a position. "
    "Within each kind of attention, the rank correlation between matching its hypothesis and what switching "
    "the head off costs is "
    + ", ".join(f"{KIND_SHORT[k].lower()} **ρ = {r:.2f}**" if r is not None else f"{KIND_SHORT[k].lower()} undefined"
                for k, r in by_kind.items()) + ". "
    + f"The costliest head, **{costliest.head}** ({costliest.drop:.1%} of exact match lost), scores "
    f"{costly_score:.2f} against its hypothesis"
    + (f", yet its largest weight lands on **{offset_label(costly.kind, ckpt.task, costly.best_offset)}** (offset "
       f"{costly.best_offset:+d}) in **{costly.best_share:.1%}** of steps: it follows the hypothesis shifted by "
       f"{costly.best_offset:+d}, not something unnamed. " if shifted else
       f", and its largest weight lands on the hypothesis's key in {costly.shares[0]:.1%} of steps. "
       if costly.explained else
       f"; no offset from {OFFSETS[0]} to +{OFFSETS[-1]} holds its largest weight in {EXPLAINED_SHARE:.0%} of steps "
       f"(best: {offset_label(costly.kind, ckpt.task, costly.best_offset)}, {costly.best_share:.0%}). ")
    + (f"Over every head, the share of steps on each head's best offset and the cost rank with ρ = "
       f"**{rho_offset:.2f}**: the two rankings {correlation_words(rho_offset)}. "
       if rho_offset is not None else "")
    + "Switching heads off is the evidence of need; the maps, scored against a family of patterns, say where to look."
)

st.header("6 · Why it fails beyond its training length")
failures = [f for f in failure_table() if f.length > config.max_len]
if failures:
    at_once = sum(f.wrong_at_step_0 for f in failures) / len(failures)
    st.markdown(
        f"Past {config.max_len} characters, {at_once:.0%} of random strings go wrong at the very first output "
        "character (*Longer than trained*). Step 0 must copy position n−1, so it needs the length, and in training "
        f"no encoder head ever averaged over more than {config.max_len} positions. One reading is that the "
        "length read-out fails first, and every later step inherits the wrong start.")
    beyond = failures[-1]
    st.caption(f"At length {beyond.length}: {beyond.exact:.0%} reversed exactly, p(correct first character) "
               f"{beyond.p_step_0:.3f}.")
    own, mirror = patch_table(None, 0, None), patch_table("task", last_layer, None)
    if own.past is not None and mirror.past is not None:
        longer = past_lengths(ckpt.model)
        st.markdown(length_reading_tested(own, mirror, last_layer, f"{longer[0]}–{longer[-1]}"))
else:
    st.markdown("This model reads no text longer than it was trained on, so there is nothing to show here.")
