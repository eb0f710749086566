"""Home: the model's answer at once, and its architecture with its real sizes."""

import streamlit as st

from analysis.labels import ffn_formula
from analysis.tasks import words
from explorer.callbacks import set_state
from explorer.model import checkpoint_or_stop, text_run
from explorer.state import TEXT_KEY, learner_text
from explorer.text import in_full, visible
from viz.architecture import architecture_dot

EXAMPLES = ("hello", "banana", "aaab", "teacher forcing", "attention is all you need")

ckpt = checkpoint_or_stop()
task = words(ckpt.task)
st.title("🔁 Attention explorer")
st.markdown(
    f"A small encoder-decoder Transformer, trained to **{task.verb}**, shows on your own text the numbers behind "
    "its answer: the next-token probabilities of every step, the positional codes, the masks, and the attention "
    "weights of every layer and head. "
    "Type in the sidebar; every page follows your text. The encoder reads the whole source at once; "
    f"the decoder then writes {task.output} one character at a time, each step reading its own output so far. "
    "The sidebar's *Task* switches between three models of the same architecture, trained to reverse, copy or sort."
)

st.caption("Try one:")
for column, example in zip(st.columns(len(EXAMPLES)), EXAMPLES):
    column.button(example, key=f"example_{example}", on_click=set_state, args=(TEXT_KEY, example),
                  width="stretch")

text = learner_text(ckpt)
run = text_run(text)

left, right = st.columns(2)
left.metric("You typed", visible(text))
in_full(left, text)
right.metric("The model writes", visible(run.output) or "(nothing)",
             delta=f"correct: {task.output}" if run.output == run.target else f"not exactly {task.output}",
             delta_color="normal" if run.output == run.target else "inverse")
in_full(right, run.output)
st.caption(f"{len(run.chosen_ids)} decoding steps: {len(run.output)} characters, then the end symbol ⟨/s⟩. "
           "See them one by one on *Decode step by step*.")

st.header("The architecture")
c = ckpt.model.config
st.graphviz_chart(architecture_dot(c.d_model, c.n_heads, c.d_ff, c.n_encoder_layers, c.n_decoder_layers,
                                   c.vocab_size, c.norm, c.tie_embeddings))

norm_name = "pre-norm" if c.norm == "pre" else "post-norm"
st.subheader("Residual connections and LayerNorm")
st.markdown(
    f"This checkpoint uses **{norm_name}**: every sublayer (attention or feed-forward) reads a LayerNorm of its "
    "input and adds its result back onto the residual stream, and each stack ends with one final LayerNorm. "
    "Post-norm, the original 2017 layout, normalises *after* the addition instead. Pre-norm trains more stably "
    "without a careful warm-up, which is why most modern models use it."
)
st.latex(r"\text{pre-norm: } x + \mathrm{Sublayer}(\mathrm{LN}(x)) \qquad "
         r"\text{post-norm: } \mathrm{LN}(x + \mathrm{Sublayer}(x))")

st.subheader("Position-wise feed-forward network")
st.markdown(
    f"Each layer's feed-forward network widens every position from {c.d_model} to {c.d_ff} numbers, applies ReLU, "
    f"and narrows back to {c.d_model}. It acts on **each position alone**: the same weights, no mixing across "
    "positions. Only attention moves information between positions."
)
st.latex(ffn_formula(c.d_model, c.d_ff))
st.caption(f"x is one position's row of {c.d_model} numbers, multiplied from the left, as in the code and on *Inside "
           f"one head*. PyTorch stores each matrix transposed: W₁ is `expand.weight` ({c.d_ff} × {c.d_model}) "
           "transposed.")

st.subheader("Weight tying")
if c.tie_embeddings:
    st.markdown(
        f"**Tied.** The source embedding, the target embedding and the generator share one {c.vocab_size} × "
        f"{c.d_model} matrix: the generator scores each next token by its dot product with that token's embedding."
    )
else:
    st.markdown("**Not tied.** The source embedding, target embedding and generator each have their own matrix.")

counts = ckpt.model.parameter_counts()
st.dataframe({"part": list(counts), "parameters": list(counts.values())}, hide_index=True, width="content")
st.caption(f"{ckpt.model.n_parameters():,} parameters in all.")
