"""How this model reverses: an evidence chain, each link a live number on the learner's text."""

import pandas as pd
import streamlit as st

from analysis.lab import EVEN_UNIFORMITY, rank_agreement
from analysis.labels import KIND_SHORT
from analysis.lesson import pattern_shares
from analysis.mechanism import read_length
from explorer.lab_runs import SAMPLE_SIZE, ablation_table, failure_table, length_probe, pattern_table
from explorer.model import checkpoint_or_stop, reversal_only, text_run
from explorer.state import learner_text
from explorer.text import escape_markdown, visible


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
st.markdown(
    "A **linear probe** is a small regression fitted to read one thing from the model's numbers. Here one probe "
    "per row and column reads n from the encoder's residual stream at one source position; its R² on held-out "
    "words (1: reads n exactly, 0: no better than guessing the average length) says how much of the length a "
    "linear read-out finds there. Below 0 it does worse than guessing the average, as when a stream has moved "
    "away from what the probe was fitted on."
)
table = pd.DataFrame(probe.r2, index=probe.streams, columns=[f"position {p}" for p in probe.positions])
st.dataframe(table.round(3), width="content")
first, last = probe.r2[0].max(), probe.r2[-1].min()
st.caption(f"Probes fitted on about 600 held-out words, scored on {SAMPLE_SIZE} others. In the input the best R² "
           f"is {first:.2f}; in the encoder output the worst is {last:.2f}.")
if even:
    every = len(even) == config.n_encoder_layers * config.n_heads
    st.markdown(
        f"The input holds no length; the first attention layer puts it in. {len(even)} encoder self-attention "
        f"head(s) spread their weight almost evenly over the text (uniformity at least {EVEN_UNIFORMITY} on *Which head "
        "does the work?*), and an even average over n positions changes with n. Switch them off and apply the same "
        "probes:"
        + (" here that is **every** encoder head, the encoder's only way for a position to see the others, so the "
           "length has no other way in." if every else "")
    )
    off = pd.DataFrame(probe.r2_off, index=probe.streams, columns=[f"position {p}" for p in probe.positions])
    st.dataframe(off.round(3), width="content")
    memory = len(probe.streams) - 1                                   # the encoder output, read at position 0
    guess = read_length(probe, memory, 0, run.trace)
    guess_off = read_length(probe, memory, 0, text_run(text, teacher=True, ablated=even_keys).trace)
    left, right = st.columns(2)
    left.metric("Exact match, every head working", f"{probe.exact:.1%}")
    right.metric(f"With the {len(even)} even encoder heads off", f"{probe.exact_off:.1%}",
                 delta=f"{probe.exact_off - probe.exact:+.1%}", delta_color="normal")
    r2_fell = probe.r2_off[-1].mean() < probe.r2[-1].mean() - 0.5
    exact_fell = probe.exact_off < probe.exact - 0.5
    if r2_fell and exact_fell:
        verdict = ("The probe's R² in the encoder output and the exact match fall together: the length enters "
                   "through these heads, and the model needs it. "
                   + ("That follows from the architecture once every encoder head is off; it does not show that "
                      "their evenness is what carries the length." if every else
                      "It does not prove the even weights carry it: switching a head off removes everything it "
                      "does."))
    else:
        verdict = ("The probe's R² and the exact match do not both fall by half or more, so this model does not "
                   "support the reading above as clearly.")
    st.markdown(
        f"For your text, the probe reading the encoder output at position 0 says n ≈ **{guess:.1f}** (it is {n}); "
        f"with those heads off it says **{guess_off:.1f}**. " + verdict
    )
else:
    st.info(f"No encoder head of this model spreads its weight evenly (uniformity at least {EVEN_UNIFORMITY}), so there is "
            "no candidate to switch off here.", icon="ℹ️")

st.header("3 · The cross heads copy from the mirrored position")
last_layer = config.n_decoder_layers - 1
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

st.header("4 · Looking right is not being needed")
base, effects = ablation_table()
drop = {e.head: e.drop for e in effects}
by_kind = rank_agreement(patterns, drop)
costliest = effects[0]
costly_score = next(p.score for p in patterns if p.head == costliest.head)
st.markdown(
    "An attention map shows where a head looks, not whether the model needs what it finds there "
    "(attention is not explanation). "
    "Within each kind of attention, the rank correlation between matching its hypothesis and what switching "
    "the head off costs is "
    + ", ".join(f"{KIND_SHORT[k].lower()} **ρ = {r:.2f}**" if r is not None else f"{KIND_SHORT[k].lower()} undefined"
                for k, r in by_kind.items()) + ". "
    + f"The costliest head, **{costliest.head}** ({costliest.drop:.1%} of exact match lost), scores "
    f"{costly_score:.2f} against its hypothesis. Switching heads off is the evidence; the maps are where to look."
)

st.header("5 · Why it fails beyond its training length")
failures = [f for f in failure_table() if f.length > config.max_len]
if failures:
    at_once = sum(f.wrong_at_step_0 for f in failures) / len(failures)
    st.markdown(
        f"Past {config.max_len} characters, {at_once:.0%} of random strings go wrong at the very first output "
        "character (*Longer than trained*). Step 0 must copy position n−1, and the length it needs comes, on the "
        "evidence of step 2, from heads that never averaged over more than "
        f"{config.max_len} positions in training. One reading is that the length read-out fails first, and "
        "every later step inherits the wrong start.")
    beyond = failures[-1]
    st.caption(f"At length {beyond.length}: {beyond.exact:.0%} reversed exactly, p(correct first character) "
               f"{beyond.p_step_0:.3f}.")
else:
    st.markdown("This model reads no text longer than it was trained on, so there is nothing to show here.")
