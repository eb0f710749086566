"""Lab 3: take the positions away (zeroed or shuffled) and see what is left of the task."""

import streamlit as st

from analysis.page_models.lab_positions import MODES, SIDES, no_positions, taken_away, target_codes_caption
from analysis.tasks import words
from explorer.components import canvas_heatmap
from explorer.lab_runs import SAMPLE_SIZE, sample_exact_match
from explorer.link_guard import stop_page
from explorer.cache import checkpoint_or_stop, model_key, text_run
from explorer.pickers import pick_head
from explorer.state import VIEW, learner_text
from explorer.text import answer_metric, in_full
from viz.attention import side_by_side_spec

ckpt = checkpoint_or_stop()
key = model_key()   # names the model in use: the key of every cached run below
task = words(ckpt.task)
st.title("🧪 Lab: no positions")
st.markdown(
    "Attention by itself does not know order: shuffle the keys and each weight just moves with its key. In the "
    "**encoder**, only the positional encoding tells the model where a character is. The **decoder** could in "
    "principle work out its position without codes, by counting the tokens its causal mask lets it see. Take "
    f"the codes away and see what is left of {task.output}."
)

text = learner_text(ckpt)
config = ckpt.model.config
st.caption(target_codes_caption(sample_exact_match(key, "zero", ("target",), 0), SAMPLE_SIZE))

a, b, c = st.columns([1, 2, 1])
mode = a.radio("Positions", list(MODES), format_func=MODES.get, key="pe_mode", **VIEW)
sides = b.pills("Where", list(SIDES), format_func=SIDES.get, selection_mode="multi", default=list(SIDES),
                key="pe_sides", **VIEW)
seed = c.number_input("Shuffle seed", 0, 999, 0, key="pe_seed", disabled=mode != "shuffle", **VIEW)
if not sides:
    st.warning("Choose the source, the target or both.", icon="👆")
    stop_page()
sides = tuple(s for s in SIDES if s in sides)

edit = {"positions": mode, "sides": sides, "shuffle_seed": seed}
before, after = text_run(key, text), text_run(key, text, **edit)
taught, taught_after = text_run(key, text, teacher=True), text_run(key, text, teacher=True, **edit)
outputs = taken_away(before, mode, sides)
left, right = st.columns(2)
left.metric("With positions", outputs.before_output)
answer_metric(right, outputs.after_label, after)
in_full(left, before.output)          # a metric cuts a long text off with "…"
in_full(right, after.output)
left, right = st.columns(2)           # the exact matches, once the layer below is picked
kept, lost = sample_exact_match(key, "normal", ("source", "target"), 0), sample_exact_match(key, mode, sides, seed)

_, layer, _ = pick_head(config, "pe_", kinds=("cross",), layer_label="Cross-attention layer", heads=False)
view = no_positions(config, taught, taught_after, mode, sides, kept, lost, layer)
left.metric(f"Exact match on {SAMPLE_SIZE} held-out words", view.kept)
right.metric(f"Exact match on {SAMPLE_SIZE} held-out words ", view.lost, delta=view.change, delta_color="normal")

canvas_heatmap(side_by_side_spec(view.maps, view.map_names, view.rows, view.cols, view.title,
                                 "decoder position (reads)", "source position"), key="cross")
st.caption(view.caption)
