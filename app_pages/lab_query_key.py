"""Lab 6: queries and keys in one plane, so a learner sees why a query finds its key."""

import streamlit as st

from explorer.lab_runs import query_key_map
from explorer.model import attention_run, checkpoint_or_stop
from explorer.state import learner_text
from viz import attention_heatmap
from viz.lab import query_key_scatter

KINDS = {"cross": "Cross", "encoder_self": "Encoder self", "decoder_self": "Decoder self"}

st.title("🧪 Lab: queries and keys")
st.markdown(
    "A head scores query i against key j by the dot product q_i · k_j. Here one head's query vectors (circles) "
    "and key vectors (squares) are projected together onto the plane that keeps most of their variance (PCA), "
    "coloured by position. A grey line joins each query to the key it attends to most."
)

ckpt = checkpoint_or_stop()
text = learner_text(ckpt)
config = ckpt.model.config
run = attention_run(text)

a, b, c = st.columns([2, 1, 1])
kind = a.segmented_control("Attention kind", list(KINDS), format_func=KINDS.get, default="cross", key="qk_kind",
                           required=True)
n_layers = config.layers_per_kind[kind]
layer = b.selectbox("Layer", range(n_layers), index=n_layers - 1, key="qk_layer")
head = c.selectbox("Head", range(config.n_heads), key="qk_head")

queries = run.source if kind == "encoder_self" else run.decoder_in
keys = run.decoder_in if kind == "decoder_self" else run.source
qk = query_key_map(text, kind, layer, head)
left, right = st.columns([3, 2])
left.plotly_chart(query_key_scatter(qk.query_xy, qk.key_xy, queries, keys, qk.weights, qk.explained,
                                    title=f"{KINDS[kind]}-attention, layer {layer}, head {head}"), key="plane")
right.plotly_chart(attention_heatmap(qk.weights, queries, keys, title="Its attention",
                                     query_title="query position", key_title="key position"), key="weights")
st.caption(f"The two axes keep {qk.explained.sum():.0%} of the variance of the {run.d_k}-dimensional vectors, so "
           "nearby is a hint, not a proof: the score is a dot product, which the full vectors decide.")
