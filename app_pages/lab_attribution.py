"""Lab: why this character? Which source character made the model write this one, seen through five lenses side
by side, each scored against occlusion, and attention rollout beside occlusion."""

import streamlit as st

from analysis.attribution import COMPLETENESS_TOLERANCE, QUICK_COUNT, VARIES
from analysis.page_models.lab_attribution import HEADS_AVERAGED, layer_labels, why_view
from explorer import why_runs
from explorer.cache import checkpoint_or_stop, model_key, text_run
from explorer.components import canvas_heatmap
from explorer.heavy import NOT_RUN, in_heavy_lane
from explorer.state import VIEW, learner_text
from explorer.text import escape_markdown
from viz.attention import side_by_side_spec
from viz.attribution import lens_rows_spec

ckpt = checkpoint_or_stop()
key = model_key()   # names the model in use: the key of every cached run below
st.title("🔎 Lab: why this character?")
st.markdown(
    "Which source character made the model write this one? Attention says where a head *reads*; the other lenses "
    "ask what reading it *changes*. Pick an output step: each source character gets a number under each lens, "
    "side by side, and below, how closely each lens ranks the characters as a direct test does: occlusion "
    "(swap the character for other letters and watch the probability of what the step writes fall).")
text = learner_text(ckpt)
config = ckpt.model.config
run = text_run(key, text)
steps = len(run.chosen_ids)

left, middle, right = st.columns([2, 1, 1])
if steps > 1:
    step = left.slider("Output step", 0, steps - 1, 0, key="why_step", **VIEW,
                       help="Each step writes one character; step 0 writes the first.")
else:                    # a model that writes the end symbol at once has one step to look at
    step = 0
    left.caption("The model writes its end symbol at once: one step to look at.")
layers = layer_labels(config.n_decoder_layers)   # its .get names the choices: no page function in the widget
layer = middle.selectbox("Cross-attention layer", list(layers), index=len(layers) - 1, format_func=layers.get,
                         key="why_layer", **VIEW)
heads = [HEADS_AVERAGED, *(f"head {h}" for h in range(config.n_heads))]
picked = right.selectbox("Head", heads, key="why_head", **VIEW)
head = None if picked == HEADS_AVERAGED else int(picked.split()[-1])

found = why_runs.best_lenses(key, text)
every = (why_runs.integrated_every_step(key, text) if why_runs.integrated_every_step.is_cached(key, text)
         else None)
here = (why_runs.integrated_at(key, text, step) if why_runs.integrated_at.is_cached(key, text, step) else None)
view = why_view(run, found, layer, head, step, here, every)

st.markdown(escape_markdown(view.step_line))
canvas_heatmap(lens_rows_spec([c.name for c in view.columns], [c.values for c in view.columns], view.sources,
                              f"Step {step}: each lens over the source (each row on its own colour scale; a row "
                              f"within {VARIES:g} left white)", flat=VARIES),
               key="lenses")
st.dataframe({"source": view.sources, **{c.name: c.values for c in view.columns}}, hide_index=True,
             width="stretch", column_config={c.name: st.column_config.NumberColumn(format="%.3g")
                                             for c in view.columns})
st.caption(escape_markdown(view.completeness))
if found.every_letter:
    st.caption("Occlusion here swaps each character for every other letter in turn (already computed for this "
               "text).")
else:
    st.caption(f"Occlusion here swaps each character for {QUICK_COUNT} letters spread over the alphabet "
               f"({len(text) * QUICK_COUNT} passes of the model). Every other letter takes about "
               f"{len(text) * 25:,} passes: up to a second or two on 48 characters.")
    if st.button("Occlusion with every other letter") and in_heavy_lane(
            "Occlusion with every other letter", lambda report: why_runs.lenses(key, text, True, report)) is not NOT_RUN:
        st.rerun()
if here is None and st.button("Integrated gradients at this step",
                              help="A few hundred passes of the model: up to a second or two on 48 characters.") and (
        in_heavy_lane("Integrated gradients at this step",
                      lambda report: why_runs.integrated_at(key, text, step)) is not NOT_RUN):
    st.rerun()
with st.expander("What each lens measures, and what it does not"):
    for column in view.columns:
        st.markdown(f"**{escape_markdown(column.name.split(' (')[0])}**: {escape_markdown(column.says)}.")

st.header("Which lens ranks the characters as occlusion does, over every step")
st.dataframe([{"lens": r.lens, "steps where both vary": r.steps,   # no ρ where no step lets both vary
               "mean Spearman ρ with occlusion": "none (no such step)" if r.rho is None else f"{r.rho:.2f}",
               "same top position": r.same_top} for r in view.agreement],
             hide_index=True, width="stretch",
             column_config={"same top position": st.column_config.NumberColumn(format="percent")})
st.caption(f"Only steps where both the lens and occlusion span more than {VARIES:g} count: a saturated step "
           f"(p ≈ 1) has almost no slope. Within a step, values within {VARIES:g} of 0 are tied at 0 before "
           f"ranking (float noise would be no finding), and the top counts as the same when the lens's largest "
           f"value is on one of the positions within {VARIES:g} of occlusion's largest (two swaps that both drop "
           "p by 1.000 tie).")
if every is None:
    st.caption(f"Integrated gradients are computed one step at a time (until they add up within "
               f"{COMPLETENESS_TOLERANCE} nats); for their row, compute them at all {steps} steps: up to about a "
               "second a step on 48 characters.")
    if st.button("Compute integrated gradients at every step") and in_heavy_lane(
            "Integrated gradients at every step",
            lambda report: why_runs.integrated_every_step(key, text, report)) is not NOT_RUN:
        st.rerun()
st.markdown(escape_markdown(view.disagreements))

st.header("Merging heads and layers: attention rollout beside occlusion")
canvas_heatmap(side_by_side_spec([view.rollout, view.occlusion.clip(0, 1)], ["attention rollout", "occlusion"],
                                 view.rollout_rows, view.sources, "Attention rollout and occlusion, output step by "
                                 "source character", "output step → writes", "source character", "value"), key="rollout")
st.caption(escape_markdown(view.rollout_line + " Occlusion drawn from 0: a swap that raised the probability shows "
                           "as 0."))
