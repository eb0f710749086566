"""The Lesson page's glue: each step's question built from the cached runs and tables of the model in use, the
live view shown before the learner answers (evidence to reason from, never the answer), and the reveal after."""

from __future__ import annotations

import math
import zlib

import numpy as np
import pandas as pd
import streamlit as st

from analysis.labels import attention_axes, token_label
from analysis.lesson import ForcedOutcomes, forced_outcomes, input_vectors
from analysis.offsets import OffsetFit, head_offsets, offset_label, run_offsets
from teaching import questions as q
from teaching.questions import FORCED_OPTIONS, Question
from teaching.steps import STEPS, Step
from transformer.intervention import every_head
from viz import attention_heatmap, encoding_heatmap, mask_heatmap, norms_bars, probability_bars, softmax_comparison
from viz.strips import vector_rows

from .charts import show_chart
from .lab_runs import SAMPLE_SIZE, ablation_table, held_out_sample
from .links import page_link
from .model import SHARED_TABLES, checkpoint_for, checkpoint_or_stop, model_run, snapshot_output, snapshots, text_run
from .on_request import on_request
from .pages import page
from .text import escape_markdown, visible

STEP_KEY = "lesson_step"
ON_PATTERN = "held-out steps on the anti-diagonal"
FORCED = ("z", "q")   # the token forced in step 8: 'z', or 'q' when the reversal starts with 'z'


def _last_decoder_layer() -> int:
    return checkpoint_or_stop().model.config.n_decoder_layers - 1


def _decode_step(text: str) -> int:
    return min(2, len(text_run(text).decoder_out) - 1)


def _mask_step(text: str) -> int:
    return min(3, len(text) - 1)        # a position with a later one after it (the pass reads n + 1)


def _cross_step(text: str) -> int:
    """A step inside the text and inside the decoding (a model of one's own may stop early)."""
    return min(3, len(text) - 1, len(text_run(text).decoder_out) - 1)


def _reading_head(text: str) -> tuple[int, OffsetFit]:
    """Layer 0's cross head whose largest weight stays on one offset of the mirror most often on this text (the
    sharpest among equals), and its offsets (the evidence step 6's prompt gives)."""
    fit = max(run_offsets(text_run(text), "cross", 0), key=lambda f: (f.best_share, f.mean_top_weight))
    return fit.head, fit


def _forced_token(text: str) -> str:
    return FORCED[1] if text[::-1].startswith(FORCED[0]) else FORCED[0]


@model_run(max_entries=4, show_spinner="Forcing a wrong first character on 200 held-out words…", shared=SHARED_TABLES)
def _forced_table(key: str, token: str, _progress=None) -> ForcedOutcomes:
    ckpt = checkpoint_for(key)
    return forced_outcomes(ckpt.model, ckpt.vocab, held_out_sample(ckpt.model.config.max_len), token, ckpt.task,
                           progress=_progress)


def forced_table(token: str, ask: bool = True) -> ForcedOutcomes | None:
    return on_request(_forced_table, "Forcing a wrong first character on 200 held-out words", token, ask=ask)


@model_run(max_entries=4, show_spinner="Finding where each cross head looks on 200 held-out words…",
           shared=SHARED_TABLES)
def _cross_offsets(key: str, _progress=None) -> list[OffsetFit]:
    ckpt = checkpoint_for(key)
    return head_offsets(ckpt.model, ckpt.vocab, held_out_sample(ckpt.model.config.max_len), ckpt.task,
                        kind="cross", progress=_progress)


def cross_offsets(ask: bool = True) -> list[OffsetFit] | None:
    return on_request(_cross_offsets, "Finding where each cross head looks on 200 held-out words", ask=ask)


def _encoder_heads() -> tuple[tuple[str, int, int], ...]:
    config = checkpoint_or_stop().model.config
    return tuple((h.kind, h.layer, h.head) for h in every_head(config.layers_per_kind, config.n_heads)
                 if h.kind == "encoder_self")


def question(step: int, text: str, ask_tables: bool = True) -> Question | None:
    """Step `step`'s question on this text, answered by the model in use (None: it has no snapshots, or, with
    ask_tables=False, step 9's tables of an own model have not been computed yet)."""
    run = text_run(text)
    vocab = checkpoint_or_stop().vocab
    if step == 1:
        return q.embedding_question(run)
    if step == 2:
        return q.positions_question(text, run, text_run(text, positions="shuffle", sides=("source",)))
    if step == 3:
        return q.scaling_question(run, 0, 0, 0)
    if step == 4:
        return q.mask_question(text_run(text, teacher=True), 0, 0, _mask_step(text))
    if step == 5:
        return q.decode_question(run, _decode_step(text))
    if step == 6:
        head, fit = _reading_head(text)
        return q.cross_question(run, 0, head, _cross_step(text), fit, _last_decoder_layer())
    if step == 7:
        index = snapshots()
        return q.snapshot_question(text, [(s["step"], snapshot_output(text, s["step"])) for s in index],
                                   {s["step"]: s["alignment"] for s in index}) if index else None
    if step == 8:
        token = _forced_token(text)
        return q.forcing_question(text, text_run(text, forced=((0, vocab.encode(token, 1)[0]),)), token,
                                  forced_table(token, ask=ask_tables))
    if step == 9:
        table, fits = ablation_table(ask=ask_tables), cross_offsets(ask=ask_tables)
        return None if table is None or fits is None else q.ablation_question(table[1], SAMPLE_SIZE, fits)
    if step == 10:
        return q.encoder_off_question(text, text_run(text, ablated=_encoder_heads()))
    raise ValueError(f"no step {step}")


def all_questions(text: str, ask_tables: bool = True) -> list[Question | None]:
    return [question(step, text, ask_tables) for step in range(1, len(STEPS) + 1)]


def answer_key(question: Question, step: int) -> str:
    """The answer widget's key: one per step and set of options, so a new text starts a fresh answer."""
    return f"lesson_answer_{step}_{zlib.crc32('|'.join(question.options).encode()):08x}"


def ask(question: Question, step: Step, text: str) -> None:
    """The question, a check, a hint after a wrong answer (and the answer on request), the reveal after a right
    one. The learner's pick is kept per step; nothing of it goes into the URL."""
    key = answer_key(question, step.number)
    checked_key, shown_key = f"{key}_checked", f"{key}_shown"
    st.markdown(f"**Predict first.** {escape_markdown(question.prompt)}")
    if question.kind == "choice":
        picked = st.radio("Your answer", question.options, index=None, key=key, persist_state="session",
                          label_visibility="collapsed")
    else:
        picked = st.pills("Your answer", question.options, key=key, persist_state="session",
                          label_visibility="collapsed")
    if st.button("Check my answer", key=f"{key}_check", type="primary", disabled=picked is None):
        st.session_state[checked_key] = picked
    checked = st.session_state.get(checked_key)
    if checked is not None and checked == picked and question.grade(checked):
        st.success(escape_markdown(f"Right: {question.answer}. {question.why}"), icon="✅")
        show_after(step, text, question)
        return
    if checked is not None and checked == picked:
        st.warning(escape_markdown(f"Not quite. {question.hint_for(checked)} Try another answer."), icon="💡")
        st.button("Show me the answer", key=f"{key}_show", on_click=lambda: st.session_state.update({shown_key: True}))
    if st.session_state.get(shown_key):
        st.info(escape_markdown(f"The model's answer: {question.answer}. {question.why}"), icon="🔎")
        show_after(step, text, question)


def show_before(step: Step, text: str) -> None:
    """The live view the question is about, without its answer."""
    run = text_run(text)
    n = step.number
    if n == 1:
        lengths = input_vectors(run).raw_embedding_norm
        st.dataframe(pd.DataFrame([[visible(c) for c in text], [str(i) for i in run.source_ids],
                                   [f"{x:.2f}" for x in lengths]],
                                  index=["character", "token id", "‖e‖, its embedding's length"],
                                  columns=[str(i) for i in range(len(text))]), width="content")
    elif n == 2:
        show_chart(encoding_heatmap(run.trace["src_positions.rows"], title="The positional code added to each "
                                    "of your characters", row_labels=run.source, row_title="source position"),
                   key="lesson_codes")
    elif n == 3:
        rows, cols, _, _ = attention_axes("encoder_self", run.source, run.decoder_in)
        weights = run.trace["encoder_self", 0][0]                                     # (S, S)
        show_chart(attention_heatmap(weights, rows, cols, title="Encoder layer 0, head 0 (row 0 outlined)",
                                     highlight_row=0), key="lesson_head")
        st.html(vector_rows([weights[0]], [f"row 0 ('{visible(run.source[0])}')"], title="Row 0 alone, on a colour "
                            "scale of its own (a long text spreads each row thin)", column_name="key position"))
    elif n == 4:
        taught = text_run(text, teacher=True)                  # the whole reversal read at once, as in training
        t = len(taught.decoder_in)
        show_chart(mask_heatmap(np.tril(np.ones((t, t), dtype=bool)), taught.decoder_in, taught.decoder_in,
                                title="The causal mask of the decoder (dark: may attend)"), key="lesson_mask")
    elif n == 5:
        t = _decode_step(text)
        st.metric(f"The decoder's input at step {t}", " ".join(run.decoder_in[:t + 1]))
    elif n == 6:
        t = _cross_step(text)
        st.markdown("**Your text, by source position** (n = " + str(len(text)) + ")")
        st.dataframe(pd.DataFrame([[visible(c) for c in text]], index=["character"],
                                  columns=[str(i) for i in range(len(text))]), width="content")
        st.markdown(escape_markdown(f"Output step {t} has read: {' '.join(map(visible, run.decoder_in[:t + 1]))}"))
    elif n == 7:
        index = snapshots()
        if index:
            st.dataframe(pd.DataFrame({"training step": [s["step"] for s in index],
                                       ON_PATTERN: [s["alignment"] for s in index]}),
                         hide_index=True, width="content", column_config=_percent(ON_PATTERN))
            st.caption("Each snapshot's share of held-out output steps whose best last-layer cross head puts its "
                       "largest weight on the anti-diagonal (the Training page's figure).")
    elif n == 8:
        _show_whole(st, "What the model writes on its own", run.output)
        token = _forced_token(text)
        outcomes = forced_table(token)
        st.dataframe(pd.DataFrame({f"after '{token}' forced first": [o.format(t=token)
                                                                     for o in FORCED_OPTIONS.values()],
                                   "held-out words": [outcomes.counts[o] for o in FORCED_OPTIONS]}),
                     hide_index=True, width="content")
        st.caption(f"{outcomes.words} of the {SAMPLE_SIZE} held-out words, each decoded with '{token}' forced as "
                   f"its first character (words whose reversal starts with '{token}' left out).")
    elif n == 9:
        fits = [f for f in cross_offsets() or () if f.kind == "cross"]
        st.dataframe(_offsets_frame(fits), hide_index=True, width="content", column_config=_percent("share of steps"))
        st.caption(f"On {SAMPLE_SIZE} held-out words with the correct reversal fed in: where each cross head's "
                   "largest weight lands most often, as an offset of the mirror n − 1 − i (n − i is one to its "
                   "right: the source position of the character the step has just read), and the share of steps "
                   "it lands there.")


def _percent(*columns: str) -> dict:
    return {column: st.column_config.NumberColumn(format="percent") for column in columns}


def _offsets_frame(fits: list[OffsetFit]) -> pd.DataFrame:
    task = checkpoint_or_stop().task
    return pd.DataFrame({"head": [q.head_name(f.id) for f in fits],
                         "largest weight most often on": [offset_label(f.kind, task, f.best_offset) for f in fits],
                         "share of steps": [f.best_share for f in fits],
                         "mean largest weight": [round(f.mean_top_weight, 2) for f in fits]})


def _show_whole(container, label: str, text: str) -> None:
    """A written text shown whole and wrapped (a metric cuts a long one off)."""
    container.markdown(f"**{escape_markdown(label)}**")
    container.code(visible(text) or "(nothing)", language=None, wrap_lines=True)


def show_after(step: Step, text: str, question: Question) -> None:
    """The reveal: the numbers the answer was read from."""
    run = text_run(text)
    n = step.number
    if n == 1:
        vectors = input_vectors(run)
        show_chart(norms_bars(run.source, vectors.embedding_norm, vectors.raw_embedding_norm, vectors.position_norm,
                              title="Length of each embedding beside its positional code"), key="lesson_norms")
    elif n == 2:
        shuffled = text_run(text, positions="shuffle", sides=("source",))
        a, b = st.columns(2)
        a.metric("With its positions", visible(run.output))
        b.metric("With the source's codes shuffled", visible(shuffled.output) or "(nothing)")
    elif n == 3:
        scores = run.trace.attention("encoder_self", 0, "scores")[0, 0].astype(float)
        raw = np.exp(scores * math.sqrt(run.d_k) - (scores * math.sqrt(run.d_k)).max())
        show_chart(softmax_comparison(run.trace["encoder_self", 0][0, 0], raw / raw.sum(), run.source, run.d_k,
                                      title="Row 0 with the division by √d_k (as trained) and without"),
                   key="lesson_scaling")
    elif n == 4:
        t, taught = _mask_step(text), text_run(text, teacher=True)
        show_chart(attention_heatmap(taught.trace["decoder_self", 0][0], taught.decoder_in, taught.decoder_in,
                                     title=f"Decoder self-attention, layer 0, head 0 (row {t} outlined)",
                                     highlight_row=t), key="lesson_self")
    elif n == 5:
        t = _decode_step(text)
        vocab = checkpoint_or_stop().vocab
        labels = [token_label(vocab, i) for i in range(vocab.size)]
        show_chart(probability_bars(run.probs[t], labels, 8, chosen=run.chosen_ids[t],
                                    title=f"Next-token probabilities at step {t}"), key="lesson_probs")
    elif n == 6:
        layer, (head, _), t = 0, _reading_head(text), _cross_step(text)
        rows, cols, row_title, col_title = attention_axes("cross", run.source, run.decoder_in, run.decoder_out)
        show_chart(attention_heatmap(run.trace["cross", layer][head], rows, cols, f"Cross-attention, layer {layer}, "
                                     f"head {head} (step {t} outlined)", row_title, col_title, highlight_row=t),
                   key="lesson_cross")
    elif n == 7:
        outputs = [(s["step"], snapshot_output(text, s["step"])) for s in snapshots()]
        st.dataframe(pd.DataFrame({"training step": [s for s, _ in outputs],
                                   "it writes": [visible(o) or "(nothing)" for _, o in outputs],
                                   "the reversal?": [o == text[::-1] for _, o in outputs],
                                   ON_PATTERN: [s["alignment"] for s in snapshots()]}),
                     hide_index=True, width="content", column_config=_percent(ON_PATTERN))
    elif n == 8:
        token = _forced_token(text)
        forced = text_run(text, forced=((0, checkpoint_or_stop().vocab.encode(token, 1)[0]),))
        a, b = st.columns(2)
        _show_whole(a, "On its own", run.output)
        _show_whole(b, f"With '{token}' forced first", forced.output)
    elif n == 9:
        base, effects = ablation_table()
        drop = {e.head: e.drop for e in effects}
        fits = [f for f in cross_offsets() if f.kind == "cross"]
        frame = _offsets_frame(fits).assign(**{"exact match lost": [drop[f.id] for f in fits]})
        st.dataframe(frame.sort_values("exact match lost", ascending=False), hide_index=True, width="content",
                     column_config=_percent("share of steps", "exact match lost"))
        worst = effects[0]
        st.caption(f"With every head working: {base:.1%} on the same {SAMPLE_SIZE} held-out words. Of all "
                   f"{len(effects)} heads, the costliest is {q.head_name(worst.head)} ({worst.drop:.1%} lost).")
    elif n == 10:
        off = text_run(text, ablated=_encoder_heads())
        a, b = st.columns(2)
        a.metric("Every head working", visible(run.output))
        b.metric("Every encoder head off", visible(off.output) or "(nothing)")
    page_link(step.page, f"The whole story: {page(step.page).title}", "➡️")
