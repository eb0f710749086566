"""Positional encoding: the sinusoid table, what is added to the learner's input, and why sinusoids."""

import numpy as np
import pandas as pd
import streamlit as st

from analysis.lesson import input_vectors
from explorer.charts import chart_in, show_chart
from explorer.model import checkpoint_or_stop, text_run
from explorer.state import VIEW, keep_in_range, learner_text
from transformer.layers import sinusoidal_encoding
from analysis.positional import (
    largest_rise, offset_distances, reflection_blocks, reflection_error, rotation_blocks, rotation_error, shift_by_rotation, similarity,
)
from viz import encoding_heatmap, norms_bars, offset_distance_chart, rotation_check_chart, similarity_heatmap

st.title("🌊 Positional encoding")
st.markdown(
    "Attention by itself ignores order: shuffle the input and every weight moves with it. So before the first "
    "layer, each token's embedding gets a **position code** added. The code is fixed, not learned: each pair of "
    "dimensions is a sine and a cosine of the position, turning at its own speed, fast in the first dimensions "
    "and ever slower further on."
)
st.latex(r"PE_{(pos,\,2i)} = \sin\!\left(\frac{pos}{10000^{2i/d_{model}}}\right) \qquad "
         r"PE_{(pos,\,2i+1)} = \cos\!\left(\frac{pos}{10000^{2i/d_{model}}}\right)")

ckpt = checkpoint_or_stop()
text = learner_text(ckpt)
config = ckpt.model.config
d_model, positions = config.d_model, config.max_len + 1

st.subheader(f"The table this model uses: {positions} positions × {d_model} dimensions")
show_chart(encoding_heatmap(sinusoidal_encoding(positions, d_model).numpy(),
                            title=f"PE for d_model = {d_model}"), key="pe_model")

st.subheader("Any size you like")
a, b = st.columns(2)
custom_d = a.select_slider("d_model", [8, 16, 32, 64, 128, 256, 512], value=128, key="pe_d_model", **VIEW)
custom_len = b.slider("Positions", 8, 256, 100, 4, key="pe_positions", **VIEW)
show_chart(encoding_heatmap(sinusoidal_encoding(custom_len, custom_d).numpy(),
                            title=f"PE for d_model = {custom_d}, {custom_len} positions"), key="pe_custom")

st.subheader("What is added to your input")
run = text_run(text)
vectors = input_vectors(run)
st.markdown(
    f"The token embedding is multiplied by √d_model = {d_model ** 0.5:.2f} before the code is added. Every code "
    f"has the same length, √(d_model/2) = {(d_model / 2) ** 0.5:.3f}, because each sine-cosine pair has length 1. "
    "Whether the scaling keeps the token from being drowned by its position depends on the embeddings' own "
    f"size: here they have length {vectors.raw_embedding_norm.min():.2f}–{vectors.raw_embedding_norm.max():.2f} "
    f"(they started near 1, drawn with standard deviation 1/√d_model), so scaled they are "
    f"{vectors.embedding_norm.min():.1f}–{vectors.embedding_norm.max():.1f} against the code's "
    f"{vectors.position_norm.max():.1f}. Unscaled, the code would be the larger."
)
show_chart(encoding_heatmap(vectors.positions, title="The position codes added to your characters",
                            row_labels=run.source, row_title="source position"), key="pe_input")
show_chart(norms_bars(run.source, vectors.embedding_norm, vectors.raw_embedding_norm,
                      vectors.position_norm, title="Embedding norm beside positional-encoding norm"),
           key="norms")
st.dataframe(pd.DataFrame({
    "character": run.source,
    "‖embedding‖": vectors.raw_embedding_norm,
    "‖embedding × √d_model‖": vectors.embedding_norm,
    "‖PE‖": vectors.position_norm,
}).round(3), width="content")

st.subheader("Why sinusoids")
pe = sinusoidal_encoding(positions + 10, d_model)
from_zero = similarity(pe[:positions]).numpy()[0]                     # (positions,) PE(0)·PE(j)
low, rise = largest_rise(from_zero)                                    # a farther position more like PE(0)
st.markdown(
    "Every position gets a **unique**, **bounded** code (each value lies in [−1, 1]) computed the same way every "
    "time, for any length. The similarity PE(i)·PE(j) depends only on the distance |i − j|, the same everywhere "
    "along the sequence, and neighbours are the most alike"
    + (f"; but it does not fall steadily with distance: PE(0)·PE({low}) = {from_zero[low]:.1f} is less than "
       f"PE(0)·PE({rise}) = {from_zero[rise]:.1f}." if from_zero[rise] > from_zero[low] else ".")
)
left, right = st.columns(2)
chart_in(left, similarity_heatmap(similarity(pe[:positions]).numpy(), title="PE · PEᵀ"), key="similarity")
distances = {delta: offset_distances(pe, delta).numpy() for delta in (1, 3, 8)}
chart_in(right, offset_distance_chart(distances, title="‖PE(pos+δ) − PE(pos)‖ for every pos"), key="distances")
right.caption("Spread of each line (largest − smallest): " + ", ".join(
    f"δ = {delta}: {float(d.max() - d.min()):.1e}" for delta, d in distances.items()))

st.subheader("PE(pos + δ) is a rotation of PE(pos)")
st.markdown(
    "For each pair of dimensions, moving δ positions on is the same 2 × 2 rotation, whatever *pos* is. That is "
    "the original paper's motivation for sinusoids: a model *could* learn \"look δ positions back\" as one linear "
    "map. Whether this model does is another matter: the embedding is added to the code and LayerNorm comes "
    "before every attention, so no head sees the pure code."
)
st.latex(r"\begin{pmatrix}\sin\omega_i(pos+\delta)\\ \cos\omega_i(pos+\delta)\end{pmatrix} = "
         r"\begin{pmatrix}\cos\omega_i\delta & \sin\omega_i\delta\\ -\sin\omega_i\delta & \cos\omega_i\delta"
         r"\end{pmatrix}\begin{pmatrix}\sin\omega_i pos\\ \cos\omega_i pos\end{pmatrix}")
a, b = st.columns(2)
delta = a.slider("δ", 1, 20, 3, key="delta", **VIEW)
keep_in_range("pos", 0, positions - 1)
pos = b.slider("pos", 0, positions - 1, 2, key="pos", **VIEW)
blocks = rotation_blocks(delta, d_model).numpy()         # (d/2, 2, 2)
shown = [0, 1, 2, d_model // 4, d_model // 2 - 1]
st.dataframe(pd.DataFrame(
    [{"pair (dims)": f"{2 * i}, {2 * i + 1}", "cos ωδ": blocks[i, 0, 0], "sin ωδ": blocks[i, 0, 1],
      "−sin ωδ": blocks[i, 1, 0]} for i in shown]).round(5), hide_index=True, width="content")
table = sinusoidal_encoding(positions + 20, d_model)
rotated = shift_by_rotation(table[pos:pos + 1], delta)[0]
show_chart(rotation_check_chart(table[pos + delta].numpy(), rotated.numpy(), pos, delta,
                                title=f"Rotating PE({pos}) by δ = {delta} lands on PE({pos + delta})"),
           key="rotation")
error = rotation_error(positions, d_model, delta)
st.metric("Largest error of the rotation over every position and dimension", f"{error:.1e}",
          help="Float32 rounding; the identity is exact in real numbers.")

n = len(text)
if ckpt.task == "reverse":
    st.subheader("What reversing needs: a reflection that depends on n")
    mirror = reflection_blocks(n, d_model).numpy()                                   # (d/2, 2, 2)
    other = reflection_blocks(n + 1, d_model).numpy()
    st.markdown(
        f"Reversing copies source position n−1−i at output step i. For each pair of dimensions, PE(n−1−i) is a fixed "
        f"2 × 2 map of PE(i), but unlike the shift above it is a **reflection** (determinant "
        f"{float(np.linalg.det(mirror[0])):.0f}) and it depends on **n**: for your {n} characters and for {n + 1} the "
        f"first pair's maps differ by up to {float(np.abs(mirror[0] - other[0]).max()):.2f}. So no single map takes "
        f"every position to its mirror: the model has to know how long the text is. Applying this n's map to every "
        f"position of your text lands on the mirrored code to within {reflection_error(n, d_model):.1e}."
    )
elif ckpt.task == "copy":
    st.subheader("What copying needs: the same position on both sides")
    st.markdown(
        "Copying reads source position i at output step i: the decoder's code PE(i) and the source's code PE(i) "
        "are the same vector, for every length n, so the map from a step to the position it copies is the identity "
        "and needs no length (reversing needs a reflection that changes with n: choose *Reverse* in the sidebar "
        "to see it)."
    )
else:
    st.subheader("What sorting needs: letters first, positions only between equals")
    st.markdown(
        "Sorting reads the i-th smallest character wherever it stands, so which source position to read is set by "
        "the letters, not by a map of positions. The codes still tell two equal letters apart. *No positions* in "
        "the lab measures how much this model still needs them."
    )
