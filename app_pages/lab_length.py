"""Lab 5: longer than trained. The model does its task at every length it saw; what about the ones it did not?"""

import streamlit as st

from analysis.lab import lab_limit
from analysis.page_models.lab_length import (default_long_text, exact_match_curve, first_wrong_table, long_text,
                                             two_texts)
from explorer.charts import plotly_chart
from explorer.components import canvas_heatmap
from explorer.errors import InputError
from explorer.lab_runs import failure_table, length_curve
from explorer.link_guard import stop_page
from explorer.cache import text_run
from explorer.state import VIEW, model_and_text
from explorer.text import answer_metric, escape_markdown, in_full
from viz.attention import weights_spec
from viz.lab import length_curve as length_chart

st.title("🧪 Lab: longer than trained")
ckpt, key, text = model_and_text()   # key: names the model in use, the key of every cached run
config = ckpt.model.config
longest = lab_limit(ckpt.model)
st.markdown(
    f"Every training word had 1 to {config.max_len} characters. The sinusoidal table has codes for "
    f"{config.max_positions} positions, so nothing stops a longer input, but the model has never seen what "
    f"those codes mean. Here inputs may go up to {longest} characters, twice the trained length."
)

curve = exact_match_curve(length_curve(key), config.max_len)
plotly_chart(length_chart(curve.curve, config.max_len, title="Exact match by input length (20 random strings each)"),
          key="curve")
st.caption(curve.caption)

st.header("Where it first goes wrong")
failures = first_wrong_table(failure_table(key), config.max_len, ckpt.task)
st.dataframe(failures.table, hide_index=True, width="content", column_config={
    "exactly right": st.column_config.NumberColumn(format="percent"),
    "wrong from the first character": st.column_config.NumberColumn(format="percent"),
    "p(correct first character)": st.column_config.NumberColumn(format="%.3f")})
if failures.caption:
    st.caption(failures.caption)

typed = st.text_input(f"A long text (up to {longest} characters)",
                      value=default_long_text(text, config.max_len, longest), key="long_text",
                      max_chars=longest * 2, **VIEW)
try:
    long = long_text(ckpt.vocab, typed, longest)
except InputError as err:
    st.error(escape_markdown(str(err)), icon="✋")
    stop_page()


def runs(word: str):
    """The model's own output, and the attention with the correct output fed in. A word within the model's
    own limit reads as it does on every other page, so it shares their cached runs."""
    limit = None if len(word) <= config.max_len else longest
    return text_run(key, word, max_len=limit), text_run(key, word, teacher=True, max_len=limit)


(good_own, good_taught), (long_own, long_taught) = runs(text), runs(long)
view = two_texts(good_taught, long_taught)
left, right = st.columns(2)
for column, own, shown, name in ((left, good_own, view.maps[0], "good"), (right, long_own, view.maps[1], "long")):
    answer_metric(column, shown.label, own, "exactly {output}", "not {output}")
    in_full(column, own.output)
    canvas_heatmap(weights_spec(shown.weights, shown.rows, shown.cols,
                                "Cross-attention, last layer, head average (a summary)", "decoder position",
                                "source position", height=480),
                   key=f"attention_{name}", container=column)
st.caption(view.caption)
