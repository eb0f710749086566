"""Masks: the learner's text in a padded batch, the padding and causal masks, and scores -> softmax."""

import numpy as np
import pandas as pd
import streamlit as st

from analysis.labels import PAD_LABEL, attention_axes, weight_text
from analysis.lesson import companions, scaling_experiment
from explorer.callbacks import batch_row
from explorer.charts import show_chart
from explorer.model import batch_runs, checkpoint_or_stop
from explorer.pickers import pick_head
from explorer.state import VIEW, learner_text
from viz import HALF_WIDTH_TICKS, attention_heatmap, mask_heatmap, panels, scores_heatmap, softmax_comparison

st.title("🎭 Masks")
st.markdown(
    "Words in a batch have different lengths, so the shorter ones are filled with padding `·`. The **padding "
    "mask** stops any query from attending to padding. In the decoder, the **causal mask** also hides every later "
    "position, so that training on whole sentences cannot peek at the answer. Masked scores become −∞ before "
    "softmax, and e^−∞ = 0: their weights are exactly zero."
)
st.latex(r"\mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}} + M\right),\qquad "
         r"M_{ij} = \begin{cases}0 & \text{may attend}\\ -\infty & \text{masked}\end{cases}")

ckpt = checkpoint_or_stop()
text = learner_text(ckpt)
config = ckpt.model.config
batch = batch_runs(tuple([text, *companions(text, config.max_len)]))    # one padded pass, a run per row
row_names = [f"row {i}" for i in range(len(batch))]

st.subheader("Your text in a batch")
st.dataframe(pd.DataFrame([run.source for run in batch], index=row_names), width="content")
src_mask = np.stack([run.trace["masks.source"][0, 0] for run in batch])   # (B, S) True = real token
t_len = len(batch[0].decoder_in)
causal = np.tril(np.ones((t_len, t_len), dtype=bool))
show_chart(panels([
    mask_heatmap(src_mask, row_names,
            [str(i) for i in range(src_mask.shape[1])], title="Padding mask of the source batch",
            row_title="batch row", col_title="source position", max_ticks=HALF_WIDTH_TICKS),
    mask_heatmap(causal, list(map(str, range(t_len))), list(map(str, range(t_len))),
            title="Causal mask (the same for every row)", max_ticks=HALF_WIDTH_TICKS),
]), key="masks")

st.subheader("One attention, step by step")
picker_col, row_col = st.columns([4, 1])
with picker_col:
    kind, layer, head = pick_head(config, "mask_", default_kind="decoder_self", last_layer=False)
# Labels that do not depend on the text: a selectbox kept its first labels in the browser after a new word.
row = row_col.selectbox("Batch row", range(len(batch)), key="mask_row", **VIEW,
                   format_func=batch_row)

run = batch[row]
queries, keys, _, _ = attention_axes(kind, run.source, run.decoder_in)
scores = run.trace.attention(kind, layer, "scores")[head]   # (Tq, Tk), -inf where masked
weights = run.trace[kind, layer][head]                      # (Tq, Tk)
mask = np.isfinite(scores)
mask_used = {"encoder_self": "padding of the source", "decoder_self": "causal AND padding",
             "cross": "padding of the source"}[kind]
st.caption(f"Mask used here: **{mask_used}**. The grey cells on the left are exactly the masked ones; on the right "
           "they receive weight 0.")
show_chart(panels([
    scores_heatmap(scores, queries, keys, title=f"1 · Masked scores QKᵀ/√d_k, row {row} (grey: −∞)"),
    attention_heatmap(weights, queries, keys, title="2 · After softmax"),
], gap=0.2, same_height=True), key="scores")  # room for the scores' colour bar between the panels

real_queries = mask.any(axis=1)
padded_keys = [i for i, label in enumerate(keys) if label == PAD_LABEL]
sums = weights.sum(axis=1)
facts = pd.DataFrame({"query": [f"{i}:{q}" for i, q in enumerate(queries)], "row sum": sums,
                      "largest masked weight": [weight_text(float(weights[i][~mask[i]].max())) if (~mask[i]).any()
                                                else "none masked" for i in range(len(queries))]})
st.dataframe(facts, hide_index=True, width="content",
             column_config={"row sum": st.column_config.NumberColumn(format="%.6f")})
st.markdown(
    f"Masked entries: **{int((~mask).sum())}**, and the largest weight any of them received is "
    f"**{weight_text(float(weights[~mask].max())) if (~mask).any() else 'none (nothing is masked)'}**. "
    + (f"Padded key columns {padded_keys} get total weight **{weight_text(float(weights[:, padded_keys].sum()))}**. "
       if padded_keys else "This row has no padding (it is the longest in the batch). ")
    + f"Every row with at least one key it may see sums to 1 (from {sums[real_queries].min():.6f} to "
    f"{sums[real_queries].max():.6f}). Padding queries (rows labelled {PAD_LABEL}) still get a row, because "
    "the mask hides keys, not queries; the loss ignores their output. A row whose keys are all masked would be "
    "NaN after a plain softmax; this model sets it to zeros."
)

st.subheader("Why divide by √d_k")
st.markdown(
    "The original paper's argument: if the components of a query and a key are independent with variance 1, "
    "their dot product q·k has variance d_k. Without the division the scores spread out as d_k grows, softmax "
    "puts nearly all its weight on one key, and its gradient (how the weights move when a score moves) "
    "vanishes. Here on random vectors, not on this model: dividing a trained head's scores by a number would "
    "only change its temperature."
)
d_k = st.select_slider("d_k", [4, 16, 64, 256, 1024], value=64, key="mask_d_k", **VIEW)
chosen = scaling_experiment(d_k)
show_chart(softmax_comparison(chosen.scaled_example, chosen.example, [f"k{i}" for i in range(10)], d_k,
                              title=f"One random query against 10 random keys, d_k = {d_k}"), key="scaling")
table = [scaling_experiment(size) for size in (4, 16, 64, 256, 1024)]
st.dataframe(pd.DataFrame({
    "d_k": [s.d_k for s in table], "√d_k": [s.d_k ** 0.5 for s in table],
    "std of q·k": [s.score_std for s in table], "std of q·k/√d_k": [s.scaled_std for s in table],
    "largest weight, raw": [s.top_weight for s in table], "largest weight, scaled": [s.scaled_top_weight for s in table],
    "gradient size, raw": [s.gradient for s in table], "gradient size, scaled": [s.scaled_gradient for s in table],
}).round(3), hide_index=True, width="content")
st.caption(f"Means over 2,000 random draws of one query and 10 keys. At d_k = {d_k}: std of q·k {chosen.score_std:.1f} "
           f"(√d_k = {d_k ** 0.5:.1f}), the largest weight {chosen.top_weight:.3f} without the scaling and "
           f"{chosen.scaled_top_weight:.3f} with it; the softmax's gradient {chosen.gradient:.3f} against "
           f"{chosen.scaled_gradient:.3f}. This model's heads have d_k = {run.d_k}.")
