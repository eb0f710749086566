"""Lab: build a head. Put a pattern of your own in place of cross-attention weights, predict, then see whether
the pattern is enough for the model to do its task."""

import pandas as pd
import streamlit as st

from analysis.patching import past_lengths, pattern_grid, pattern_label, patterns_for, verdict
from analysis.tasks import words
from explorer.charts import chart_in
from explorer.lab_runs import NOISE_POINTS, SAMPLE_SIZE, patch_table, patched_run
from explorer.link_guard import stop_page
from explorer.model import checkpoint_or_stop, text_run
from explorer.state import VIEW, learner_text
from explorer.text import answer_metric, in_full
from viz import HALF_WIDTH_TICKS, attention_heatmap

ckpt = checkpoint_or_stop()
task = words(ckpt.task)
config = ckpt.model.config
last = config.n_decoder_layers - 1
st.title("🧪 Lab: build a head")
st.markdown(
    "Switching a head off shows whether the model *needs* it. Here you state what a cross-attention layer does, "
    "as a pattern of weights, and put your pattern in place of the model's own weights for one run: every "
    "decoding step reads the source where your pattern says, whatever its queries and keys would have chosen. "
    f"If the model can still {task.verb}, the pattern is *enough* for that layer's job."
)
text = learner_text(ckpt)

labels = {name: pattern_label(name, ckpt.task) for name in patterns_for(ckpt.task)}   # no closure over the model
left, right = st.columns(2)
pattern = left.selectbox("Your pattern", list(labels), format_func=labels.get,
                         key="patch_pattern", **VIEW,
                         help="Step i of the output reads one source position (uniform: all n equally). A "
                              "position past either end of the text is moved to the nearest end, so the "
                              "mirror's end step reads position 0.")
PLACES = {f"every head of the last layer (L{last})": None,
          **{f"cross L{layer} H{head} alone": (layer, head)
             for layer in range(config.n_decoder_layers) for head in range(config.n_heads)}}
place = right.selectbox("Where it goes", list(PLACES), key="patch_where", **VIEW,
                        help="The other heads and layers keep their own weights.")
layer, head = PLACES[place] or (last, None)
where = f"every cross head of layer {layer}" if head is None else f"cross L{layer} H{head}"
heads = "those heads'" if head is None else "that head's"      # how the findings name what the pattern replaced

taught = text_run(text, teacher=True)
own = taught.trace["cross", layer]                                          # (H, Tq, S)
yours = pattern_grid(pattern, ckpt.task, ckpt.vocab, text, own.shape[1], config.max_len)   # (Tq, S)
charts = st.columns(2)
for column, weights, name, title in (
        (charts[0], own.mean(0) if head is None else own[head], "own",
         f"The model's own: {'average of layer ' + str(layer) if head is None else where}"),
        (charts[1], yours, "yours", "Your pattern")):
    chart_in(column, attention_heatmap(weights, taught.decoder_in, taught.source, title=title,
                                       query_title="decoder position (reads)", key_title="source position",
                                       max_ticks=HALF_WIDTH_TICKS), key=f"patch_{name}")
st.caption(f"Both maps on your text, the decoder reading {task.output} (teacher forcing). Your pattern is built "
           "from the text's true length n (and, for the sorted order, its characters): the model's own heads must "
           "work those out for themselves.")

st.subheader("Predict first")
outcomes = ["stay near its normal value (keep 90 % of it or more)", "fall part of the way (keep half or more)",
            "fall by more than half"]
guess_text = st.radio(f"With your pattern in place, will the model still write {task.output} for your text?",
                      ["yes", "no"], index=None, horizontal=True, key=f"patch_guess_text_{pattern}_{place}")
guess = st.radio(f"And its exact match on {SAMPLE_SIZE} held-out words will…", outcomes, index=None,
                 key=f"patch_guess_{pattern}_{place}")
if guess_text is None or guess is None:
    st.info("Answer both questions to see what the model does.", icon="🤔")
    stop_page()

st.subheader("What happened")
normal, patched = text_run(text), patched_run(text, pattern, layer, head)
a, b = st.columns(2)
answer_metric(a, "The model's own weights", normal, "exactly {output}", "not {output}")
in_full(a, normal.output)
answer_metric(b, "With your pattern", patched, "exactly {output}", "not {output}")
in_full(b, patched.output)
st.caption(f"You answered **{guess_text}**; with your pattern the model "
           f"**{'writes' if patched.output == patched.target else 'does not write'}** {task.output} of your text.")

base, mine = patch_table(None, 0, None), patch_table(pattern, layer, head)   # the own weights: one table
longer = past_lengths(ckpt.model)
rows = {f"{SAMPLE_SIZE} held-out words (1–{config.max_len} characters)": (base.within, mine.within)}
if mine.past is not None:
    past_words = f"{mine.n_past} words past the trained length ({longer[0]}–{longer[-1]} characters)"
    rows[past_words] = (base.past, mine.past)
st.dataframe(pd.DataFrame({"words": list(rows), "own weights": [v[0] for v in rows.values()],
                           "your pattern": [v[1] for v in rows.values()]}),
             hide_index=True, width="content", column_config={
                 "own weights": st.column_config.NumberColumn("exact match, own weights", format="percent"),
                 "your pattern": st.column_config.NumberColumn("exact match, your pattern", format="percent")})

outcome = verdict(mine.within, base.within)
label = labels[pattern]
said = {"kept": outcomes[0], "part": outcomes[1], "lost": outcomes[2]}.get(outcome)
if outcome == "kept":
    finding = (f"With {label} in place of {where}, the model keeps {mine.within:.1%} exact match "
               f"(its own weights: {base.within:.1%}). On these words the pattern is enough for the job of "
               f"{where}: the model needs nothing from {heads} queries and keys beyond the positions your "
               "pattern names.")
elif outcome == "part":
    finding = (f"With {label} in place of {where}, exact match falls to {mine.within:.1%} (its own weights: "
               f"{base.within:.1%}). The pattern carries part of the job, not all: {heads} own weights put "
               "something there that this pattern lacks.")
elif outcome == "lost":
    finding = (f"With {label} in place of {where}, exact match falls to {mine.within:.1%} (its own weights: "
               f"{base.within:.1%}). This pattern is not enough: {heads} own weights do something it does not.")
else:
    finding = (f"With its own weights this model gets {base.within:.1%} of the held-out words right, too few to say "
               f"whether a pattern keeps its job; with {label} in place of {where} it gets {mine.within:.1%}.")
st.markdown(finding)
if said is not None:
    st.caption(f"You predicted that exact match would {guess}; measured, it did **{said}**. Each figure carries up "
               f"to ±{NOISE_POINTS:.1f} points of sampling noise (one standard error at 50 %).")
if mine.past is not None and base.past is not None:
    better = mine.past - base.past
    if better > NOISE_POINTS / 100:
        past = (f"Past the trained length the pattern does better than the model's own weights ({mine.past:.1%} "
                f"against {base.past:.1%}). The pattern is handed the true length n, so one reading is that the "
                "model's own sense of n is part of what breaks on longer words"
                + (f"; the {1 - mine.past:.0%} still wrong with n handed over fail for some other reason too."
                   if mine.past < 0.9 else "."))
    elif better < -NOISE_POINTS / 100:
        past = (f"Past the trained length the pattern does worse than the model's own weights ({mine.past:.1%} "
                f"against {base.past:.1%}).")
    elif base.past < base.within - NOISE_POINTS / 100:
        past = (f"Past the trained length the pattern changes little ({mine.past:.1%} against {base.past:.1%} with "
                "the model's own weights): being handed the true length n here does not rescue the longer words, "
                "so one reading is that what fails there lies elsewhere too.")
    else:
        past = (f"Past the trained length the pattern changes little ({mine.past:.1%} against {base.past:.1%} with "
                "the model's own weights).")
    st.caption(past)
