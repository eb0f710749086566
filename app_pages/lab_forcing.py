"""Lab 4: teacher forcing against free running, and a wrong token forced in at any step."""

import pandas as pd
import streamlit as st

from analysis.lab import first_divergence
from analysis.labels import token_label
from explorer.callbacks import forced_step
from explorer.charts import chart_in
from explorer.model import checkpoint_or_stop, text_run
from explorer.state import VIEW, learner_text
from explorer.text import escape_markdown as escape, visible
from viz import HALF_WIDTH_TICKS, attention_heatmap

st.title("🧪 Lab: teacher forcing and free running")
st.markdown(
    "In training, the decoder always reads the **correct** prefix (teacher forcing). With the causal mask, that "
    "lets every position of a word be trained in one parallel pass: each row sees the correct tokens before it "
    "and nothing after. In use the decoder reads **its own** output (free running), so one mistake is fed back "
    "into every later step, a prefix it never met in training: this gap is called **exposure bias**. Force a "
    "token of your choice at any step and watch what the rest of the decoding does with it."
)

ckpt = checkpoint_or_stop()
READ_TAIL = 12
text = learner_text(ckpt)
vocab = ckpt.vocab
letters = [t for t in vocab.tokens if len(t) == 1]          # the characters the model can write

a, b = st.columns(2)
step = a.selectbox("Force a token at step", [None, *range(len(text) + 1)], key="force_step", **VIEW,
                   format_func=forced_step)
token = b.selectbox("Token fed in instead", letters, index=letters.index("z"), key="force_token", **VIEW,
                    format_func=visible, disabled=step is None)
forced = () if step is None else ((step, vocab.tokens.index(token)),)
teacher, free = text_run(text, teacher=True), text_run(text, forced=forced)

label = lambda ids: " ".join(token_label(vocab, i) for i in ids) or "—"  # noqa: E731
# the latest READ_TAIL tokens of a long prefix: a table cell cuts text at its end, where the step's news is
latest = lambda ids: ("… " if len(ids) > READ_TAIL else "") + label(ids[-READ_TAIL:])  # noqa: E731
reads = lambda run, t: latest(run.decoder_in_ids[1: t + 1]) if t < len(run.fed_ids) else ""  # noqa: E731
picks = lambda run, t: run.decoder_out[t] if t < len(run.chosen_ids) else ""  # noqa: E731
n = max(len(teacher.fed_ids), len(free.fed_ids))
table = pd.DataFrame({
    "step": range(n),
    "teacher forcing reads": [reads(teacher, t) for t in range(n)],
    "and picks": [picks(teacher, t) for t in range(n)],
    "free running reads": [reads(free, t) for t in range(n)],
    "and picks ": [picks(free, t) for t in range(n)],
    "fed onward": [token_label(vocab, free.fed_ids[t]) + (" (forced)" if dict(forced).get(t) is not None else "")
                   if t < len(free.fed_ids) else "" for t in range(n)],
})
diverged = first_divergence(teacher, free)


def mark(row):
    colour = "background-color: #fee2e2" if diverged is not None and row["step"] >= diverged else ""
    return [colour] * len(row)


st.dataframe(table.style.apply(mark, axis=1), hide_index=True)
free_text = free.output
if diverged is None:
    st.success(f"Free running read the correct prefix at every step and wrote **{escape(visible(free_text))}**: the "
               "two modes never differ for this model on this text.", icon="✅")
else:
    st.error(f"The two modes part at **step {diverged}**: from there on the decoder reads a prefix it was never "
             f"trained on (rows in red). Free running wrote **{escape(visible(free_text))}** instead of "
             f"**{escape(visible(free.target))}**.", icon="🔀")

st.subheader("Where the later steps looked")
unforced = text_run(text)
layer = ckpt.model.config.n_decoder_layers - 1
left, right = st.columns(2)
shown = [(left, unforced, "no forcing", "cross_unforced")]
if forced:
    shown.append((right, free, "with your forced token", "cross_forced"))
else:
    right.info("Force a token above, and its map appears here beside this one.", icon="👈")
for column, run, name, key in shown:
    chart_in(column, attention_heatmap(run.trace["cross", layer].mean(0), run.decoder_in, run.source,
                                       title=f"{name}: cross-attention, layer {layer}, head average (a summary)",
                                       query_title="decoder position (reads)", key_title="source position",
                                       height=min(520, 34 * len(run.decoder_in) + 120), max_ticks=HALF_WIDTH_TICKS),
             key=key)
st.caption("Each row is one free-running step. After a forced token, look at the rows below it: does the model "
           "keep its place on the source, or lose it?")
