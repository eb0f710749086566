"""Training: the model at points of its own training run, a model trained live, and an uploaded one."""

import math
import weakref

import numpy as np
import pandas as pd
import streamlit as st

from analysis.lesson import pattern_shares
from analysis.training import HeadShare, TrainingStory, head_shares, snapshot_chance, training_story
from explorer import live_runs
from analysis.labels import reads_writes
from analysis.tasks import words
from explorer.callbacks import task_label
from explorer.charts import show_chart
from explorer.gate import deferred, fragment
from explorer.model import checkpoint_or_stop, chosen_task, snapshot_output, snapshot_run, snapshots
from explorer.state import VIEW, learner_text
from explorer.text import answer_metric, escape_markdown, in_full
from explorer.uploads import DONE_KEY, ERROR_KEY, MISMATCH_KEY, NOTE_KEY, take_upload, uploader_key
from transformer.checkpoint import MAX_UPLOAD_BYTES, CheckpointError
from transformer.data import TASKS, target
from transformer.vocab import Vocab
from explorer.live_training import LIMITS, LiveSettings, LiveSettingsError
from viz import attention_grid
from viz.training import learning_curves, live_curves


def story_text(story: TrainingStory, pattern: str, on_text: np.ndarray | None) -> str:
    """When the learner's text first comes out right against when most held-out steps are on the pattern, in
    words that follow the numbers. on_text: (H,) the last layer's shares on the text at that first right step."""
    right, most, last = story.first_right, story.first_most, story.last
    if right is None:
        said = "No snapshot writes your text exactly right."
    else:
        said = (f"Your text first comes out right at step **{right['step']:,}** ({right['fraction']:.0%} of the run). "
                f"There, **{right['alignment']:.1%}** of held-out output steps have the last layer's best head on "
                f"{pattern} (held-out exact match {right['exact_match']:.1%}), and on your text the last layer's "
                "heads put their largest weight on it in " + ", ".join(f"{x:.0%}" for x in on_text)
                + " of its steps.")
    said += (f" No snapshot has most output steps (more than half) on {pattern}." if most is None else
             f" Most held-out steps are on {pattern} first at step **{most['step']:,}** ({most['alignment']:.1%}).")
    if story.output_first:
        said += f" So the output is right before most steps are on {pattern}."
        if on_text.max() < 1:
            said += (f" No last-layer head is on {pattern} at every step of your text, yet the model writes it "
                     "right: the right output does not wait for a sharp pattern in the last layer.")
    elif right is not None and most is not None and most["step"] == right["step"]:
        said += " Both happen at the same saved step, so these snapshots cannot say which comes first."
    elif right is not None:
        said += f" Here {pattern} comes first, and your text comes out right after it."
    return said + (f" At the end (step {last['step']:,}): exact match {last['exact_match']:.1%}, "
                   f"{last['alignment']:.1%} of output steps on {pattern}.")


def loss_caption(start: dict, vocab_size: int) -> str:
    """Step 0's loss against the uniform guess, in the words its side of the line calls for."""
    uniform = math.log(vocab_size)
    said = (f"Dashed line: a uniform guess over the {vocab_size} tokens, ln {vocab_size} = {uniform:.2f}. At step "
            f"{start['step']:,} the held-out loss is {start['loss']:.2f}, ")
    if start["loss"] > uniform:
        return said + ("above it: at first the model does worse than guessing evenly. Its random starting weights "
                       f"do not spread the probability evenly, and the correct tokens get less than 1/{vocab_size} "
                       "on average (a geometric mean: e^−loss).")
    if start["loss"] < uniform:
        return said + (f"below it: even at first the correct tokens get more than 1/{vocab_size} on average (a "
                       "geometric mean: e^−loss).")
    return said + "exactly the uniform guess."


def every_head_text(shares: list[HeadShare], pattern: str, last_layer: int, n_words: int | None) -> str:
    """Which layer holds the head most on the pattern in the final model, against the last layer's best."""
    best = max(shares, key=lambda s: s.share)
    last_best = max((s for s in shares if s.layer == last_layer), key=lambda s: s.share)
    sample = f"the {n_words:,} held-out words of its final report" if n_words else "its final report's words"
    said = (f"**Every cross head of the final model**, on {sample}: the share of output steps whose largest weight "
            f"falls on {pattern}. The snapshot figures above count only the last layer ({last_layer}). ")
    if best.layer != last_layer:
        return said + (f"Here a head of layer {best.layer} is on it more: head {best.head}, **{best.share:.1%}**, "
                       f"against {last_best.share:.1%} for the last layer's best (head {last_best.head}).")
    return said + f"The last layer holds the best head: head {best.head}, **{best.share:.1%}**."


def head_table(shares: list[HeadShare]) -> pd.DataFrame:
    """Layers as rows, heads as columns."""
    layers = sorted({s.layer for s in shares})
    heads = sorted({s.head for s in shares})
    by = {(s.layer, s.head): s.share for s in shares}
    return pd.DataFrame({f"head {h}": [by.get((layer, h)) for layer in layers] for h in heads},
                        index=[f"cross layer {layer}" for layer in layers])


ckpt = checkpoint_or_stop()
task = words(ckpt.task)
st.title("📈 Training")
st.markdown(
    f"The model was not born able to {task.verb}. Its training run saved the weights at a handful of moments; "
    "slide through them to watch the loss fall, exact match climb and the cross-attention of your text change "
    "(what each head is worth shows on *Switch heads off*). Then train one of your own."
)

text = learner_text(ckpt)
try:
    saved = snapshots()
except CheckpointError as err:
    saved = None
    st.error(escape_markdown(f"The snapshots of this checkpoint cannot be read. {err}"), icon="⚠️")
if saved == []:
    st.info("This model carries no snapshots of its training run.", icon="ℹ️")

if saved:
    steps = [s["step"] for s in saved]
    by_step = {s["step"]: s for s in saved}
    last_layer = ckpt.model.config.n_decoder_layers - 1
    story = training_story(saved, {s: snapshot_output(text, s) == target(text, ckpt.task) for s in steps})
    right_at = story.first_right
    st.markdown(story_text(story, task.pattern, None if right_at is None else
                           pattern_shares(snapshot_run(text, right_at["step"]), last_layer)))
    step = st.select_slider("Training step", steps, value=steps[-1], key="snapshot", **VIEW)
    shot = by_step[step]
    st.caption(f"Step {step:,}: {shot.get('fraction', 0):.0%} of the run.")
    run = snapshot_run(text, step)
    a, b, c, d = st.columns(4)
    answer_metric(a, "The model writes", run, "exactly {output}",
                  "not yet" if step < steps[-1] else "not exactly {output}")
    in_full(a, run.output)
    vocab_size = ckpt.model.config.vocab_size
    b.metric("Held-out loss", f"{shot['loss']:.3g}",
             help=f"Cross-entropy: the mean of −log p(the correct next token) over the output steps of held-out "
                  f"words. A model guessing uniformly over the {vocab_size} tokens scores ln {vocab_size} = "
                  f"{math.log(vocab_size):.2f}; a perfect one 0.")
    c.metric("Held-out exact match", f"{shot['exact_match']:.1%}")
    chance = snapshot_chance(ckpt.model.config.max_len, ckpt.task)
    d.metric(f"Output steps on {task.pattern}", f"{shot['alignment']:.1%}",
             help="Of the last decoder layer's best head (the other layers are not counted), on held-out words: "
                  f"the share of output steps i whose largest cross-attention weight falls on {task.reads}. "
                  "A head whose largest weight fell on a random source position would score about "
                  f"{chance.share:.1%} here: the figure pools {chance.steps:,} output steps of {chance.words:,} "
                  "held-out words, so it is not 1/n of one word. "
                  f"The untrained snapshot scores {saved[0]['alignment']:.1%}.")
    curve = ckpt.metrics.get("curve") or saved
    show_chart(learning_curves(curve, step, title="The whole run, this snapshot marked", pattern=task.pattern,
                               rule=task.short_rule, vocab_size=vocab_size), key="curves")
    st.caption(loss_caption(curve[0], vocab_size))
    show_chart(attention_grid(run.trace.stack_attention("cross"), reads_writes(run.decoder_in, run.decoder_out),
                              run.source,
                              title=f"Cross-attention of every layer and head after {step:,} steps"), key="grid")
    first = next((s for s in saved if s.get("alignment", 0) >= 0.9), None)
    st.caption("Rows: what each decoder position reads → what it writes; columns: your source characters. "
               + (f"{task.pattern.capitalize()} is there by step {first['step']:,} ({first['fraction']:.0%} of the "
                  f"run): the first snapshot where the last layer's best head puts its largest weight on it for "
                  f"{first['alignment']:.0%} of the output steps." if first else
                  f"No snapshot reached 90 % of output steps on {task.pattern}."))
    every_head = head_shares(ckpt.metrics)
    if every_head:
        st.markdown(every_head_text(every_head, task.pattern, last_layer,
                                    ckpt.metrics.get("held_out", {}).get("n")))
        table = head_table(every_head)
        st.dataframe(table, width="content",
                     column_config={c: st.column_config.NumberColumn(format="percent") for c in table.columns})

st.header("Train your own")
st.markdown(
    "Pick a small model and train it here, on this server, while you watch. When it stops, look at it on every "
    "page, or download it. Your model is yours alone: nobody else's pages change."
)
with st.form("live_settings"):
    c1, c2, c3 = st.columns(3)
    layers = c1.selectbox("Layers (encoder and decoder each)", [1, 2], key="live_layers")
    heads = c2.selectbox("Heads", [1, 2, 4], index=1, key="live_heads")
    d_model = c3.selectbox("d_model", [16, 32, 64], index=1, key="live_d_model")
    c0, c4, c5, c6 = st.columns(4)
    live_task = c0.selectbox("Task", list(TASKS), index=list(TASKS).index(chosen_task()), key="live_task",
                             format_func=task_label)
    n_steps = c4.number_input("Steps", *LIMITS["steps"], value=800, step=50, key="live_steps")
    lr = c5.select_slider("Learning rate", [1e-4, 3e-4, 1e-3, 3e-3, 1e-2], value=3e-3, key="live_lr")
    max_len = c6.slider("Longest training word", *LIMITS["max_len"], value=6, key="live_max_len")
    started = st.form_submit_button("Start training", type="primary")
if started:
    try:
        live_runs.start(LiveSettings(layers, heads, d_model, int(n_steps), lr, max_len, task=live_task))
    except (LiveSettingsError, live_runs.AlreadyTraining, live_runs.TrainingCapReached) as err:
        st.error(escape_markdown(str(err)), icon="✋")

live = live_runs.current()
if live is not None:
    @fragment(run_every=0.5 if not live.progress.done else None)   # each of its reruns in this session's place
    def watch() -> None:
        p = live.progress
        st.progress(p.step / p.steps, text=f"{p.status}: step {p.step:,} of {p.steps:,}, {p.seconds:.0f} s")
        last_match = p.exact_match[-1][1] if p.exact_match else 0.0
        m1, m2, m3 = st.columns(3)
        m1.metric("Training loss", f"{p.loss[-1][1]:.3f}" if p.loss else "–")
        m2.metric("Held-out exact match", f"{last_match:.0%}")
        m3.metric("Steps per second", f"{p.step / p.seconds:.0f}" if p.seconds else "–")
        show_chart(live_curves(p.loss, p.exact_match, p.steps, vocab_size=Vocab().size), key="live_curves")
        if not p.done:
            st.button("Stop training", on_click=live_runs.stop, key="live_stop")
        elif p.status == "failed":
            st.error(escape_markdown(f"The run failed: {p.message}"), icon="⚠️")
        else:
            st.success(f"Training {p.status} after {p.step:,} steps: {last_match:.0%} exact match on held-out "
                       "words.", icon="✅")
            label = f"Your model ({p.step:,} steps, {last_match:.0%})"
            b1, b2 = st.columns(2)
            if b1.button("Look at it on every page", key="live_use", on_click=live_runs.keep_result, args=(label,)):
                st.rerun()   # the whole app: a fragment's run leaves the sidebar's Model showing the old choice
            b2.download_button("Download it (zip)", deferred(live_runs.result_zip, weakref.ref(live)),
                               file_name=f"my-{live.settings.task}-model.zip", mime="application/zip",
                               on_click="ignore",
                               key="live_download")
        if p.done and st.session_state.get("_live_seen_running"):
            st.session_state["_live_seen_running"] = False
            st.rerun()  # one full rerun so the page stops polling and shows the finished run
        st.session_state["_live_seen_running"] = not p.done

    watch()

st.header("Explore a model of your own")
st.file_uploader(
    f"A checkpoint zip (model.safetensors, config.json, metrics.json; at most {MAX_UPLOAD_BYTES // 2**20} MB), "
    "such as one downloaded above", type="zip", key=uploader_key(), on_change=take_upload)
if st.session_state.get(ERROR_KEY):
    st.error(escape_markdown(st.session_state[ERROR_KEY]), icon="✋")
elif st.session_state.get(DONE_KEY):
    st.success(escape_markdown(f"{st.session_state[DONE_KEY]} is now the model on every page (your session "
                               "only; switch back with Model in the sidebar). " + st.session_state.get(NOTE_KEY, "")),
               icon="✅")
    if st.session_state.get(MISMATCH_KEY):
        st.warning(escape_markdown(st.session_state[MISMATCH_KEY]), icon="🔀")
