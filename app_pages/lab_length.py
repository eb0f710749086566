"""Lab 5: longer than trained. The model does its task at every length it saw; what about the ones it did not?"""

import pandas as pd
import streamlit as st

from analysis.lab import encode_for_lab, lab_limit
from analysis.tasks import words
from explorer.charts import chart_in, show_chart
from explorer.lab_runs import failure_table, length_curve
from explorer.link_guard import stop_page
from explorer.model import checkpoint_or_stop, text_run
from explorer.state import VIEW, learner_text
from explorer.text import answer_metric, escape_markdown, in_full, visible
from transformer.data import expected_keys
from transformer.vocab import InputError
from viz import HALF_WIDTH_TICKS, attention_heatmap
from viz.lab import length_curve as length_chart

st.title("🧪 Lab: longer than trained")
ckpt = checkpoint_or_stop()
text = learner_text(ckpt)
config = ckpt.model.config
longest = lab_limit(ckpt.model)
task = words(ckpt.task)
st.markdown(
    f"Every training word had 1 to {config.max_len} characters. The sinusoidal table has codes for "
    f"{config.max_positions} positions, so nothing stops a longer input, but the model has never seen what "
    f"those codes mean. Here inputs may go up to {longest} characters, twice the trained length."
)

curve = length_curve()
show_chart(length_chart(curve, config.max_len, title="Exact match by input length (20 random strings each)"),
           key="curve")
beyond = [n for n in curve if n > config.max_len]
st.caption(f"Within training: {min(curve[n] for n in curve if n <= config.max_len):.0%} at worst. Beyond it: "
           f"{curve[beyond[0]]:.0%} at length {beyond[0]}, {curve[beyond[-1]]:.0%} at length {beyond[-1]}.")

st.subheader("Where it first goes wrong")
failures = failure_table()
st.dataframe(pd.DataFrame({
    "length": [f.length for f in failures],
    "exactly right": [f.exact for f in failures],
    "wrong from the first character": [f.wrong_at_step_0 for f in failures],
    "first wrong step (median)": [f.first_wrong for f in failures],
    "p(correct first character)": [f.p_step_0 for f in failures],
}), hide_index=True, width="content", column_config={
    "exactly right": st.column_config.NumberColumn(format="percent"),
    "wrong from the first character": st.column_config.NumberColumn(format="percent"),
    "p(correct first character)": st.column_config.NumberColumn(format="%.3f")})
past = [f for f in failures if f.length > config.max_len]
if past:
    at_once = sum(f.wrong_at_step_0 for f in past) / len(past)
    summary = (f"10 random strings per length. Past {config.max_len} characters, {at_once:.0%} of the strings go "
               f"wrong at the very first output character, and the first step gives the right one a mean probability "
               f"of {min(f.p_step_0 for f in past):.3f}–{max(f.p_step_0 for f in past):.3f}.")
    if ckpt.task == "reverse" and at_once >= 0.5:
        summary += (
            " The failure is not at the far end of the text: step 0 must copy source position n−1, a position the "
            f"first step never had to find in training (n ≤ {config.max_len}). The mirror depends on the length "
            "(*Positional encoding* shows the reflection changes with n), so one reading is that the model's sense "
            "of where the text ends breaks first, and every step after it inherits the wrong start. *Build a head* "
            "tests it, with a mirror handed the true length.")
    st.caption(summary)

default = " ".join([text] * (longest // max(len(text), 1) + 2))[:min(config.max_len + 8, longest)].strip()
typed = st.text_input(f"A long text (up to {longest} characters)", value=default, key="long_text",
                      max_chars=longest * 2, **VIEW)
cleaned = ckpt.vocab.clean(typed)
try:
    encode_for_lab(ckpt.vocab, cleaned.text, longest)
except InputError as err:
    st.error(escape_markdown(str(err)), icon="✋")
    stop_page()


def runs(word: str):
    """The model's own output, and the attention with the correct output fed in. A word within the model's
    own limit reads as it does on every other page, so it shares their cached runs."""
    limit = None if len(word) <= config.max_len else longest
    return text_run(word, max_len=limit), text_run(word, teacher=True, max_len=limit)


left, right = st.columns(2)
last = config.n_decoder_layers - 1
for column, word, name in ((left, text, "good"), (right, cleaned.text, "long")):
    own, taught = runs(word)
    answer_metric(column, f"{len(word)} characters", own, "exactly {output}", "not {output}")
    in_full(column, own.output)
    chart_in(column, attention_heatmap(taught.trace["cross", last].mean(0), taught.decoder_in,
                                       taught.source, title="Cross-attention, last layer, head average (a summary)",
                                       query_title="decoder position", key_title="source position", height=480,
                                       max_ticks=HALF_WIDTH_TICKS),
                     key=f"attention_{name}")
allowed = sorted(expected_keys(cleaned.text, ckpt.task)[0])   # the source positions step 0 may copy from
if len(allowed) == 1:
    should = f"against source position {allowed[0]} that it should copy."
else:
    letter = visible(cleaned.text[allowed[0]])
    should = (f"against the {len(allowed)} source positions holding '{letter}', the character it should write "
              f"first: {', '.join(map(str, allowed))}. Any of them counts, as in the task's pattern.")
st.caption(f"Both maps feed the decoder the correct output, {task.output} (each row reads the right prefix). On the "
           f"long text, look at the first row: where step 0 puts its weight, {should}")
