"""Training: the model at points of its own training run, a model trained live, and an uploaded one."""

import functools
import weakref

import streamlit as st

from analysis.page_models.training import (MAX_UPLOAD_MB, QUICK_CAPTION, QUICK_SECONDS, SIZINGS, live_view,
                                           live_download_name, snapshot_steps, training_view)
from analysis.tasks import words
from explorer import live_runs
from explorer.charts import plotly_chart
from explorer.components import canvas_heatmap
from explorer.errors import CheckpointError
from server.gate import deferred, fragment
from explorer.lab_runs import offset_table
from explorer.own_task import own_task
from explorer.task_links import offer_task
from explorer.live_training import LIMITS, LiveSettings, LiveSettingsError
from explorer.cache import (checkpoint_or_stop, chosen_task, model_key, snapshot_run, snapshot_writes_answer,
                            snapshots)
from explorer.state import VIEW, learner_text
from explorer.text import answer_metric, escape_markdown, in_full
from explorer.uploads import DONE_KEY, ERROR_KEY, MISMATCH_KEY, NOTE_KEY, take_upload, uploader_key
from viz import attention_grid_spec
from viz.training import learning_curves, live_curves

ckpt = checkpoint_or_stop()
key = model_key()   # names the model in use: the key of every cached run below
task = words(ckpt.task)
st.title("📈 Training")
st.markdown(
    f"The model was not born able to {task.verb}. Its training run saved the weights at a handful of moments; "
    "slide through them to watch the loss fall, exact match climb and the cross-attention of your text change "
    "(what each head is worth shows on *Switch heads off*). Then train one of your own."
)

text = learner_text(ckpt)
try:
    saved = snapshots(key)
except CheckpointError as err:
    saved = None
    st.error(escape_markdown(f"The snapshots of this checkpoint cannot be read. {err}"), icon="⚠️")
if saved == []:
    st.info("This model carries no snapshots of its training run.", icon="ℹ️")

if saved:
    story_part = st.container()                  # the story of the whole run, drawn once the slider is read
    steps = snapshot_steps(saved)
    step = st.select_slider("Training step", steps, value=steps[-1], key="snapshot", **VIEW)
    view = training_view(ckpt, text, saved, step, {s: snapshot_writes_answer(key, text, s) for s in steps},
                         functools.partial(snapshot_run, key, text), offset_table(key, (), "cross", None, ask=False))
    story_part.markdown(view.story)
    st.caption(view.step_caption)
    a, b, c, d = st.columns(4)
    answer_metric(a, "The model writes", view.run, "exactly {output}", view.wrong)
    in_full(a, view.run.output)
    b.metric("Held-out loss", f"{view.loss:.3g}", help=view.loss_help)
    c.metric("Held-out exact match", f"{view.exact_match:.1%}")
    d.metric(view.pattern_label, f"{view.alignment:.1%}", help=view.pattern_help)
    loss_chart, shares_chart = learning_curves(view.curve, step, title="The whole run, this snapshot marked",
                                               pattern=view.pattern, rule=view.rule, vocab_size=view.vocab_size,
                                               marked=(view.loss, view.exact_match))
    plotly_chart(loss_chart, key="curves")
    plotly_chart(shares_chart, key="shares")
    st.caption(view.loss_caption)
    canvas_heatmap(attention_grid_spec(view.cross, view.rows, view.source, view.grid_title, query_title="decoder step",
                                       key_title="source position"), key="grid")
    st.caption(view.grid_caption)
    if view.every_head is not None:
        st.markdown(view.every_head)
        st.dataframe(view.head_table, width="content", column_config={
            c: st.column_config.NumberColumn(format="percent") for c in view.head_table.columns})

st.header("Train your own")
st.markdown(
    "Define a task, by its rule or from a few examples, in any alphabet, and train a small model on it here, on "
    "this server, while you watch. When it stops, look at it on every page, or download it. Your model is yours "
    "alone: nobody else's pages change."
)
spec = own_task(chosen_task())
if spec is not None:
    offer_task(spec)
sizing = st.radio("Size and length of the run", SIZINGS, key="live_sizing", horizontal=True)
with st.form("live_settings"):
    if sizing == SIZINGS[0]:
        st.caption(QUICK_CAPTION)
    else:
        c1, c2, c3 = st.columns(3)
        layers = c1.selectbox("Layers (encoder and decoder each)", [1, 2], key="live_layers")
        heads = c2.selectbox("Heads", [1, 2, 4], index=1, key="live_heads")
        d_model = c3.selectbox("d_model", [16, 32, 64], index=1, key="live_d_model")
        c4, c5 = st.columns(2)
        n_steps = c4.number_input("Steps", *LIMITS["steps"], value=800, step=50, key="live_steps")
        lr = c5.select_slider("Learning rate", [1e-4, 3e-4, 1e-3, 3e-3, 1e-2], value=3e-3, key="live_lr")
    started = st.form_submit_button("Start training", type="primary", disabled=spec is None)
if started and spec is not None:
    try:
        settings = (LiveSettings.for_task(spec, seconds=QUICK_SECONDS) if sizing == SIZINGS[0] else
                    LiveSettings(layers, heads, d_model, int(n_steps), lr, spec.max_len, task=spec.spec,
                                 alphabet=spec.alphabet, min_len=spec.min_len))
        live_runs.start(settings)
    except (LiveSettingsError, live_runs.AlreadyTraining) as err:
        st.error(escape_markdown(str(err)), icon="✋")

live = live_runs.current()
if live is not None:
    @fragment(run_every=0.5 if not live.progress.done else None)   # each of its reruns in this session's place
    def watch() -> None:
        p = live_view(live.progress)
        st.progress(p.fraction, text=p.progress_text)
        m1, m2, m3 = st.columns(3)
        m1.metric("Training loss", p.loss_text)
        m2.metric("Held-out exact match", f"{p.exact_match:.0%}")
        m3.metric("Steps per second", p.per_second)
        charts = live_curves(p.loss, p.matches, p.steps, vocab_size=p.vocab_size)
        if not charts:
            st.caption("No training step has finished yet.")
        for place, chart, key in zip(st.columns(2), charts, ("live_curves", "live_matches")):
            plotly_chart(chart, key=key, container=place)   # side by side, one under the other on a phone
        if len(charts) == 1:
            st.caption("Held-out exact match: not measured yet.")
        if not p.done:
            st.button("Stop training", on_click=live_runs.stop, key="live_stop")
        elif p.failed:
            st.error(escape_markdown(p.failure), icon="⚠️")
        else:
            st.success(p.success, icon="✅")
            b1, b2 = st.columns(2)
            if b1.button("Look at it on every page", key="live_use", on_click=live_runs.keep_result,
                         args=(p.label,)):
                st.rerun()   # the whole app: a fragment's run leaves the sidebar's Model showing the old choice
            b2.download_button("Download it (zip)", deferred(live_runs.result_zip, weakref.ref(live)),
                               file_name=live_download_name(live.settings.task), mime="application/zip",
                               on_click="ignore",
                               key="live_download")
        if p.done and st.session_state.get("_live_seen_running"):
            st.session_state["_live_seen_running"] = False
            st.rerun()  # one full rerun so the page stops polling and shows the finished run
        st.session_state["_live_seen_running"] = not p.done

    watch()

st.header("Explore a model of your own")
st.file_uploader(
    f"A checkpoint zip (model.safetensors, config.json, metrics.json; at most {MAX_UPLOAD_MB} MB), "
    "such as one downloaded above", type="zip", key=uploader_key(), on_change=take_upload)
if st.session_state.get(ERROR_KEY):
    st.error(escape_markdown(st.session_state[ERROR_KEY]), icon="✋")
elif st.session_state.get(DONE_KEY):
    st.success(escape_markdown(f"{st.session_state[DONE_KEY]} is now the model on every page (your session "
                               "only; switch back with Model in the sidebar). " + st.session_state.get(NOTE_KEY, "")),
               icon="✅")
    if st.session_state.get(MISMATCH_KEY):
        st.warning(escape_markdown(st.session_state[MISMATCH_KEY]), icon="🔀")
