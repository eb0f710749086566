"""Lab 1: switch heads off and see the decoding, the attention and the probabilities change."""

import numpy as np
import pandas as pd
import streamlit as st

from analysis.labels import EOS_LABEL, KIND_SHORT, attention_axes
from analysis.tasks import words
from analysis.run import correct_tokens
from explorer.callbacks import set_state
from explorer.charts import show_chart
from explorer.lab_runs import NOISE_POINTS, RULE_OF_THREE_POINTS, SAMPLE_SIZE, ablation_table
from explorer.model import checkpoint_or_stop, text_run
from explorer.pickers import head_names, pick_head, pick_switched_off
from explorer.state import learner_text
from explorer.text import answer_metric, visible
from viz import attention_side_by_side
from viz.lab import correct_probability_bars

ckpt = checkpoint_or_stop()
st.title("🧪 Lab: switch heads off")
st.markdown(
    "Pick any heads and switch them off: their output is set to zero before W^O mixes the heads, while "
    f"everything else stays as trained. Can the model still {words(ckpt.task).verb}? Which heads does it need?"
)

text = learner_text(ckpt)
config = ckpt.model.config
heads = head_names(config)
PRESETS = {
    (f"the {config.n_heads} cross heads of the last layer" if config.n_heads > 1 else "the cross head of the last layer"):
        [n for n in heads if n.startswith(f"cross L{config.n_decoder_layers - 1}")],
    "one of them": [f"cross L{config.n_decoder_layers - 1} H0"],
    "every encoder head": [n for n in heads if n.startswith("encoder_self")],
    "none": [],
}
st.caption("Try:")
for column, (name, preset) in zip(st.columns(len(PRESETS)), PRESETS.items()):
    column.button(name, key=f"preset_{name}", width="stretch",
                  on_click=set_state, args=("ablated", preset))
ablated = pick_switched_off(config)

before, after = text_run(text), text_run(text, ablated=ablated)                     # the model's own decoding
taught, taught_after = text_run(text, teacher=True), text_run(text, teacher=True, ablated=ablated)
correct = correct_tokens(ckpt.vocab, text, config.max_len, ckpt.task)
p_before, p_after = taught.probability_of(correct), taught_after.probability_of(correct)   # (n + 1,) each
left, right = st.columns(2)
left.metric("Every head working", visible(before.output))
answer_metric(right, f"{len(ablated)} head(s) off", after)

steps = [*before.target, EOS_LABEL]
show_chart(correct_probability_bars(p_before, p_after, [visible(s) for s in steps],
                                    title="Probability of the correct next character at each step"),
           key="probabilities")
st.caption(f"Each step reads the correct prefix (teacher forcing), so both bars answer the same question. Mean: "
           f"{p_before.mean():.3f} unchanged, {p_after.mean():.3f} changed.")

st.subheader("The attention that changed")
kind, layer, head = pick_head(config, "lab_")
rows, cols, _, _ = attention_axes(kind, taught.source, taught.decoder_in)
was, now = taught.trace[kind, layer][head], taught_after.trace[kind, layer][head]   # (Tq, Tk), correct prefix fed
show_chart(attention_side_by_side([was, now], ["every head working", "with your heads off"], rows, cols,
                                  title=f"{KIND_SHORT[kind]}-attention, layer {layer}, head {head}"),
           key="changed")
change = np.abs(now - was)
st.caption(f"Largest change of any weight: **{change.max():.3f}**; mean change {change.mean():.4f}. A head that is "
           "switched off still computes its pattern; what changes is everything that reads its output later.")

st.subheader("Every head switched off alone")
base, effects = ablation_table()
table = pd.DataFrame({
    "head": [str(e.head) for e in effects],
    f"exact match without it (of {SAMPLE_SIZE})": [e.exact_match for e in effects],
    "exact match lost": [e.drop for e in effects],
})
st.dataframe(table, hide_index=True, width="content", column_config={
    f"exact match without it (of {SAMPLE_SIZE})": st.column_config.ProgressColumn(format="percent", min_value=0,
                                                                                  max_value=1),
    "exact match lost": st.column_config.NumberColumn(format="percent")})
free = sum(e.drop == 0 for e in effects)
st.caption(f"With every head working: {base:.1%} exact match on the same {SAMPLE_SIZE} held-out words. The worst "
           f"single loss is **{effects[0].head}** ({effects[0].drop:.1%} lost). "
           + (f"{free} head(s) break no word of these, which bounds their cost below about {RULE_OF_THREE_POINTS:.1f} "
              "points (95 %, the rule of three), not at zero. " if base == 1.0 else
              f"{free} head(s) lose nothing on balance here (words broken and words fixed may cancel). ")
           + f"Any other figure here carries up to ±{NOISE_POINTS:.1f} points of sampling noise "
           "(one standard error at 50 %).")
