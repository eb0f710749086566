"""Lab 1: switch heads off and see the decoding, the attention and the probabilities change."""

import streamlit as st

from analysis.page_models.lab_ablation import presets, single_head_table, switched_off
from analysis.tasks import words
from explorer.callbacks import set_state
from explorer.charts import plotly_chart
from explorer.components import canvas_heatmap
from explorer.lab_runs import NOISE_POINTS, RULE_OF_THREE_POINTS, SAMPLE_SIZE, ablation_table
from explorer.cache import checkpoint_or_stop, model_key, text_run
from explorer.pickers import pick_head, pick_switched_off
from explorer.state import learner_text
from explorer.text import answer_metric, in_full
from viz.attention import side_by_side_spec
from viz.lab import correct_probability_bars

ckpt = checkpoint_or_stop()
key = model_key()   # names the model in use: the key of every cached run below
st.title("🧪 Lab: switch heads off")
st.markdown(
    "Pick any heads and switch them off: their output is set to zero before W^O mixes the heads, while "
    f"everything else stays as trained. Can the model still {words(ckpt.task).verb}? Which heads does it need?"
)

text = learner_text(ckpt)
config = ckpt.model.config
PRESETS = presets(config)
st.caption("Try:")
with st.container(horizontal=True):   # a row that wraps: whole words on a phone and at 1024 px
    for name, preset in PRESETS.items():
        st.button(name, key=f"preset_{name}", on_click=set_state, args=("ablated", preset))
ablated = pick_switched_off(config)

before, after = text_run(key, text), text_run(key, text, ablated=ablated)                     # the model's own decoding
taught, taught_after = text_run(key, text, teacher=True), text_run(key, text, teacher=True, ablated=ablated)
upper = st.container()                           # drawn once the head below is picked

st.header("The attention that changed")
kind, layer, head = pick_head(config, "lab_")
view = switched_off(ckpt.vocab, config, before, taught, taught_after, len(ablated), kind, layer, head)

with upper:
    left, right = st.columns(2)
    left.metric("Every head working", view.before_output)
    answer_metric(right, view.off_label, after)
    in_full(left, before.output)      # a metric cuts a long text off with "…"
    in_full(right, after.output)
    plotly_chart(correct_probability_bars(view.p_before, view.p_after, view.steps,
                                       title="Probability of the correct next character at each step"),
              key="probabilities")
    st.caption(view.probability_caption)

canvas_heatmap(side_by_side_spec([view.was, view.now], ["every head working", "with your heads off"], view.rows,
                                 view.cols, view.changed_title), key="changed")
st.caption(view.change_caption)

st.header("Every head switched off alone")
singles = single_head_table(*ablation_table(key), SAMPLE_SIZE, NOISE_POINTS, RULE_OF_THREE_POINTS)
st.dataframe(singles.table, hide_index=True, width="content", column_config={
    singles.exact_column: st.column_config.ProgressColumn(format="percent", min_value=0, max_value=1),
    "exact match lost": st.column_config.NumberColumn(format="percent")})
st.caption(singles.caption)
