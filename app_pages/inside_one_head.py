"""Inside one head: every number behind one attention weight, on the learner's own text, checked against the
model's own computation."""

import streamlit as st

from analysis.inside import TOLERANCE
from analysis.circuits import SplitUnavailable
from analysis.functional_split import SAMPLES
from analysis.page_models.inside_one_head import (MOST, ROLE_INTRO, ROLES_NEED_EVERY_HEAD, axes, inside_view,
                                                 role_terms)
from explorer.callbacks import key_position
from explorer.components import canvas_heatmap, vector_rows
from explorer.cache import intervention, position_means_for, text_run
from explorer.pickers import pick_head, pick_switched_off
from explorer.state import VIEW, keep_in_range, model_and_text
from viz.canvas_heatmap import Axes, Panel, heatmap_spec
from viz.circuits import letter_map_spec, term_bars
from viz.inside import logit_lens_spec
from viz.strips import vector_rows_spec

st.title("🔬 Inside one head")
st.markdown(
    "Pick one attention weight (one cell of one head's matrix) and follow every number that makes it, on your "
    "own text: the residual stream at the query's position, its LayerNorm, the query, key and value vectors, "
    "their dot product, the scaling, the mask, the softmax, the weighted values, and what the rest of the layer "
    "does with the result. Starting from the residual stream the model recorded at this layer (and, for "
    "cross-attention, the encoder's output), each number is worked out here again from the model's weights, in "
    "double precision, and set beside the number the model itself computed."
)

ckpt, key, text = model_and_text()   # key: names the model in use, the key of every cached run
model, config, vocab = ckpt.model, ckpt.model.config, ckpt.vocab

kind, layer, head = pick_head(config, "inside_")   # the Attention page's link fills it with its own choice
with st.expander("Heads switched off (the lab's experiment, shared with *Switch heads off*)"):
    ablated = pick_switched_off(config)
run = text_run(key, text, ablated=ablated)
ax = axes(run, kind)
keep_in_range("inside_query", 0, len(ax.rows) - 1)
if not isinstance(st.session_state.get("inside_key", MOST), str) and st.session_state["inside_key"] >= len(ax.cols):
    st.session_state["inside_key"] = MOST       # a key kept from a longer text or another kind
query_col, key_col = st.columns(2)
i = query_col.slider(f"Query: {ax.row_title.removesuffix(' (query)')} i", 0, len(ax.rows) - 1, 0, key="inside_query",
                     **VIEW) if len(ax.rows) > 1 else 0
picked = key_col.selectbox(f"Key: {ax.col_title.removesuffix(' (key)')} j", [MOST, *range(len(ax.cols))],
                           key="inside_key", format_func=key_position, **VIEW,
                           help="Positions, as on the axes of the chart below; the table in step 3 names each one's "
                                "character.")
view = inside_view(model, vocab, run, kind, layer, head, i, picked, intervention(ablated), ablated)
inside, j, rows, cols = view.inside, view.j, ax.rows, ax.cols
at = inside.attention
h, d_k = head, inside.d_k

st.markdown(view.header)
m1, m2, m3 = st.columns(3)
m1.metric(f"Weight w[{i}, {j}]", f"{view.weight:.4f}")
m2.metric("Largest difference from the model", f"{inside.largest_difference:.1e}",
          delta="matches the model" if inside.largest_difference <= TOLERANCE else "does not match the model",
          delta_color="normal" if inside.largest_difference <= TOLERANCE else "inverse", delta_arrow="off",
          help=f"Over the {view.checked_numbers:,} numbers derived below, each quantity's "
               f"largest difference divided by the size of its numbers where that is above 1; up to {TOLERANCE:g} "
               "counts as a match (the model computes in float32, whose rounding grows with the number).")
m3.metric(f"Score s[{i}, {j}]", view.score_metric)
if view.ablated_note:
    st.info(view.ablated_note, icon="✂️")

canvas_heatmap(heatmap_spec([Panel(f"head {head}", view.overview, outlines=[(i, j, j + 1)])],
                            Axes(rows, cols, ax.row_title, ax.col_title),
                            f"Head {head}'s weights (the chosen cell outlined)"),
               key="overview")

# --- 1. The stream and its LayerNorm -----------------------------------------------------------------
st.header("1 · The query's residual stream, and what the attention reads from it")
if inside.pre_norm:
    st.latex(r"\mathrm{LN}(x) = \gamma \odot \frac{x - \mu}{\sqrt{\sigma^2 + \epsilon}} + \beta")
st.markdown(view.stream_sentence)
vector_rows(vector_rows_spec([at.stream, at.normed.derived], view.stream_labels,
                             title=f"Position {i}: {config.d_model} numbers each"), "cells_stream")
if view.memory_note:
    st.info(view.memory_note, icon="↔️")

# --- 2. q, k, v --------------------------------------------------------------------------------------
st.header(f"2 · Query, key and value of head {head}, and the score")
st.latex(view.qkv_latex)
st.caption(view.qkv_caption)
vector_rows(vector_rows_spec([at.queries.derived[h], at.keys.derived[h, j], at.values.derived[h, j],
                              inside.products], [f"q_{i}", f"k_{j}", f"v_{j}", f"q_{i}[d] × k_{j}[d]"], ruled=3,
                             title=f"{d_k} numbers each; the last row is q·k term by term"),
            "cells_qkv")
st.latex(view.score_latex)
st.markdown(view.score_sentence)

# --- Content against position ----------------------------------------------------------------------------
st.header("Where this score comes from: content against position")
st.subheader("By source: the raw codes, before the layers rewrote where each character stands")
if view.split_unavailable:
    st.info(view.split_unavailable, icon="🧩")
terms = view.terms
if terms is not None and terms.intro is not None:
    st.markdown(terms.intro)
    st.html(term_bars(terms.cell, terms.total, f"Score s[{i}, {j}] of head {head}, term by term"))
if terms is not None:
    st.markdown(terms.sentence)
st.subheader("By role: what your letters changed against where they stand")
st.markdown(ROLE_INTRO.format(samples=SAMPLES))
means = position_means_for(key, run, kind, layer) if not ablated else ROLES_NEED_EVERY_HEAD
if isinstance(means, str):
    st.info(means, icon="🧩")
else:
    try:
        roles = role_terms(model, run, kind, layer, head, i, j, means.both)
    except SplitUnavailable as err:
        st.info(str(err), icon="🧩")
    else:
        st.html(term_bars(roles.cell, roles.total, f"Score s[{i}, {j}] of head {head}, by role"))
        st.markdown(roles.sentence)

# --- 4. Softmax over the row ------------------------------------------------------------------------------
st.header("3 · Softmax over the whole row")
st.latex(r"w_{ij} = \frac{e^{s_{ij}}}{\sum_{j'} e^{s_{ij'}}}")
st.dataframe(view.softmax_table, hide_index=True, width="content", height=min(35 * (len(cols) + 1) + 3, 600),
             column_config={
    **{c: st.column_config.NumberColumn(format="%.5f") for c in ("e^(s − max s)", "weight (the model)")},
    "weight (here)": st.column_config.ProgressColumn(format="%.5f", min_value=0.0, max_value=1.0),
    "sends ‖w·v·W_O‖": st.column_config.ProgressColumn(format="%.3f", min_value=0.0, max_value=view.sends_max)})
st.caption(view.softmax_caption)

# --- 5. The head's output ------------------------------------------------------------------------------------
st.header("4 · The head's output: the weighted values")
st.latex(rf"\mathrm{{head}}_{h}(i) = \sum_j w_{{ij}}\, v_j")
vector_rows(vector_rows_spec([*view.weighted, at.heads.derived[h]],
                             [*(f"{k}:{c}" for k, c in enumerate(cols)), "= head output"],
                             title=f"w[{i}, j] · v_j for every key j, and their sum (key {j} outlined)",
                             show_values=len(cols) <= 12, outlined=j, ruled=len(cols)),
            "cells_weighted")
st.markdown(view.weighted_sentence)
if inside.switched_off:
    st.warning(f"Head {head} is **switched off** in this run: within the run it computes its weights and output as "
               "usual (above; the decoder reads what this run wrote, which may differ from the model's usual output), "
               "then its output is multiplied by 0 before the heads are concatenated, so none of it reaches W^O "
               "(its block below is zero). The other heads of this layer are computed beside it and do not change; "
               "every later sublayer reads a stream without it.",
               icon="✂️")

if view.letters is not None:
    st.header("What this head writes: letter in → logit out")
    canvas_heatmap(letter_map_spec(view.letters.logits, view.letters.letters, f"Cross L{layer} H{head}: the logits "
                                   "its value path gives each character (outlined: each row's largest)"), key="letter_map")
    st.markdown(view.letters_sentence)
    st.caption(view.letters_caption)

# --- 6. Concat, W^O, residual ------------------------------------------------------------------------------
st.header("5 · Every head side by side, W^O, and the residual add")
st.latex(view.residual_latex)
vector_rows(vector_rows_spec([at.concat.derived, at.output.derived, at.stream, at.residual.derived],
                             ["c_i = Concat(heads)", "after W^O", f"x_{i}", f"x_{i}' (stream after)"],
                             title=f"{config.d_model} numbers each; head {head} fills dimensions {h * d_k}–"
                                   f"{(h + 1) * d_k - 1} of the concatenation"), "cells_concat")
st.markdown(view.concat_sentence)

# --- 7. The rest of the layer -----------------------------------------------------------------------------
st.header(f"6 · The rest of layer {layer} at position {i}, and where it goes next")
for sentence, formula in view.rest:
    st.markdown(sentence)
    if formula:
        st.latex(formula)
st.markdown(view.next_stop)
if view.generator_sentence:
    st.markdown(view.generator_sentence)

# --- Every check --------------------------------------------------------------------------------------
st.header("Every number, checked against the model")
st.dataframe(view.checks, hide_index=True, width="content", height=35 * (len(view.checks) + 1) + 3,
             column_order=("quantity", "largest |here − model|", "difference ÷ size", "largest number", "shape",
                           "sublayer"),   # the differences first: a narrow screen scrolls to the words, not them
             column_config={"largest |here − model|": st.column_config.NumberColumn(format="%.1e"),
                            "largest number": st.column_config.NumberColumn(format="%.2f"),
                            "difference ÷ size": st.column_config.NumberColumn(format="%.1e")})
st.caption(view.checks_caption)

# --- The residual stream -----------------------------------------------------------------------------------
st.header(f"What each block writes into the residual stream ({view.stack}, position {i})")
st.dataframe(view.norms, hide_index=True, width="content", height=35 * (len(view.norms) + 1) + 3, column_config={
                 c: st.column_config.ProgressColumn(format="%.2f", min_value=0.0, max_value=view.norms_top)
                 for c in ("‖what it added‖", "‖stream after it‖")})
st.caption(view.norms_caption)

# --- Logit lens ---------------------------------------------------------------------------------------
st.header("Logit lens: what the decoder would write if it stopped after each layer")
canvas_heatmap(logit_lens_spec(view.lens_correct_p, view.lens_top, view.lens_steps,
                               "p(correct next token); the token the lens would pick in each cell"),
               key="lens")
st.caption(view.lens_caption)
