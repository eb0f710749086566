"""Attention: every layer and head of the three kinds, a large view of one, and the head average."""

import streamlit as st

from analysis.inside import value_weighted
from analysis.labels import KIND_NAMES, KIND_SHORT, attention_axes, weight_text
from analysis.lesson import pattern_shares
from analysis.offsets import OFFSETS, offset_label, run_offsets
from analysis.tasks import words
from explorer.charts import show_chart
from explorer.exports import matrix_csv, trace_json
from explorer.gate import deferred
from explorer.links import page_link
from explorer.model import checkpoint_or_stop, text_run
from explorer.pickers import pick_head
from explorer.state import learner_text
from explorer.text import visible
from viz import attention_grid, attention_side_by_side
from viz.inside import influence_heatmap

EXPLAIN = {
    "encoder_self": "Each source character (row, the query) looks at every source character (column, the key). "
                    "Nothing is masked: the encoder sees the whole input at once.",
    "decoder_self": "Each decoder position (row) looks at the positions up to itself (columns). The causal mask "
                    "hides the future, so everything above the diagonal is exactly 0.",
    "cross": "Queries come from the decoder, keys and values from the encoder's output: rows are target "
             "positions (labelled *what it reads → what it writes*), columns are source positions. {task}",
}
CROSS_PATTERN = {
    "reverse": "To reverse, the position that writes the i-th output character should look at source position "
               "n−1−i: an anti-diagonal.",
    "copy": "To copy, the position that writes the i-th output character should look at source position i: "
            "the diagonal.",
    "sort": "To sort, the position that writes the i-th output character should look at wherever the i-th "
            "smallest character stands: a pattern set by the letters, not by their positions.",
}

st.title("🔍 Attention")
st.markdown(
    "An attention head turns each position into a **query**, a **key** and a **value**. A query's scores against "
    "all keys, scaled and passed through softmax, become weights that sum to 1; the output is the weighted sum of "
    "the values. Several heads do this side by side with their own projections; their outputs are concatenated "
    "and mixed by W^O."
)
st.latex(r"\mathrm{Attention}(Q,K,V)=\mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right)V \qquad "
         r"\mathrm{MultiHead}=\mathrm{Concat}(\mathrm{head}_1,\dots,\mathrm{head}_h)\,W^O")

ckpt = checkpoint_or_stop()
text = learner_text(ckpt)
run = text_run(text)
config = ckpt.model.config

kind, layer, head = pick_head(config)
weights = run.trace.stack_attention(kind)            # (L, H, Tq, Tk)
n_heads = weights.shape[1]
rows, cols, row_title, col_title = attention_axes(kind, run.source, run.decoder_in, run.decoder_out)

st.info(EXPLAIN[kind].format(task=CROSS_PATTERN[ckpt.task]))
st.caption(f"Input **{visible(text)}** → output **{visible(run.output) or '(nothing)'}**")

st.subheader(f"Every layer and head: {KIND_NAMES[kind].lower()}")
show_chart(attention_grid(weights, rows, cols), key="grid")

matrix = weights[layer, head]                        # (Tq, Tk)
mean = weights[layer].mean(axis=0)                   # (Tq, Tk) head average
show_chart(attention_side_by_side(
    [matrix, mean], [f"head {head}", f"average of {n_heads} heads (a summary)"], rows, cols,
    title=f"Layer {layer}, head {head} (left) and the average of its {n_heads} heads (right)",
    query_title=row_title, key_title=col_title), key="detail")

st.caption("The average is a summary for reading, not something the model computes: each head's output goes on "
           "to W^O on its own.")
sums = matrix.sum(axis=1)
masked = ~run.trace.mask(kind)
st.markdown(
    f"Every row of the softmax sums to 1: row sums here range from **{sums.min():.6f}** to **{sums.max():.6f}**. "
    + (f"Masked entries: **{int(masked.sum())}**, largest weight on any of them "
       f"**{weight_text(float(matrix[masked].max()))}**."
       if masked.any() else "No entry is masked in this kind of attention.")
)
if kind == "cross":
    hits = pattern_shares(run, layer)
    pattern = words(ckpt.task)
    shifted = {f.head: f for f in run_offsets(run, "cross", layer) if f.best_offset != 0}   # a shifted pattern wins
    st.markdown(f"Share of output characters whose largest cross-attention weight falls on {pattern.pattern} "
                f"({pattern.short_rule}{', or an equal character' if ckpt.task == 'sort' else ''}), layer {layer}: "
                + ", ".join(f"head {h}: **{s:.0%}**" + (
                    f" (more often on {offset_label('cross', ckpt.task, shifted[h].best_offset)}: "
                    f"**{shifted[h].best_share:.0%}**)" if h in shifted else "") for h, s in enumerate(hits))
                + f". A head can follow the pattern shifted by a position or two; where one offset from "
                f"{OFFSETS[0]} to +{OFFSETS[-1]} holds the largest weight more often, it is named beside the share "
                "(*Which head does the work?* scores every head so on held-out words).")

st.subheader("Weight is not influence")
influence = value_weighted(ckpt.model, run.trace, kind, layer)[head]   # (Tq, Tk) ‖w_ij v_j W_O^h‖
show_chart(influence_heatmap(influence, rows, cols, f"Head {head}: what each key sends, ‖w_ij v_j W_O^h‖",
                             row_title, col_title), key="influence")
real = masked.sum(axis=1) < matrix.shape[1]
differ = int((matrix.argmax(1) != influence.argmax(1))[real].sum())
st.markdown(
    "A head's output is the weighted sum of its keys' values, mixed by W^O. A large weight on a key whose value, "
    "after W^O, is short moves the output little, so the weights alone do not say what a head passes on. Here, beside "
    "the weights above: the length of what each key actually sends (Kobayashi et al., 2020). "
    f"In this head, the key with the largest weight is not the key that sends the most in **{differ} of "
    f"{int(real.sum())}** rows. This length is itself one measure: it does not show how the keys' vectors add up "
    "or cancel, nor what later layers do with them."
)
page_link("inside_one_head", "Follow one weight of this head, number by number: Inside one head", "🔬",
          {"inside_kind": KIND_SHORT[kind], "inside_layer": str(layer), "inside_head": str(head)})

c1, c2 = st.columns(2)  # built only when clicked (a 24-character trace is ~0.5 MB of JSON), in this session's place
c1.download_button("Download this matrix (CSV)", deferred(matrix_csv, matrix, rows, cols),
                   file_name=f"{kind}_layer{layer}_head{head}.csv", mime="text/csv", on_click="ignore")
c2.download_button("Download the whole trace (JSON)", deferred(trace_json, text, run),
                   file_name="trace.json", mime="application/json", on_click="ignore")
