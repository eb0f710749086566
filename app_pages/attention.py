"""Attention: every layer and head of the three kinds, a large view of one, and the head average."""

import streamlit as st

from analysis.labels import KIND_SHORT
from analysis.page_models.attention import attention_view
from explorer.charts import show_chart
from explorer.exports import matrix_csv, trace_json
from explorer.gate import deferred
from explorer.links import page_link
from explorer.cache import checkpoint_or_stop, model_key, text_run
from explorer.pickers import pick_head
from explorer.state import learner_text
from viz import attention_grid, attention_side_by_side
from viz.inside import influence_heatmap

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
key = model_key()   # names the model in use: the key of every cached run below
text = learner_text(ckpt)
run = text_run(key, text)
config = ckpt.model.config

kind, layer, head = pick_head(config)
view = attention_view(ckpt.model, run, kind, layer, head)
rows, cols = view.rows, view.cols

st.info(view.explanation)
st.caption(view.io_caption)

st.subheader(f"Every layer and head: {view.kind_name.lower()}")
show_chart(attention_grid(view.weights, rows, cols), key="grid")

show_chart(attention_side_by_side(
    [view.matrix, view.mean], [f"head {head}", f"average of {view.n_heads} heads (a summary)"], rows, cols,
    title=f"Layer {layer}, head {head} (left) and the average of its {view.n_heads} heads (right)",
    query_title=view.row_title, key_title=view.col_title), key="detail")

st.caption("The average is a summary for reading, not something the model computes: each head's output goes on "
           "to W^O on its own.")
st.markdown(view.row_sums)
if view.pattern_sentence:
    st.markdown(view.pattern_sentence)

st.subheader("Weight is not influence")
show_chart(influence_heatmap(view.influence, rows, cols, f"Head {head}: what each key sends, ‖w_ij v_j W_O^h‖",
                             view.row_title, view.col_title), key="influence")
st.markdown(view.influence_sentence)
page_link("inside_one_head", "Follow one weight of this head, number by number: Inside one head", "🔬",
          {"inside_kind": KIND_SHORT[kind], "inside_layer": str(layer), "inside_head": str(head)})

c1, c2 = st.columns(2)  # built only when clicked (a 24-character trace is ~0.5 MB of JSON), in this session's place
c1.download_button("Download this matrix (CSV)", deferred(matrix_csv, view.matrix, rows, cols),
                   file_name=f"{kind}_layer{layer}_head{head}.csv", mime="text/csv", on_click="ignore")
c2.download_button("Download the whole trace (JSON)", deferred(trace_json, text, run),
                   file_name="trace.json", mime="application/json", on_click="ignore")
