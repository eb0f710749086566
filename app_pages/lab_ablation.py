"""Lab 1: switch heads off and see the decoding, the attention and the probabilities change."""

import numpy as np
import pandas as pd
import streamlit as st

from explorer.lab_runs import SAMPLE_SIZE, ablation_table, word_run
from explorer.model import checkpoint_or_stop
from explorer.state import learner_text
from explorer.text import reversal_metric, visible
from transformer.intervention import every_head
from transformer.lesson import EOS_LABEL, SOS_LABEL
from viz import attention_side_by_side
from viz.lab import correct_probability_bars

KINDS = {"encoder_self": "Encoder self", "decoder_self": "Decoder self", "cross": "Cross"}

st.title("🧪 Lab: switch heads off")
st.markdown(
    "Pick any heads and switch them off: their output is set to zero before W^O mixes the heads, while "
    "everything else stays as trained. Does the model still reverse your text? Which heads does it need?"
)

ckpt = checkpoint_or_stop()
text = learner_text(ckpt)
config = ckpt.model.config
n_layers = config.layers_per_kind
heads = {str(h): (h.kind, h.layer, h.head) for h in every_head(n_layers, config.n_heads)}
PRESETS = {
    "the four cross heads of the last layer": [n for n in heads if n.startswith(f"cross L{config.n_decoder_layers - 1}")],
    "one of them": [f"cross L{config.n_decoder_layers - 1} H0"],
    "every encoder head": [n for n in heads if n.startswith("encoder_self")],
    "none": [],
}
st.caption("Try:")
for column, (name, preset) in zip(st.columns(len(PRESETS)), PRESETS.items()):
    column.button(name, key=f"preset_{name}", width="stretch",
                  on_click=lambda p=preset: st.session_state.update(ablated=p))
chosen = st.multiselect("Heads to switch off", list(heads), key="ablated", placeholder="Choose heads, e.g. cross L1 H0",
                        help="Named as attention kind, layer L, head H.")
ablated = tuple(heads[name] for name in chosen)

before, after = word_run(text), word_run(text, ablated)
left, right = st.columns(2)
left.metric("Every head working", visible(before.output))
reversal_metric(right, f"{len(ablated)} head(s) off", after.output, text)

steps = [*text[::-1], EOS_LABEL]
st.plotly_chart(correct_probability_bars(before.p_correct, after.p_correct, [visible(s) for s in steps],
                                         title="Probability of the correct next character at each step"),
                key="probabilities")
st.caption(f"Each step reads the correct prefix (teacher forcing), so both bars answer the same question. Mean: "
           f"{before.p_correct.mean():.3f} unchanged, {after.p_correct.mean():.3f} changed.")

st.subheader("The attention that changed")
k_col, l_col, h_col = st.columns([2, 1, 1])
kind = k_col.segmented_control("Attention kind", list(KINDS), format_func=KINDS.get, default="cross",
                               key="lab_kind", required=True)
layer = l_col.selectbox("Layer", range(n_layers[kind]), index=n_layers[kind] - 1, key="lab_layer")
head = h_col.selectbox("Head", range(config.n_heads), key="lab_head")
rows = list(text) if kind == "encoder_self" else [SOS_LABEL, *text[::-1]]
cols = list(text) if kind != "decoder_self" else rows
was, now = before.weights[kind][layer, head], after.weights[kind][layer, head]   # (Tq, Tk)
st.plotly_chart(attention_side_by_side([was, now], ["every head working", "with your heads off"],
                                       [visible(r) for r in rows], [visible(c) for c in cols],
                                       title=f"{KINDS[kind]}-attention, layer {layer}, head {head}"), key="changed")
change = np.abs(now - was)
st.caption(f"Largest change of any weight: **{change.max():.3f}**; mean change {change.mean():.4f}. A head that is "
           "switched off still computes its pattern; what changes is everything that reads its output later.")

st.subheader("Every head switched off alone")
base, effects = ablation_table()
table = pd.DataFrame({
    "head": [str(e.head) for e in effects],
    f"exact match without it (of {SAMPLE_SIZE})": [e.exact_match for e in effects],
    "exact match lost": [e.drop for e in effects],
})
st.dataframe(table, hide_index=True, width="content", column_config={
    f"exact match without it (of {SAMPLE_SIZE})": st.column_config.ProgressColumn(format="percent", min_value=0,
                                                                                  max_value=1),
    "exact match lost": st.column_config.NumberColumn(format="percent")})
st.caption(f"With every head working: {base:.1%} exact match on the same {SAMPLE_SIZE} held-out words. The worst "
           f"single loss is **{effects[0].head}** ({effects[0].drop:.1%} lost); "
           f"{sum(e.drop == 0 for e in effects)} heads can go alone at no cost.")
