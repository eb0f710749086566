"""Inside one head: every number behind one attention weight, on the learner's own text, checked against the
model's own computation."""

import numpy as np
import pandas as pd
import streamlit as st

from analysis.circuits import (CONTENT_CONTENT, POSITION_POSITION, WITH_WRITTEN, SplitUnavailable, letter_map,
                               score_split)
from analysis.inside import TOLERANCE, AttentionAt, inside_head, logit_lens, residual_norms, value_weighted
from analysis.labels import KIND_NAMES, attention_axes, ffn_formula, token_label
from analysis.run import correct_tokens
from explorer.callbacks import key_position
from explorer.charts import show_chart
from explorer.model import checkpoint_or_stop, intervention, text_run
from explorer.pickers import pick_head, pick_switched_off
from explorer.state import VIEW, keep_in_range, learner_text
from viz import attention_heatmap
from viz.circuits import letter_map_heatmap, term_bars
from viz.inside import logit_lens_heatmap
from viz.strips import vector_rows

MOST = "the one it attends to most"   # the key picker's default, a label that does not depend on the text

st.title("🔬 Inside one head")
st.markdown(
    "Pick one attention weight (one cell of one head's matrix) and follow every number that makes it, on your "
    "own text: the residual stream at the query's position, its LayerNorm, the query, key and value vectors, "
    "their dot product, the scaling, the mask, the softmax, the weighted values, and what the rest of the layer "
    "does with the result. Starting from the residual stream the model recorded at this layer (and, for "
    "cross-attention, the encoder's output), each number is worked out here again from the model's weights, in "
    "double precision, and set beside the number the model itself computed."
)

ckpt = checkpoint_or_stop()
text = learner_text(ckpt)
model, config, vocab = ckpt.model, ckpt.model.config, ckpt.vocab

kind, layer, head = pick_head(config, "inside_")   # the Attention page's link fills it with its own choice
with st.expander("Heads switched off (the lab's experiment, shared with *Switch heads off*)"):
    ablated = pick_switched_off(config)
run = text_run(text, ablated=ablated)
rows, cols, row_title, col_title = attention_axes(kind, run.source, run.decoder_in, run.decoder_out)
keep_in_range("inside_query", 0, len(rows) - 1)
if not isinstance(st.session_state.get("inside_key", MOST), str) and st.session_state["inside_key"] >= len(cols):
    st.session_state["inside_key"] = MOST       # a key kept from a longer text or another kind
query_col, key_col = st.columns(2)
i = query_col.slider(f"Query: {row_title.removesuffix(' (query)')} i", 0, len(rows) - 1, 0, key="inside_query",
                     **VIEW) if len(rows) > 1 else 0
picked = key_col.selectbox(f"Key: {col_title.removesuffix(' (key)')} j", [MOST, *range(len(cols))], key="inside_key",
                           format_func=key_position, **VIEW,
                           help="Positions, as on the axes of the chart below; the table in step 3 names each one's "
                                "character.")
j = int(run.trace[kind, layer][head][i].argmax()) if picked == MOST else int(picked)
edit = intervention(ablated)
inside = inside_head(model, run.trace, kind, layer, head, i, j, edit)
at = inside.attention
h, d_k = head, inside.d_k
weight = at.weights.derived[h, j]

st.markdown(f"**{KIND_NAMES[kind]}, layer {layer}, head {head}** · query {i} `{rows[i]}` → key {j} `{cols[j]}`")
m1, m2, m3 = st.columns(3)
m1.metric(f"Weight w[{i}, {j}]", f"{weight:.4f}")
m2.metric("Largest difference from the model", f"{inside.largest_difference:.1e}",
          delta="matches the model" if inside.largest_difference <= TOLERANCE else "does not match the model",
          delta_color="normal" if inside.largest_difference <= TOLERANCE else "inverse", delta_arrow="off",
          help=f"Over the {sum(c.derived.size for c in inside.checks):,} numbers derived below, each quantity's "
               f"largest difference divided by the size of its numbers where that is above 1; up to {TOLERANCE:g} "
               "counts as a match (the model computes in float32, whose rounding grows with the number).")
m3.metric(f"Score s[{i}, {j}]", "masked (−∞)" if not at.allowed[j] else f"{at.scores.derived[h, j]:.4f}")
if ablated:
    st.info(f"{len(ablated)} head(s) switched off: " + ", ".join(f"{k} L{l} H{x}" for k, l, x in ablated)
            + ". Every number below is from that run.", icon="✂️")

show_chart(attention_heatmap(run.trace[kind, layer][head], rows, cols, f"Head {head}'s weights (the chosen cell "
                             "outlined)", row_title, col_title, show_values=False, show_scale=True,
                             highlight_cell=(i, j)), key="overview")

# --- 1. The stream and its LayerNorm -----------------------------------------------------------------
st.subheader("1 · The query's residual stream, and what the attention reads from it")
inputs = f"the input vectors (each embedding × √d_model = {config.d_model ** 0.5:g}, plus its positional code)"
where = {"encoder_self": inputs if layer == 0 else
         f"the output of encoder layer {layer - 1}",
         "decoder_self": inputs if layer == 0 else
         f"the output of decoder layer {layer - 1}",
         "cross": f"the stream after decoder layer {layer}'s self-attention"}[kind]
if inside.pre_norm:
    st.latex(r"\mathrm{LN}(x) = \gamma \odot \frac{x - \mu}{\sqrt{\sigma^2 + \epsilon}} + \beta")
    st.markdown(
        f"x_{i} is the residual stream at position {i} as it enters this sublayer: {where}. This model is "
        f"**pre-norm**, so the attention reads LN(x_{i}): here μ = **{at.mean:.4f}**, √(σ² + ε) = "
        f"**{at.spread:.4f}**, then the learned γ and β. ‖x_{i}‖ = {np.linalg.norm(at.stream):.2f}, "
        f"‖LN(x_{i})‖ = {np.linalg.norm(at.normed.derived):.2f}."
    )
else:
    st.markdown(f"x_{i} is the residual stream at position {i} as it enters this sublayer: {where}. This model is "
                "**post-norm**: the attention reads x itself, and LayerNorm comes after the residual add.")
st.html(vector_rows([at.stream, at.normed.derived], [f"x_{i}", f"LN(x_{i})" if inside.pre_norm else f"x_{i} (read as is)"],
                    title=f"Position {i}: {config.d_model} numbers each"))
if kind == "cross":
    st.info("In cross-attention the keys and values do not come from this stream: they come from the "
            "**encoder's final output** (the memory"
            + (", after the encoder's final LayerNorm" if inside.pre_norm else "")
            + f"), the same {len(cols)} vector{'s' if len(cols) > 1 else ''} for every decoder layer and step.",
            icon="↔️")

# --- 2. q, k, v --------------------------------------------------------------------------------------
st.subheader(f"2 · Query, key and value of head {head}, and the score")
source = "m_j" if kind == "cross" else (r"\mathrm{LN}(x_j)" if inside.pre_norm else "x_j")
reads = r"\mathrm{LN}(x_i)" if inside.pre_norm else "x_i"
st.latex(rf"q_i = {reads}\,W_Q^{{({h})}} + b_Q^{{({h})}},\quad k_j = {source}\,W_K^{{({h})}} + b_K^{{({h})}},"
         rf"\quad v_j = {source}\,W_V^{{({h})}} + b_V^{{({h})}}")
st.caption(("m_j is the encoder's output at source position j. " if kind == "cross" else "")
           + f"Shapes: (1 × {config.d_model}) · ({config.d_model} × {d_k}) + (1 × {d_k}) → 1 × {d_k}. Head {h} owns "
           f"columns {h * d_k}–{(h + 1) * d_k - 1} of W_Q, W_K and W_V (d_k = d_model / heads = {config.d_model} / "
           f"{config.n_heads} = {d_k}; in the code's nn.Linear weights, which are stored transposed, these are rows).")
st.html(vector_rows([at.queries.derived[h], at.keys.derived[h, j], at.values.derived[h, j], inside.products],
                    [f"q_{i}", f"k_{j}", f"v_{j}", f"q_{i}[d] × k_{j}[d]"], ruled=3,
                    title=f"{d_k} numbers each; the last row is q·k term by term"))
traced_score = at.scores.traced[h, j]
allowed = bool(at.allowed[j])
scaled = inside.dot / np.sqrt(d_k)
st.latex(rf"s_{{{i},{j}}} = \frac{{q_{{{i}}}\cdot k_{{{j}}}}}{{\sqrt{{d_k}}}} = \frac{{{inside.dot:.4f}}}{{\sqrt{{{d_k}}}}} = "
         rf"{scaled:.4f}" + ("" if allowed else r" \;\to\; -\infty \text{ (masked)}"))
st.markdown(
    f"The score multiplies q and k dimension by dimension (the last row), adds the {d_k} terms, divides by √d_k "
    "and applies the mask. A sum of d_k terms spreads out like √d_k, so the division keeps scores near the same "
    "size whatever d_k is, and the softmax from putting all its weight on one key (the Masks page measures it). "
    f"The {d_k} terms add up to q·k = **{inside.dot:.4f}** (largest term {inside.products.max():.3f}, smallest "
    f"{inside.products.min():.3f}); divided by √{d_k} = {np.sqrt(d_k):.4g} it is **{scaled:.4f}**. "
    + (f"Key {j} may be attended to, so the mask adds 0. The model's own score: {traced_score:.4f}."
       if allowed else f"Key {j} is masked (a later decoder position), so its score becomes −∞, and the model's own "
       "score is −∞ too.")
)

# --- Content against position ----------------------------------------------------------------------------
st.subheader("Where this score comes from: content against position")
try:
    split = score_split(model, run.trace, kind, layer, head)
except SplitUnavailable as err:
    split = None
    st.info(f"{err} The split into content and position is shown for pre-norm models.",
            icon="🧩")
if split is not None:
    cell = split.at(i, j)
    cell_sum = sum(cell.values())
    model_score = float(at.scores.traced[h, j]) if at.allowed[j] else float(scaled)
    sizes = {name: abs(v) for name, v in cell.items()}
    total_size = sum(sizes.values()) or 1.0
    if layer == 0:
        st.markdown(
            (f"At layer 0 this stream is exactly each {'source' if kind == 'encoder_self' else 'decoder'} "
             "position's embedding × √d_model (its **content**, the character) plus its positional code (its "
             "**position**). " if not split.written else
             "At layer 0 the query's stream is the decoder position's embedding × √d_model (its **content**) plus "
             "its positional code (its **position**) plus what decoder layer 0's self-attention wrote; the keys "
             "come from the encoder's output, whose stream holds the source character, its position, and what "
             f"the encoder's {2 * config.n_encoder_layers} sublayers wrote. ")
            + ("Freeze each LayerNorm at the mean and spread it has on your text at each position: then LN(x) is "
               "γ⊙(content − its mean)/σ + γ⊙(position − its mean)/σ"
               + (" + γ⊙(what was written − its mean)/σ" if split.written else "")
               + " + β, and q and k split the same way, with β W + b as a bias part. "
               if inside.pre_norm else "This post-norm model reads x as it is, and q and k split with it. ")
            + "Each term below is the query's part · the key's part, divided by √d_k: content·position is the "
            "query's character against the key's position. *biases* gathers the terms with β, b_Q or b_K"
            + ("; *with what layers wrote* every term with a written part, on either side" if split.written else "")
            + "."
        )
        show_chart(term_bars(cell, cell_sum, f"Score s[{i}, {j}] of head {head}, term by term"), key="split_bars")
        largest = max(sizes, key=sizes.get)
        st.markdown(
            f"The largest term is **{largest}**: {cell[largest]:+.2f} of the score {cell_sum:.4f}, "
            f"{sizes[largest] / total_size:.0%} of the terms' summed size (position·position "
            f"{sizes[POSITION_POSITION] / total_size:.0%}, content·content {sizes[CONTENT_CONTENT] / total_size:.0%}). "
            f"The terms add up to {cell_sum:.4f}; "
            + (f"the model's own score is {model_score:.4f}" if at.allowed[j] else
               f"q·k/√d_k worked out above is {model_score:.4f} (the mask then makes the model's −∞)")
            + f", {abs(cell_sum - model_score):.1e} apart. A term that is the same for every key of a row (one "
            "that depends on the query alone) moves no weight: softmax ignores it."
        )
    else:
        written_share = sizes[WITH_WRITTEN] / total_size
        st.markdown(
            f"The split is shown for layer 0. At layer {layer} the stream also holds what the sublayers before it "
            "wrote, and attention there has already mixed in characters and positions from other positions, so a "
            "part of x_j no longer stands for the character and the place of position j alone. Split the same "
            f"way, the terms with what was written come to {cell[WITH_WRITTEN]:+.2f} of this score "
            f"{cell_sum:.4f}, {written_share:.0%} of the terms' summed size."
        )

# --- 4. Softmax over the row ------------------------------------------------------------------------------
st.subheader("3 · Softmax over the whole row")
st.latex(r"w_{ij} = \frac{e^{s_{ij}}}{\sum_{j'} e^{s_{ij'}}}")
row_scores, row_weights = at.scores.derived[h], at.weights.derived[h]
finite = row_scores[at.allowed]
exps = np.where(at.allowed, np.exp(row_scores - finite.max()), 0.0)
sends = value_weighted(model, run.trace, kind, layer, edit)[head, i]               # (Tk,) ‖w_ij v_j W_O^h‖
table = pd.DataFrame({"key": [f"{k}:{c}" + (" ◀" if k == j else "") for k, c in enumerate(cols)],
                      "score s": [f"{x:.5f}" if ok else "−∞ (masked)" for x, ok in zip(row_scores, at.allowed)],
                      "e^(s − max s)": exps, "weight (here)": row_weights,
                      "weight (the model)": at.weights.traced[h], "sends ‖w·v·W_O‖": sends})
st.dataframe(table, hide_index=True, width="content", height=min(35 * (len(cols) + 1) + 3, 600), column_config={
    **{c: st.column_config.NumberColumn(format="%.5f") for c in ("e^(s − max s)", "weight (the model)")},
    "weight (here)": st.column_config.ProgressColumn(format="%.5f", min_value=0.0, max_value=1.0),
    "sends ‖w·v·W_O‖": st.column_config.ProgressColumn(format="%.3f", min_value=0.0,
                                                       max_value=float(max(sends.max(), 1e-9)))})
st.caption(f"Subtracting the largest score before e^ changes no weight and keeps the numbers small. The weights "
           f"sum to {row_weights.sum():.6f}; w[{i}, {j}] = {weight:.5f}, the model's {at.weights.traced[h, j]:.5f}."
           + (f" The {int((~at.allowed).sum())} masked keys have score −∞ and weight exactly 0."
              if not at.allowed.all() else "")
           + " The last column is the size of what each key actually sends into the layer's output through this "
           "head, ‖w_ij v_j W_O^h‖ (step 5 defines W_O^h): a large weight on a key whose value, after W^O, is short "
           "moves little."
           + (" It is all 0 here: this head is switched off." if inside.switched_off else ""))

# --- 5. The head's output ------------------------------------------------------------------------------------
st.subheader("4 · The head's output: the weighted values")
st.latex(rf"\mathrm{{head}}_{h}(i) = \sum_j w_{{ij}}\, v_j")
weighted = row_weights[:, None] * at.values.derived[h]                      # (Tk, d_k)
sizes = np.linalg.norm(weighted, axis=1)
order = [k for k in np.argsort(-sizes) if at.allowed[k]][:3]
st.html(vector_rows([*weighted, at.heads.derived[h]], [*(f"{k}:{c}" for k, c in enumerate(cols)), "= head output"],
                    title=f"w[{i}, j] · v_j for every key j, and their sum (key {j} outlined)",
                    show_values=len(cols) <= 12, outlined=j, ruled=len(cols)))
st.markdown("The keys that contribute most to this head's output, by the length of w·v (before W^O; the table's "
            "last column measures it after): "
            + ", ".join(f"key {k} `{cols[k]}` ({sizes[k]:.3f}, weight {row_weights[k]:.3f})" for k in order)
            + f". The sum has length {np.linalg.norm(at.heads.derived[h]):.3f}.")
if inside.switched_off:
    st.warning(f"Head {head} is **switched off** in this run: within the run it computes its weights and output as "
               "usual (above; the decoder reads what this run wrote, which may differ from the model's usual output), "
               "then its output is multiplied by 0 before the heads are concatenated, so none of it reaches W^O "
               "(its block below is zero). The other heads of this layer are computed beside it and do not change; "
               "every later sublayer reads a stream without it.",
               icon="✂️")

if kind == "cross":
    st.subheader("What this head writes: letter in → logit out")
    letters = letter_map(model, run.trace, vocab, layer, head)
    n_letters = len(letters.letters)
    show_chart(letter_map_heatmap(letters.logits, letters.letters, f"Cross L{layer} H{head}: the logits its value "
                                  "path gives each character (ringed: each row's largest)"), key="letter_map")
    copies = letters.copies
    st.markdown(
        f"On **{copies} of {n_letters}** characters the largest logit is the character itself"
        + (", so along this path the head mostly writes the letter it attends to." if copies > n_letters / 2 else
           ", so along this path the head does not, on the whole, write the letter it attends to; one reading is "
           "that what it passes on is used by the layers after it, or carries something other than the letter.")
    )
    st.caption(
        "Each row: a character's embedding × √d_model alone (no position, nothing the encoder wrote), as if the "
        "head put all its weight on a source position holding it"
        + (", centred and scaled by the encoder's last LayerNorm as its mean spread is on your text" if
           letters.normed else "")
        + f", then this head's W_V and W_O^{head}"
        + (", the decoder's last LayerNorm (frozen likewise)" if letters.normed else "")
        + (" and the generator (tied: the embedding matrix transposed)." if config.tie_embeddings else
           " and the generator.")
        + " This is the direct path: the layers after the head are skipped, and so are the biases, which add the "
        "same to every row."
    )

# --- 6. Concat, W^O, residual ------------------------------------------------------------------------------
st.subheader("5 · Every head side by side, W^O, and the residual add")
st.latex(r"\mathrm{MHA}(i) = \mathrm{Concat}(\mathrm{head}_0(i), \dots, \mathrm{head}_{H-1}(i))\,W^O + b_O"
         r" = \sum_h \mathrm{head}_h(i)\,W_O^h + b_O,"
         r"\qquad x_i' = " + (r"x_i + \mathrm{MHA}(i)" if inside.pre_norm else r"\mathrm{LN}(x_i + \mathrm{MHA}(i))"))
off = [x for x in range(config.n_heads) if not at.gate[x]]
st.html(vector_rows([at.concat.derived, at.output.derived, at.stream, at.residual.derived],
                    ["Concat(heads)", "after W^O", f"x_{i}", f"x_{i}' (stream after)"],
                    title=f"{config.d_model} numbers each; head {head} fills dimensions {h * d_k}–{(h + 1) * d_k - 1} "
                          "of the concatenation"))
st.markdown(
    f"The {config.n_heads} head outputs ({d_k} numbers each) are laid side by side into {config.d_model} numbers"
    + (f" (switched off: head {', '.join(map(str, off))}, all zeros)" if off else "")
    + f"; W^O ({config.d_model} × {config.d_model}) mixes them. Head h's {d_k} numbers meet only rows "
    f"h·{d_k} to h·{d_k} + {d_k - 1} of W^O, a block called W_O^h, so the output is a sum of one term per head. "
    "What the sublayer adds has length "
    f"**{np.linalg.norm(at.output.derived):.2f}**, against ‖x_{i}‖ = {np.linalg.norm(at.stream):.2f}; the stream "
    f"after it has length {np.linalg.norm(at.residual.derived):.2f}."
)

# --- 7. The rest of the layer -----------------------------------------------------------------------------
st.subheader(f"6 · The rest of layer {layer} at position {i}, and where it goes next")
for block in inside.rest:
    if isinstance(block, AttentionAt):
        top = block.weights.derived.argmax(-1)
        st.markdown(
            f"**Cross-attention** (the next sublayer) reads {'LN of ' if inside.pre_norm else ''}that stream and the "
            "encoder's output: its heads' "
            "largest weights at this position fall on source positions "
            + ", ".join(f"{top[x]} (head {x})" for x in range(config.n_heads))
            + f". It adds a vector of length {np.linalg.norm(block.output.derived):.2f}."
        )
    else:
        active = int((block.hidden.derived > 0).sum())
        st.markdown(f"**Feed-forward**, on this position alone: {active} of its {block.hidden.derived.size} hidden "
                    f"units are above 0 after the ReLU; it adds a vector of length "
                    f"{np.linalg.norm(block.output.derived):.2f}.")
        st.latex(ffn_formula(config.d_model, config.d_ff))
stop = inside.next_stop
st.markdown(f"Then {stop.description}.")
if stop.logits is not None:
    logits = stop.logits.derived
    best = np.argsort(-logits)[:3]
    probs = np.exp(logits - logits.max())
    probs /= probs.sum()
    st.markdown("At this position the generator's top scores: " + ", ".join(
        f"`{token_label(vocab, int(t))}` ({logits[t]:.2f}, p = {probs[t]:.3f})" for t in best)
        + f"; the model wrote `{run.decoder_out[i]}` at step {i}.")

# --- Every check --------------------------------------------------------------------------------------
st.subheader("Every number, checked against the model")
blocks, checks = zip(*inside.checks_by_block)
st.dataframe(pd.DataFrame({
    "sublayer": blocks,
    "quantity": [c.name for c in checks],
    "shape": [" × ".join(map(str, c.shape)) for c in checks],
    "largest |here − model|": [c.difference for c in checks],
    "largest number": [c.size for c in checks],
    "difference ÷ size": [c.scaled_difference for c in checks],
}), hide_index=True, width="content", height=35 * (len(checks) + 1) + 3,
    column_config={"largest |here − model|": st.column_config.NumberColumn(format="%.1e"),
                   "largest number": st.column_config.NumberColumn(format="%.2f"),
                   "difference ÷ size": st.column_config.NumberColumn(format="%.1e")})
st.caption("Worked out here in float64 from the trained weights, starting from the residual stream the model "
           "recorded. The model computes in float32, whose rounding grows with the size of a number, so each "
           "difference is also divided by the size of the numbers it compares (where that is above 1). Largest: "
           f"**{inside.largest_difference:.1e}** (a match is at most {TOLERANCE:g}).")

# --- The residual stream -----------------------------------------------------------------------------------
stack = "encoder" if kind == "encoder_self" else "decoder"
st.subheader(f"What each block writes into the residual stream ({stack}, position {i})")
norms = residual_norms(run.trace, stack, i)
top = max(r.stream for r in norms)
st.dataframe(pd.DataFrame({"block": [r.step for r in norms], "‖what it added‖": [r.added for r in norms],
                           "‖stream after it‖": [r.stream for r in norms]}),
             hide_index=True, width="content", height=35 * (len(norms) + 1) + 3, column_config={
                 c: st.column_config.ProgressColumn(format="%.2f", min_value=0.0, max_value=top)
                 for c in ("‖what it added‖", "‖stream after it‖")})
largest = max(norms[1:], key=lambda r: r.added)
st.caption(("Every sublayer adds its output to the stream, so the stream is the sum of the input vectors and "
            "everything each block wrote. " if inside.pre_norm else
            "Every sublayer adds its output to the stream, and this post-norm model then normalises the sum. ")
           + f"At this position the largest addition is from the {largest.step} "
           f"(length {largest.added:.2f}); the stream ends at length {norms[-1].stream:.2f}. "
           + ("The norms are of the stream before the final LayerNorm." if inside.pre_norm else
              "This model is post-norm, so each stream norm is measured after that block's LayerNorm."))

# --- Logit lens ---------------------------------------------------------------------------------------
st.subheader("Logit lens: what the decoder would write if it stopped after each layer")
correct = correct_tokens(vocab, text, config.max_len, run.task)
lens = logit_lens(model, run.trace, correct)
steps = [token_label(vocab, t) for t in correct][: lens.top_ids.shape[1]]
steps += ["(after the end)"] * (lens.top_ids.shape[1] - len(steps))
show_chart(logit_lens_heatmap(lens.correct_p, [[token_label(vocab, int(t)) for t in row] for row in lens.top_ids],
                              steps, title="p(correct next token); the token the lens would pick in each cell"),
           key="lens")
n_characters = min(len(text), lens.correct_p.shape[1])
by_layer = lens.correct_p[:, :n_characters].mean(axis=1)                  # (N,) over the character steps
end = lens.correct_p[:, n_characters] if n_characters < lens.correct_p.shape[1] else None   # the ⟨/s⟩ step
reading = (" One reading: the layers before the last do not yet say which character comes next; the last one does."
           if (by_layer[:-1] < 0.5).all() and by_layer[-1] >= 0.5 else "")
st.caption(
    ("The decoder's final LayerNorm and the generator applied to each decoder layer's output, at every step of "
     "this run (as if the layers after it were skipped). " if inside.pre_norm else
     "The generator applied to each decoder layer's output, at every step of this run (this post-norm model has "
     "no final LayerNorm). ")
    + f"Mean p(correct) over the {n_characters} character step(s): "
    + ", ".join(f"after layer {x}: **{p:.3f}**" for x, p in enumerate(by_layer))
    + ("" if end is None else "; at the end step (⟨/s⟩): " + ", ".join(f"{p:.3f}" for p in end))
    + f". After the last layer it is the model's own output (largest difference {lens.last_difference:.1e})."
    + reading
)
