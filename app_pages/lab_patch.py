"""Lab: build a head. Put a pattern of your own in place of cross-attention weights, predict, then see whether
the pattern is enough for the model to do its task."""

import streamlit as st

from analysis.page_models.lab_patch import (OUTCOMES, answer_caption, patch_findings, patch_maps, pattern_labels,
                                            places)
from analysis.tasks import words
from explorer.components import canvas_heatmap
from explorer.lab_runs import NOISE_POINTS, SAMPLE_SIZE, patch_table, patched_run
from explorer.link_guard import stop_page
from explorer.cache import checkpoint_or_stop, model_key, text_run
from explorer.state import VIEW, learner_text
from explorer.text import answer_metric, in_full
from viz.attention import weights_spec

ckpt = checkpoint_or_stop()
key = model_key()   # names the model in use: the key of every cached run below
task = words(ckpt.task)
config = ckpt.model.config
st.title("🧪 Lab: build a head")
st.markdown(
    "Switching a head off shows whether the model *needs* it. Here you state what a cross-attention layer does, "
    "as a pattern of weights, and put your pattern in place of the model's own weights for one run: every "
    "decoding step reads the source where your pattern says, whatever its queries and keys would have chosen. "
    f"If the model can still {task.verb}, the pattern is *enough* for that layer's job."
)
text = learner_text(ckpt)

labels = pattern_labels(ckpt.task)
left, right = st.columns(2)
pattern = left.selectbox("Your pattern", list(labels), format_func=labels.get,
                         key="patch_pattern", **VIEW,
                         help="Step i of the output reads one source position (uniform: all n equally). A "
                              "position past either end of the text is moved to the nearest end, so the "
                              "mirror's end step reads position 0.")
PLACES = places(config)
place = right.selectbox("Where it goes", list(PLACES), key="patch_where", **VIEW,
                        help="The other heads and layers keep their own weights.")
placement = PLACES[place]

maps = patch_maps(config, ckpt.vocab, text_run(key, text, teacher=True), pattern, placement)
charts = st.columns(2)
for column, weights, name, title in ((charts[0], maps.own, "own", maps.own_title),
                                     (charts[1], maps.yours, "yours", "Your pattern")):
    canvas_heatmap(weights_spec(weights, maps.rows, maps.cols, title, "decoder position (reads)", "source position"), key=f"patch_{name}", container=column)
st.caption(maps.caption)

st.header("Predict first")
guess_text = st.radio(f"With your pattern in place, will the model still write {task.output} for your text?",
                      ["yes", "no"], index=None, horizontal=True, key=f"patch_guess_text_{pattern}_{place}")
guess = st.radio(f"And its exact match on {SAMPLE_SIZE} held-out words will…", OUTCOMES, index=None,
                 key=f"patch_guess_{pattern}_{place}")
if guess_text is None or guess is None:
    st.info("Answer both questions to see what the model does.", icon="🤔")
    stop_page()

st.header("What happened")
normal, patched = text_run(key, text), patched_run(key, text, pattern, placement.layer, placement.head)
a, b = st.columns(2)
answer_metric(a, "The model's own weights", normal, "exactly {output}", "not {output}")
in_full(a, normal.output)
answer_metric(b, "With your pattern", patched, "exactly {output}", "not {output}")
in_full(b, patched.output)
st.caption(answer_caption(guess_text, patched))

base = patch_table(key, None, 0, None)                                # the own weights: one table wherever it goes
mine = patch_table(key, pattern, placement.layer, placement.head)
findings = patch_findings(ckpt.model, ckpt.task, pattern, placement, base, mine, guess, SAMPLE_SIZE, NOISE_POINTS)
st.dataframe(findings.table, hide_index=True, width="content", column_config={
    "own weights": st.column_config.NumberColumn("exact match, own weights", format="percent"),
    "your pattern": st.column_config.NumberColumn("exact match, your pattern", format="percent")})
st.markdown(findings.finding)
if findings.prediction is not None:
    st.caption(findings.prediction)
if findings.past is not None:
    st.caption(findings.past)
