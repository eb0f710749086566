"""Lab 6: queries and keys in one plane, so a learner sees why a query finds its key."""

import streamlit as st

from analysis.labels import KIND_SHORT, attention_axes
from explorer.lab_runs import query_key_map
from explorer.model import checkpoint_or_stop, text_run
from explorer.pickers import pick_head
from explorer.state import learner_text
from viz import attention_heatmap
from viz.lab import query_key_scatter

st.title("🧪 Lab: queries and keys")
st.markdown(
    "A head scores query i against key j by the dot product q_i · k_j. Here one head's query vectors (circles) "
    "and key vectors (squares) are projected together onto the plane that keeps most of their variance (PCA), "
    "coloured by position. A grey line joins each query to the key it attends to most."
)

ckpt = checkpoint_or_stop()
text = learner_text(ckpt)
config = ckpt.model.config
run = text_run(text)

kind, layer, head = pick_head(config, "qk_")
queries, keys, _, _ = attention_axes(kind, run.source, run.decoder_in)
qk = query_key_map(text, kind, layer, head)
left, right = st.columns([3, 2])
left.plotly_chart(query_key_scatter(qk.query_xy, qk.key_xy, queries, keys, qk.weights, qk.explained,
                                    title=f"{KIND_SHORT[kind]}-attention, layer {layer}, head {head}"), key="plane")
right.plotly_chart(attention_heatmap(qk.weights, queries, keys, title="Its attention",
                                     query_title="query position", key_title="key position"), key="weights")
st.caption(f"The two axes keep {qk.explained.sum():.0%} of the variance of the {run.d_k}-dimensional vectors, so "
           "nearby is a hint, not a proof: the score is a dot product, which the full vectors decide.")
