"""Lab: patch one activation. Copy one activation from a run of your text into a run of a text that differs,
predict which output characters will change, then see; and every single patch's effect at once."""

import zlib

import streamlit as st

from analysis.activation_patching import SITE_NAMES, proposed_pairs, reach
from analysis.page_models.lab_activation_patching import cone_line, patch_view
from explorer import why_runs
from explorer.cache import checkpoint_or_stop, model_key, text_run
from explorer.components import canvas_heatmap
from explorer.errors import InputError
from explorer.heavy import NOT_RUN, in_heavy_lane
from explorer.link_guard import stop_page
from explorer.state import VIEW, learner_text
from explorer.text import escape_markdown
from viz.attribution import causal_cone_specs

REVEALED_KEY = "_patch_revealed"   # (the patch asked about, the steps picked when Reveal was pressed)

ckpt = checkpoint_or_stop()
key = model_key()   # names the model in use: the key of every cached run below
config = ckpt.model.config
st.title("🩹 Lab: patch one activation")
st.markdown(
    "Run your text (the *clean* run) and a text that differs from it by one letter. Then copy **one** activation "
    "from the clean run into the other run, in place of its own, and watch which output characters change. A "
    "patch that brings the clean run's character back shows where, inside the model, that character's "
    "difference is carried.")
text = learner_text(ckpt)
pairs = proposed_pairs(text, config.max_len, ckpt.task, ckpt.vocab.letters)
left, right = st.columns(2)
choice = left.selectbox("The other text", [*pairs, "type one"], key="patch_pair", **VIEW)
typed = right.text_input("Your other text", value=next(iter(pairs.values())), key="patch_other",
                         max_chars=config.max_len, disabled=choice != "type one", **VIEW)
other_text = typed if choice == "type one" else pairs[choice]
apart = sum(x != y for x, y in zip(text, other_text)) + abs(len(text) - len(other_text))
if choice == "type one" and apart > 1:
    st.info(f"Your other text differs from yours at {apart} positions (counted place by place): one patch then "
            "carries one of several differences.", icon="ℹ️")
try:
    ckpt.vocab.encode(other_text, config.max_len)
    clean, other = text_run(key, text), text_run(key, other_text)
except InputError as error:
    st.error(escape_markdown(str(error)), icon="✋")
    stop_page()

a, b, c, d = st.columns([2, 1, 1, 1])
site = a.radio("What to copy", list(SITE_NAMES), format_func=SITE_NAMES.get, key="patch_site", **VIEW)
positions = reach(clean, other, site)
differs = next((i for i, (x, y) in enumerate(zip(text, other_text)) if x != y), 0)   # where the texts part
position = b.selectbox("Position" + (" (source)" if site == "memory" else " (decoder)"), list(range(positions)),
                       index=min(differs, positions - 1) if site == "memory" and positions else 0,
                       key="patch_position", **VIEW)
layer = c.selectbox("Layer", list(range(config.n_decoder_layers)), key="patch_layer", disabled=site == "memory",
                    **VIEW)
head = d.selectbox("Head", list(range(config.n_heads)), key="patch_head", disabled=site != "cross_head", **VIEW)
if position is None:
    st.warning("The two texts have no position in common to patch.", icon="👆")
    stop_page()

done = why_runs.patched(key, text, other_text, site, position, layer, head)
view = patch_view(clean, done, why_runs.site_of(site, position, layer, head))
asked = (text, other_text, site, position, layer, head)
st.markdown(escape_markdown(f"'{other_text}' writes '{other.output}'.") + " **Predict first:** with this one "
            "activation copied from the clean run, which of its output characters will change? (The model decodes "
            "freely: a character that changes is read by the steps after it, so they may change too.)")
picked = st.pills("Output steps that will change", view.options, selection_mode="multi",
                  key=f"patch_guess_{zlib.crc32(repr(asked).encode()):08x}")   # a fresh guess for each patch
revealed = st.session_state.get(REVEALED_KEY)
if st.button("Reveal", type="primary", disabled=bool(revealed and revealed[0] == asked)):
    revealed = st.session_state[REVEALED_KEY] = (asked, tuple(picked or ()))   # graded as picked when revealed
if revealed and revealed[0] == asked:
    right = set(revealed[1]) == set(view.changed)
    (st.success if right else st.info)(
        escape_markdown(("Right. " if right else "Not quite. ") + view.verdict), icon="🔎")
    st.markdown(escape_markdown(view.outputs))
    st.dataframe(view.table, hide_index=True, width="stretch", column_config={
        "p before the patch": st.column_config.NumberColumn(format="%.3f"),
        "p with the patch": st.column_config.NumberColumn(format="%.3f")})
    st.caption("The reveal decodes freely, as the model writes: once one character changes, the later ones may "
               "shift too. p: the probability of the first text's token at each step, with the other text's own "
               "output read so far, before and with the patch (as the grid below reads it).")

st.header("Every single patch of the encoder's output and of the decoder stream: the causal cone")
if not why_runs.causal_cone.is_cached(key, text, other_text):
    patches = reach(clean, other, "memory") + config.n_decoder_layers * reach(clean, other, "decoder_stream")
    st.caption(f"One pass of the model per patch: {patches} patches for these two texts.")
    if not st.button("Compute every single patch") or in_heavy_lane(
            "Every single patch", lambda report: why_runs.causal_cone(key, text, other_text, report)) is NOT_RUN:
        stop_page()
    st.rerun()
found = why_runs.causal_cone(key, text, other_text)
sources = [f"{i}: {s}" for i, s in enumerate(clean.source[:len(found.memory)])]
for spec, name in zip(causal_cone_specs(found.memory, found.stream, sources,
                                        [str(t) for t in range(found.stream.shape[1])],
                                        "Output steps whose most likely character moves, one patch at a time"), ("cone_memory", "cone_stream")):
    canvas_heatmap(spec, key=name)
st.caption("Each cell: one patch on its own, with the other text's own output read at every step (as in "
           "training), so a cell counts the steps whose most likely next character moves against that fixed prefix. "
           "Free decoding, as in the reveal above, can change fewer steps or more: there, a changed character is "
           "read by the steps after it. The cells that change anything draw the \"causal cone\": the part of the "
           "computation that carries the difference between the two texts.")
st.caption(escape_markdown(cone_line(found, clean, other)))
