"""Masks: the learner's text in a padded batch, the padding and causal masks, and scores -> softmax."""

import streamlit as st

from analysis.page_models.masks import D_K_SIZES, batch_texts, masks_view
from explorer.callbacks import batch_row
from explorer.charts import plotly_chart
from explorer.components import canvas_heatmap
from explorer.cache import batch_runs
from explorer.pickers import pick_head
from explorer.state import VIEW, model_and_text
from viz import mask_spec, scores_spec, softmax_comparison, weights_spec

st.title("🎭 Masks")
st.markdown(
    "Words in a batch have different lengths, so the shorter ones are filled with padding `·`. The **padding "
    "mask** stops any query from attending to padding. In the decoder, the **causal mask** also hides every later "
    "position, so that training on whole sentences cannot peek at the answer. Masked scores become −∞ before "
    "softmax, and e^−∞ = 0: their weights are exactly zero."
)
st.latex(r"\begin{gathered}\mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}} + M\right) \\ "
         r"M_{ij} = \begin{cases}0 & \text{may attend}\\ -\infty & \text{masked}\end{cases}\end{gathered}")

ckpt, key, text = model_and_text()   # key: names the model in use, the key of every cached run
config = ckpt.model.config
batch = batch_runs(key, batch_texts(text, config.max_len, ckpt.vocab.letters))    # one padded pass, a run per row

st.header("Your text in a batch")
batch_part = st.container()                             # drawn once the controls below are read

st.header("One attention, step by step")
kind, layer, head = pick_head(config, "mask_", default_kind="decoder_self", last_layer=False)
# Labels that do not depend on the text: a selectbox kept its first labels in the browser after a new word.
row = st.columns(2)[0].selectbox("Batch row", range(len(batch)), key="mask_row", **VIEW, format_func=batch_row)
head_part = st.container()

st.header("Why divide by √d_k")
st.markdown(
    "The original paper's argument: if the components of a query and a key are independent with variance 1, "
    "their dot product q·k has variance d_k. Without the division the scores spread out as d_k grows, softmax "
    "puts nearly all its weight on one key, and its gradient (how the weights move when a score moves) "
    "vanishes. Here on random vectors, not on this model: dividing a trained head's scores by a number would "
    "only change its temperature."
)
d_k = st.select_slider("d_k", D_K_SIZES, value=64, key="mask_d_k", **VIEW)
view = masks_view(batch, kind, layer, head, row, d_k)

with batch_part:
    st.dataframe(view.batch_sources, width="content")
    positions = [str(i) for i in range(view.causal_mask.shape[0])]
    canvas_heatmap(mask_spec(view.padding_mask, view.row_names, [str(i) for i in range(view.padding_mask.shape[1])],
                             "Padding mask of the source batch", "batch row", "source position"), key="padding_mask")
    canvas_heatmap(mask_spec(view.causal_mask, positions, positions, "Causal mask (the same for every row)"), key="causal_mask")

with head_part:
    st.caption(f"Mask used here: **{view.mask_used}**. The grey cells of the scores are exactly the masked ones; "
               "after softmax they receive weight 0.")
    canvas_heatmap(scores_spec(view.scores, view.queries, view.keys, f"1 · Masked scores QKᵀ/√d_k, row {row} "
                               "(grey: −∞)"), key="scores")
    canvas_heatmap(weights_spec(view.weights, view.queries, view.keys, f"2 · After softmax, row {row}",
                                panel=f"layer {layer}, head {head}"), key="weights")
    st.dataframe(view.row_facts, hide_index=True, width="content",
                 column_config={"row sum": st.column_config.NumberColumn(format="%.6f")})
    st.markdown(view.masked_sentence)

plotly_chart(softmax_comparison(view.scaling.scaled_example, view.scaling.example, [f"k{i}" for i in range(10)], d_k,
                             title=f"One random query against 10 random keys, d_k = {d_k}"), key="scaling")
st.dataframe(view.scaling_table, hide_index=True, width="content")
st.caption(view.scaling_caption)
