"""The Lesson page's glue: each step's question built from the cached runs of the model in use, the live view
shown before the learner answers (nothing that gives the answer away), and the reveal after."""

from __future__ import annotations

import math
import zlib

import numpy as np
import pandas as pd
import streamlit as st

from analysis.labels import KIND_SHORT, attention_axes, token_label
from analysis.lesson import input_vectors, pattern_shares
from teaching import questions as q
from teaching.questions import Question
from teaching.tour import STEPS, Step
from transformer.intervention import every_head

from .charts import show_chart
from .lab_runs import SAMPLE_SIZE, ablation_table
from .links import page_link
from .model import checkpoint_or_stop, snapshot_output, snapshots, text_run
from .text import escape_markdown, visible
from viz import attention_heatmap, encoding_heatmap, mask_heatmap, norms_bars, probability_bars, softmax_comparison

STEP_KEY = "lesson_step"
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


def _cross_head(text: str) -> int:
    """The last layer's cross head that follows the mirror most on this text."""
    return int(np.argmax(pattern_shares(text_run(text), _last_decoder_layer())))


def _forced_token(text: str) -> str:
    return FORCED[1] if text[::-1].startswith(FORCED[0]) else FORCED[0]


def _encoder_heads() -> tuple[tuple[str, int, int], ...]:
    config = checkpoint_or_stop().model.config
    return tuple((h.kind, h.layer, h.head) for h in every_head(config.layers_per_kind, config.n_heads)
                 if h.kind == "encoder_self")


def question(step: int, text: str, ask_tables: bool = True) -> Question | None:
    """Step `step`'s question on this text, answered by the model in use (None: it has no snapshots, or, with
    ask_tables=False, the table of heads switched off of an own model has not been computed yet)."""
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
        return q.cross_question(run, _last_decoder_layer(), _cross_head(text), _cross_step(text))
    if step == 7:
        steps = [s["step"] for s in snapshots()]
        return q.snapshot_question(text, [(s, snapshot_output(text, s)) for s in steps]) if steps else None
    if step == 8:
        token = _forced_token(text)
        return q.forcing_question(text_run(text, forced=((0, vocab.encode(token, 1)[0]),)), token)
    if step == 9:
        table = ablation_table(ask=ask_tables)
        return None if table is None else q.ablation_question(table[1], SAMPLE_SIZE)
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
        st.dataframe(pd.DataFrame([[visible(c) for c in text], [str(i) for i in run.source_ids]],
                                  index=["character", "token id"], columns=[str(i) for i in range(len(text))]),
                     width="content")
    elif n == 2:
        show_chart(encoding_heatmap(run.trace["src_positions.rows"], title="The positional code added to each "
                                    "of your characters", row_labels=run.source, row_title="source position"),
                   key="lesson_codes")
    elif n == 3:
        rows, cols, _, _ = attention_axes("encoder_self", run.source, run.decoder_in)
        show_chart(attention_heatmap(run.trace["encoder_self", 0][0], rows, cols, title="Encoder layer 0, head 0 "
                                     "(row 0 outlined)", highlight_row=0), key="lesson_head")
    elif n == 4:
        taught = text_run(text, teacher=True)                  # the whole reversal read at once, as in training
        t = len(taught.decoder_in)
        show_chart(mask_heatmap(np.tril(np.ones((t, t), dtype=bool)), taught.decoder_in, taught.decoder_in,
                                title="The causal mask of the decoder (dark: may attend)"), key="lesson_mask")
    elif n == 5:
        t = _decode_step(text)
        st.metric(f"The decoder's input at step {t}", " ".join(run.decoder_in[:t + 1]))
    elif n == 6:
        st.metric("Your text, by source position", " ".join(f"{i}:{c}" for i, c in enumerate(run.source)))
    elif n == 8:
        st.metric("What the model writes on its own", visible(run.output) or "(nothing)")


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
        layer, head, t = _last_decoder_layer(), _cross_head(text), _cross_step(text)
        rows, cols, row_title, col_title = attention_axes("cross", run.source, run.decoder_in, run.decoder_out)
        show_chart(attention_heatmap(run.trace["cross", layer][head], rows, cols, f"Cross-attention, layer {layer}, "
                                     f"head {head} (step {t} outlined)", row_title, col_title, highlight_row=t),
                   key="lesson_cross")
    elif n == 7:
        outputs = [(s["step"], snapshot_output(text, s["step"])) for s in snapshots()]
        st.dataframe(pd.DataFrame({"training step": [s for s, _ in outputs],
                                   "it writes": [visible(o) or "(nothing)" for _, o in outputs],
                                   "the reversal?": [o == text[::-1] for _, o in outputs]}), hide_index=True,
                     width="content")
    elif n == 8:
        token = _forced_token(text)
        forced = text_run(text, forced=((0, checkpoint_or_stop().vocab.encode(token, 1)[0]),))
        a, b = st.columns(2)
        a.metric("On its own", visible(run.output))
        b.metric(f"With '{token}' forced first", visible(forced.output) or "(nothing)")
    elif n == 9:
        base, effects = ablation_table()
        st.dataframe(pd.DataFrame({"head": [f"{KIND_SHORT[e.head.kind]} L{e.head.layer} H{e.head.head}"
                                            for e in effects[:8]],
                                   "exact match lost": [e.drop for e in effects[:8]]}), hide_index=True,
                     width="content", column_config={"exact match lost": st.column_config.NumberColumn(format="percent")})
        st.caption(f"With every head working: {base:.1%} on the same {SAMPLE_SIZE} held-out words.")
    elif n == 10:
        off = text_run(text, ablated=_encoder_heads())
        a, b = st.columns(2)
        a.metric("Every head working", visible(run.output))
        b.metric("Every encoder head off", visible(off.output) or "(nothing)")
    page_link(step.page, f"The whole story: {step.page_title}", "➡️")
