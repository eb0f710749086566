"""How this model reverses: an evidence chain, each link a live number on the learner's text."""

import streamlit as st

from analysis.page_models.how_it_reverses import (beyond_training, even_heads, every_encoder_head, every_head_off,
                                                  last_cross_heads, last_layer_mirror, length_reading_tested,
                                                  length_source, looking_and_needed, mirror_needs_length, read_first,
                                                  two_steps)
from explorer.components import canvas_heatmap
from explorer.lab_runs import (NOISE_POINTS, SAMPLE_SIZE, ablation_table, failure_table, length_probe, offset_table,
                               patch_table, pattern_table)
from explorer.cache import reversal_only, text_run
from explorer.state import model_and_text
from explorer.text import escape_markdown
from viz.lab import maps_with_and_without

st.title("🧩 How this model reverses")
reversal_only("This page")
st.markdown(
    "What does this model actually do to reverse your text? Each step below is a piece of evidence measured "
    "on the model, not a story about Transformers in general. Where the evidence only fits an explanation "
    "without proving it, the page says so."
)

ckpt, key, text = model_and_text()   # key: names the model in use, the key of every cached run
config = ckpt.model.config
run = text_run(key, text)
last_layer = config.n_decoder_layers - 1

st.header("1 · The mirror needs the length")
st.markdown(mirror_needs_length(text, escape_markdown))

st.header("2 · Where the length comes from")
patterns = pattern_table(key)
even = even_heads(patterns)
probe = length_probe(key, even)
source = length_source(probe, run, text_run(key, text, teacher=True, ablated=even) if even else None, SAMPLE_SIZE,
                       NOISE_POINTS)
st.markdown(
    "A **linear probe** is a small regression fitted to read one thing from the model's numbers. Here one probe "
    "per row and column reads n from the encoder's residual stream at one source position; its R² on held-out "
    "words (1: reads n exactly, 0: no better than guessing the average length) says how much of the length a "
    "linear read-out finds there. Below 0 it does worse than guessing the average, as when a stream has moved "
    "away from what the probe was fitted on."
)
st.dataframe(source.r2, width="content")
st.caption(source.caption)
if source.even is not None:
    st.markdown(source.even)
    left, right = st.columns(2)
    left.markdown("**The intact model's probes, heads off**")
    left.dataframe(source.r2_off, width="content")
    right.markdown("**Probes refitted with the heads off**")
    right.dataframe(source.r2_refit, width="content")
    left, right = st.columns(2)
    left.metric("Exact match, every head working", source.exact)
    right.metric(source.off_label, source.exact_off, delta=source.exact_change, delta_color="normal")
    st.markdown(source.reading)
    every = every_encoder_head(config, even)
    if every is not None:
        st.markdown(every_head_off(length_probe(key, every)))
else:
    st.markdown(source.reading)
    st.info(source.no_candidate, icon="ℹ️")

st.header("3 · The last layer and the mirrored position")
st.markdown(last_layer_mirror(config, run, text_run(key, text, ablated=last_cross_heads(config)), escape_markdown))

st.header("4 · Two steps: where the character just read came from, then one to the left")
fits = offset_table(key)
_, effects = ablation_table(key)
first = read_first(fits, ckpt.task, last_layer)
steps = two_steps(ckpt.task, last_layer, fits, effects,
                  offset_table(key, first, "cross", last_layer) if first else None, text_run(key, text, teacher=True),
                  text_run(key, text, teacher=True, ablated=first) if first else None, SAMPLE_SIZE)
if steps.info is not None:
    st.info(steps.info, icon="ℹ️")
for sentence in steps.sentences:
    st.markdown(sentence)
if steps.on is not None:
    canvas_heatmap(maps_with_and_without(steps.on, steps.off, steps.rows, steps.cols, steps.off_name,
                                         title="Last layer"), key="composition")
    st.caption(steps.caption)

st.header("5 · Looking right, looking shifted, being needed")
st.markdown(looking_and_needed(ckpt.task, patterns, fits, effects))

st.header("6 · Why it fails beyond its training length")
beyond = beyond_training(failure_table(key), config.max_len)
st.markdown(beyond.sentence)
if beyond.longer:
    st.caption(beyond.caption)
    tested = length_reading_tested(ckpt.model, patch_table(key, None, 0, None), patch_table(key, "task", last_layer, None),
                                   last_layer, NOISE_POINTS)
    if tested is not None:
        st.markdown(tested)
