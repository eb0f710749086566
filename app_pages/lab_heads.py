"""Lab 2: which head does the task? Every head scored against a hypothesis for its kind and against that
hypothesis shifted by a position or two, beside what removing it costs."""

import streamlit as st

from analysis.offsets import EXPLAINED_SHARE, OFFSETS
from analysis.page_models.lab_heads import heads_lab, hypothesis_table
from analysis.tasks import words
from explorer.charts import plotly_chart
from explorer.lab_runs import NOISE_POINTS, SAMPLE_SIZE, ablation_table, offset_table, pattern_table
from explorer.cache import checkpoint_or_stop, model_key
from explorer.state import learner_text
from viz.lab import harm_against_pattern

ckpt = checkpoint_or_stop()
key = model_key()   # names the model in use: the key of every cached run below
task = words(ckpt.task)
st.title(f"🧪 Lab: which head does the work?")
st.markdown(
    f"Is there a head that does the work of the task ({task.verb})? Each kind of attention gets a **hypothesis** "
    f"below. Only cross-attention's follows from what the task needs: {task.rule}. For "
    "the two self-attentions nobody knows an ideal pattern; the ones below are guesses to test. Every head is "
    "scored by the mean weight it puts on the key its hypothesis names (beside **chance**, the score of a head "
    "that spreads its weight evenly), by its **entropy** and its **uniformity** (1: spread evenly). The "
    "**evidence** is the column *exact match lost when off*: what switching the head off costs."
)
st.markdown(
    f"A head can follow its hypothesis **shifted**: reading, say, the character a step has just read instead of "
    f"the one it writes. So each head is also scored against the **offsets** k = {OFFSETS[0]}…+{OFFSETS[-1]} of "
    "its hypothesis (offset 0 is the hypothesis itself): for each offset, the share of steps whose largest weight "
    f"lands on the key it names. This page calls a head **explained by an offset** when at least "
    f"{EXPLAINED_SHARE:.0%} of its steps land there: one key then takes the largest weight at least as "
    "often as every other key of the row put together."
)
st.table(hypothesis_table(ckpt.task))

learner_text(ckpt)
view = heads_lab(ckpt.task, pattern_table(key), offset_table(key), ablation_table(key), SAMPLE_SIZE, NOISE_POINTS)
st.dataframe(view.table, hide_index=True, width="content", column_config={
    "pattern score": st.column_config.ProgressColumn(format="%.3f", min_value=0, max_value=1),
    "chance": st.column_config.NumberColumn(format="%.3f"),
    "best offset": st.column_config.NumberColumn(format="%+d"),
    "steps there": st.column_config.NumberColumn(format="percent"),
    "mean top weight": st.column_config.NumberColumn(format="%.2f"),
    "entropy (nats)": st.column_config.NumberColumn(format="%.2f"),
    "uniformity": st.column_config.NumberColumn(format="%.2f"),
    "exact match lost when off": st.column_config.NumberColumn(format="percent")})
st.caption(view.caption)

left, right = st.columns(2)
plotly_chart(harm_against_pattern(view.heads, view.kinds, view.scores, view.drops,
                                  title="Does looking right mean being needed?"), key="agreement", container=left)
plotly_chart(harm_against_pattern(view.heads, view.kinds, view.best_shares, view.drops,
                                  title="Does landing on one offset mean being needed?",
                                  x_title="share of steps on its best offset"), key="offset_agreement", container=right)

st.header("Do the two rankings agree?")
st.markdown(view.agreement)
for bullet in view.bullets:
    st.markdown(bullet)

st.header("Another hypothesis: heads that spread their weight evenly carry the length")
st.markdown(view.even)
