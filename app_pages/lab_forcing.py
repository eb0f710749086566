"""Lab 4: teacher forcing against free running, and a wrong token forced in at any step."""

import streamlit as st

from analysis.page_models.lab_forcing import forced_tokens, forcing_lab, writable_letters
from explorer.callbacks import forced_step
from explorer.components import canvas_heatmap
from explorer.cache import text_run
from explorer.state import VIEW, model_and_text
from explorer.text import escape_markdown, visible
from viz.attention import weights_spec

st.title("🧪 Lab: teacher forcing and free running")
st.markdown(
    "In training, the decoder always reads the **correct** prefix (teacher forcing). With the causal mask, that "
    "lets every position of a word be trained in one parallel pass: each row sees the correct tokens before it "
    "and nothing after. In use the decoder reads **its own** output (free running), so one mistake is fed back "
    "into every later step, a prefix it never met in training: this gap is called **exposure bias**. Force a "
    "token of your choice at any step and watch what the rest of the decoding does with it."
)

ckpt, key, text = model_and_text()   # key: names the model in use, the key of every cached run
vocab = ckpt.vocab
letters = writable_letters(vocab)

a, b = st.columns(2)
step = a.selectbox("Force a token at step", [None, *range(len(text) + 1)], key="force_step", **VIEW,
                   format_func=forced_step)
token = b.selectbox("Token fed in instead", letters, index=letters.index("z") if "z" in letters else len(letters) - 1, key="force_token", **VIEW,
                    format_func=visible, disabled=step is None)
forced = forced_tokens(vocab, step, token)
view = forcing_lab(vocab, text_run(key, text, teacher=True), text_run(key, text, forced=forced), text_run(key, text), forced,
                   escape_markdown)


def mark(row):
    colour = "background-color: #fee2e2" if view.diverged is not None and row["step"] >= view.diverged else ""
    return [colour] * len(row)


st.dataframe(view.table.style.apply(mark, axis=1), hide_index=True)
if view.diverged is None:
    st.success(view.verdict, icon="✅")
else:
    st.error(view.verdict, icon="🔀")

st.header("Where the later steps looked")
left, right = st.columns(2)
if not forced:
    right.info("Force a token above, and its map appears here beside this one.", icon="👈")
for column, cross in zip((left, right), view.maps):
    canvas_heatmap(weights_spec(cross.weights, cross.rows, cross.cols, cross.title, "decoder position (reads)",
                                "source position", height=cross.height),
                   key=cross.key, container=column)
st.caption("Each row is one free-running step. After a forced token, look at the rows below it: does the model "
           "keep its place on the source, or lose it?")
