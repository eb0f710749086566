"""Lab 4: teacher forcing against free running, and a wrong token forced in at any step."""

import pandas as pd
import streamlit as st

from explorer.lab_runs import forcing
from explorer.model import checkpoint_or_stop
from explorer.state import learner_text
from explorer.text import escape_markdown as escape, visible
from transformer.lesson import SOS_LABEL, token_label
from viz import attention_heatmap

st.title("🧪 Lab: teacher forcing and free running")
st.markdown(
    "In training, the decoder always reads the **correct** prefix (teacher forcing), so each step is learnt on "
    "its own. In use it reads **its own** output (free running), so one mistake is fed back into every later "
    "step. Force a token of your choice at any step and watch what the rest of the decoding does with it."
)

ckpt = checkpoint_or_stop()
text = learner_text(ckpt)
vocab = ckpt.vocab
letters = [t for t in vocab.tokens if len(t) == 1]          # the characters the model can write

a, b = st.columns(2)
step = a.selectbox("Force a token at step", [None, *range(len(text) + 1)], key="force_step",
                   format_func=lambda s: "no forcing" if s is None else f"step {s}")
token = b.selectbox("Token fed in instead", letters, index=letters.index("z"), key="force_token",
                    format_func=visible, disabled=step is None)
forced = () if step is None else ((step, vocab.tokens.index(token)),)
run = forcing(text, forced)

label = lambda ids: " ".join(token_label(vocab, i) for i in ids) or "—"  # noqa: E731
n = max(len(run.correct), len(run.free_choice))
table = pd.DataFrame({
    "step": range(n),
    "teacher forcing reads": [label(run.correct[:t]) if t < len(run.correct) else "" for t in range(n)],
    "and picks": [token_label(vocab, run.forced_choice[t]) if t < len(run.forced_choice) else "" for t in range(n)],
    "free running reads": [label(run.free_input[t]) if t < len(run.free_input) else "" for t in range(n)],
    "and picks ": [token_label(vocab, run.free_choice[t]) if t < len(run.free_choice) else "" for t in range(n)],
    "fed onward": [token_label(vocab, run.fed[t]) + (" (forced)" if dict(forced).get(t) is not None else "")
                   if t < len(run.fed) else "" for t in range(n)],
})
diverged = run.first_divergence


def mark(row):
    colour = "background-color: #fee2e2" if diverged is not None and row["step"] >= diverged else ""
    return [colour] * len(row)


st.dataframe(table.style.apply(mark, axis=1), hide_index=True)
free_text = vocab.decode(run.fed)
if diverged is None:
    st.success(f"Free running read the correct prefix at every step and wrote **{escape(visible(free_text))}**: the "
               "two modes never differ for this model on this text.", icon="✅")
else:
    st.error(f"The two modes part at **step {diverged}**: from there on the decoder reads a prefix it was never "
             f"trained on (rows in red). Free running wrote **{escape(visible(free_text))}** instead of "
             f"**{escape(visible(text[::-1]))}**.", icon="🔀")

st.subheader("Where the later steps looked")
unforced = forcing(text, ())
layer = unforced.free_cross.shape[0] - 1
left, right = st.columns(2)
shown = [(left, unforced, "no forcing", "cross_unforced")]
if forced:
    shown.append((right, run, "with your forced token", "cross_forced"))
else:
    right.info("Force a token above, and its map appears here beside this one.", icon="👈")
for column, comparison, name, key in shown:
    reads = [SOS_LABEL, *(token_label(vocab, t) for t in comparison.fed[:-1])]
    column.plotly_chart(attention_heatmap(comparison.free_cross[layer].mean(0), reads, list(map(visible, text)),
                                          title=f"{name}: cross-attention, layer {layer}, head average",
                                          query_title="decoder position (reads)", key_title="source position",
                                          height=min(520, 34 * len(reads) + 120)), key=key)
st.caption("Each row is one free-running step. After a forced token, look at the rows below it: does the model "
           "keep its place on the source, or lose it?")
