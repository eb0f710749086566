"""Positional encoding: the sinusoid table, what is added to the learner's input, and why sinusoids."""

import streamlit as st

from analysis.page_models.positional import D_MODEL_SIZES, positional_view
from explorer.charts import plotly_chart
from explorer.components import canvas_heatmap
from explorer.cache import text_run
from explorer.state import VIEW, keep_in_range, model_and_text
from viz import encoding_spec, norms_bars, offset_distance_chart, rotation_check_chart, similarity_spec

st.title("🌊 Positional encoding")
st.markdown(
    "Attention by itself ignores order: shuffle the input and every weight moves with it. So before the first "
    "layer, each token's embedding gets a **position code** added. The code is fixed, not learned: each pair of "
    "dimensions is a sine and a cosine of the position, turning at its own speed, fast in the first dimensions "
    "and ever slower further on."
)
st.latex(r"\begin{gathered}PE_{(pos,\,2i)} = \sin\!\left(\frac{pos}{10000^{2i/d_{model}}}\right) \\ "
         r"PE_{(pos,\,2i+1)} = \cos\!\left(\frac{pos}{10000^{2i/d_{model}}}\right)\end{gathered}")

ckpt, key, text = model_and_text()   # key: names the model in use, the key of every cached run
config = ckpt.model.config
d_model, positions = config.d_model, config.max_len + 1

st.header(f"The table this model uses: {positions} positions × {d_model} dimensions")
model_part = st.container()                  # every part is drawn once the sliders below are read

st.header("Any size you like")
a, b = st.columns(2)
custom_d = a.select_slider("d_model", D_MODEL_SIZES, value=128, key="pe_d_model", **VIEW)
custom_len = b.slider("Positions", 8, 256, 100, 4, key="pe_positions", **VIEW)
custom_part = st.container()

st.header("What is added to your input")
input_part = st.container()

st.header("Why sinusoids")
why_part = st.container()

st.header("PE(pos + δ) is a rotation of PE(pos)")
st.markdown(
    "For each pair of dimensions, moving δ positions on is the same 2 × 2 rotation, whatever *pos* is. That is "
    "the original paper's motivation for sinusoids: a model *could* learn \"look δ positions back\" as one linear "
    "map. Whether this model does is another matter: the embedding is added to the code and LayerNorm comes "
    "before every attention, so no head sees the pure code."
)
st.latex(r"\begin{gathered}\begin{pmatrix}\sin\omega_i(pos+\delta)\\ \cos\omega_i(pos+\delta)\end{pmatrix} \\ = "
         r"\begin{pmatrix}\cos\omega_i\delta & \sin\omega_i\delta\\ -\sin\omega_i\delta & \cos\omega_i\delta"
         r"\end{pmatrix}\begin{pmatrix}\sin\omega_i pos\\ \cos\omega_i pos\end{pmatrix}\end{gathered}")
a, b = st.columns(2)
delta = a.slider("δ", 1, 20, 3, key="delta", **VIEW)
keep_in_range("pos", 0, positions - 1)
pos = b.slider("pos", 0, positions - 1, 2, key="pos", **VIEW)
run = text_run(key, text)
view = positional_view(run, config, custom_d, custom_len, delta, pos)

with model_part:
    canvas_heatmap(encoding_spec(view.table, f"PE for d_model = {d_model}"), key="pe_model")
with custom_part:
    canvas_heatmap(encoding_spec(view.custom, f"PE for d_model = {custom_d}, {custom_len} positions"), key="pe_custom")
with input_part:
    st.markdown(view.scaling_sentence)
    vectors = view.vectors
    canvas_heatmap(encoding_spec(vectors.positions, "The position codes added to your characters",
                                 row_labels=view.source, row_title="source position"),
                   key="pe_input")
    plotly_chart(norms_bars(view.source, vectors.embedding_norm, vectors.raw_embedding_norm, vectors.position_norm,
                         title="Embedding norm beside positional-encoding norm"), key="norms")
    st.dataframe(view.norms, width="content")
with why_part:
    st.markdown(view.similarity_sentence)
    left, right = st.columns(2)
    canvas_heatmap(similarity_spec(view.similarity, title="PE · PEᵀ"), key="similarity",
                   container=left)
    plotly_chart(offset_distance_chart(view.distances, title="‖PE(pos+δ) − PE(pos)‖ for every pos"), key="distances",
              container=right)
    right.caption(view.distances_caption)

st.dataframe(view.rotation_table, hide_index=True, width="content",   # one precision down each column
             column_config={c: st.column_config.NumberColumn(format="%.5f") for c in ("cos ωδ", "sin ωδ", "−sin ωδ")})
plotly_chart(rotation_check_chart(view.shifted, view.rotated, pos, delta,
                               title=f"Rotating PE({pos}) by δ = {delta} lands on PE({pos + delta})"), key="rotation")
st.metric("Largest error of the rotation over every position and dimension", f"{view.rotation_error:.1e}",
          help="Float32 rounding; the identity is exact in real numbers.")

st.header(view.need_title)
st.markdown(view.need_sentence)
