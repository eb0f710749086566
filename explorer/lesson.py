"""The Lesson page's glue: the lesson's runs and tables from this session's caches (teaching.step_views builds
each step's record from them), one drawer for every record, and the question asked before the reveal."""

from __future__ import annotations

import contextlib
import zlib
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from analysis.attribution import Lenses
from analysis.lab import HeadEffect
from analysis.lesson import ForcedOutcomes, LastLayerSplit
from analysis.offsets import OffsetFit
from analysis.patching import PatchScore
from analysis.run import Run
from teaching import step_views
from teaching.class_mode import HELD_BACK
from teaching.questions import Question
from teaching.step_views import Chart, Display, Metric, Note, Side, StepView, Strip, Table, Written
from teaching.steps import STEPS
from transformer.intervention import Head
from viz import encoding_spec, mask_spec, norms_bars, softmax_comparison
from viz.attention import weights_spec
from viz.attribution import lens_rows_spec
from viz.decode_steps import bars_spec
from viz.strips import vector_rows_spec

from . import why_runs
from .components import canvas_heatmap, next_token_bars, vector_rows
from .charts import plotly_chart, projector_on
from .lab_runs import SAMPLE_SIZE, ablation_table, forced_table, offset_table, patch_table, split_table
from .links import page_link
from .cache import checkpoint_for, snapshot_output, snapshots, text_run
from .pages import page
from .text import escape_markdown, visible

STEP_KEY = "lesson_step"
PERCENT = "%.1f%%"   # a data grid's percentage column, its values in percent
BARS = {f.__name__: f for f in (bars_spec,)}                        # next-token bars (explorer/components/front_end.js)
PLOTLY_CHARTS = {f.__name__: f for f in (norms_bars, softmax_comparison)}             # Plotly (viz.plotly_charts)
CANVASES = {f.__name__: f for f in (encoding_spec, mask_spec, lens_rows_spec, weights_spec)}      # drawn on the canvas (explorer.components)


@dataclass(frozen=True)
class CachedSource:
    """The lesson's runs and tables for one model (its key: explorer.cache.model_key), from the caches every
    page shares."""
    key: str
    text: str

    @property
    def _ckpt(self):
        return checkpoint_for(self.key)

    @property
    def task(self) -> str:
        return self._ckpt.task

    @property
    def vocab(self):
        return self._ckpt.vocab

    @property
    def config(self):
        return self._ckpt.model.config

    sample_size: int = SAMPLE_SIZE

    def run(self, **change) -> Run:
        return text_run(self.key, self.text, **change)

    def snapshots(self) -> list[dict]:
        return snapshots(self.key)

    def snapshot_output(self, step: int) -> str:
        return snapshot_output(self.key, self.text, step)

    def forced_table(self, token: str, ask: bool) -> ForcedOutcomes | None:
        return forced_table(self.key, token, ask=ask)

    def cross_offsets(self, ask: bool) -> list[OffsetFit] | None:
        return offset_table(self.key, kind="cross", ask=ask)

    def ablation_table(self, ask: bool) -> tuple[float, list[HeadEffect]] | None:
        return ablation_table(self.key, ask=ask)

    def lenses(self) -> Lenses:
        return why_runs.lenses(self.key, self.text)

    def patch_score(self, pattern: str | None, layer: int, head: int | None, ask: bool) -> PatchScore | None:
        return patch_table(self.key, pattern, layer, head, ask=ask)

    def cross_offsets_without(self, head: Head, ask: bool) -> list[OffsetFit] | None:
        """The last layer's cross heads against their offsets with `head` off (the table How it reverses reads)."""
        return offset_table(self.key, ((head.kind, head.layer, head.head),), "cross",
                            self.config.n_decoder_layers - 1, ask=ask)


    def other_run(self, text: str) -> Run:
        return text_run(self.key, text, teacher=True)

    def split_table(self, ask: bool) -> LastLayerSplit | None:
        return split_table(self.key, ask=ask)


def step_view(number: int, key: str, text: str, ask_tables: bool = True) -> StepView:
    return step_views.step_view(number, CachedSource(key, text), ask_tables)


def question(step: int, key: str, text: str, ask_tables: bool = True) -> Question | None:
    """Step `step`'s question on this text, answered by the model named by `key` (None: it has no snapshots,
    or, with ask_tables=False, step 9's tables of an own model have not been computed yet)."""
    return step_view(step, key, text, ask_tables).question


def all_views(key: str, text: str, ask_tables: bool = True) -> list[StepView]:
    return [step_view(step.number, key, text, ask_tables) for step in STEPS]


def all_questions(key: str, text: str, ask_tables: bool = True) -> list[Question | None]:
    return [view.question for view in all_views(key, text, ask_tables)]


def answer_key(question: Question, step: int) -> str:
    """The answer widget's key: one per step and set of options, so a new text starts a fresh answer."""
    return f"lesson_answer_{step}_{zlib.crc32('|'.join(question.options).encode()):08x}"


def on_its_side(display: Table) -> bool:
    """A table of named rows wider than it is tall (a row of numbers per position of the text): on a phone its
    positions are read down the screen instead of scrolled sideways."""
    return bool(display.index) and not display.percent and len(display.columns) > len(display.index)


def static_table(frame: pd.DataFrame, percent: tuple[str, ...], hide_index: bool, container) -> None:
    """Plain HTML in the page's type, with no toolbar over what is above it."""
    shown = {c: "{:.1%}" if c in percent else "{:.4g}" for c in frame.columns if pd.api.types.is_float_dtype(frame[c])}
    container.table(frame.style.format(shown), hide_index=hide_index, width="content")


def draw(displays: tuple[Display, ...], container=st, narrow: bool = False) -> None:
    """Every kind of display a step's record holds, drawn one way. narrow: for a phone (a student's screen in a
    class), tables are plain and a wide one is turned on its side."""
    for display in displays:
        if isinstance(display, Table):
            if display.heading:
                container.markdown(display.heading)
            frame = pd.DataFrame(display.columns, index=list(display.index) if display.index else None)
            if narrow and on_its_side(display):
                frame = frame.T.infer_objects()   # a row per position, a column per quantity
                static_table(frame, (), False, container)
            elif narrow or projector_on():   # the data grid kept 14-px type at 1024 px
                static_table(frame, display.percent, display.index is None, container)
            else:   # percentages with one decimal each: the grid's "percent" wrote 69.8% beside 43.01%
                frame[list(display.percent)] = frame[list(display.percent)] * 100
                container.dataframe(frame, hide_index=display.index is None, width="content",
                                    column_config={c: st.column_config.NumberColumn(format=PERCENT)
                                                   for c in display.percent})
            if display.caption:
                container.caption(display.caption)
        elif isinstance(display, Chart) and display.figure in CANVASES:
            canvas_heatmap(CANVASES[display.figure](**display.arguments), display.key,
                           container)
        elif isinstance(display, Chart) and display.figure in PLOTLY_CHARTS:
            plotly_chart(PLOTLY_CHARTS[display.figure](**display.arguments), display.key, container)
        elif isinstance(display, Chart):
            next_token_bars(BARS[display.figure](**display.arguments), display.key, container)
        elif isinstance(display, Strip):
            vector_rows(vector_rows_spec(list(display.rows), list(display.names), title=display.title,
                                         column_name=display.column_name), container=container)
        elif isinstance(display, Metric):
            container.metric(display.label, display.value)
        elif isinstance(display, Written):
            container.markdown(f"**{escape_markdown(display.label)}**")
            container.code(visible(display.text) or "(nothing)", language=None, wrap_lines=True)
        elif isinstance(display, Side):
            left, right = container.columns(2)
            draw((display.left,), left)
            draw((display.right,), right)
        elif isinstance(display, Note):
            container.markdown(escape_markdown(display.text))
        else:
            raise TypeError(f"no drawer for {type(display).__name__}")


def ask(view: StepView, text: str, numbers=st) -> None:
    """The question, a check, a hint after a wrong answer (and the answer on request), the reveal after a right
    one (its numbers in `numbers`). The learner's pick is kept per step; nothing of it goes into the URL."""
    question, step = view.question, view.step
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
        reveal(view, numbers)
        return
    if checked is not None and checked == picked:
        st.warning(escape_markdown(f"Not quite. {question.hint_for(checked)} Try another answer."), icon="💡")
        st.button("Show me the answer", key=f"{key}_show", on_click=lambda: st.session_state.update({shown_key: True}))
    if st.session_state.get(shown_key):
        st.info(escape_markdown(f"{question.answer_line} {question.why}"), icon="🔎")
        reveal(view, numbers)


def hold_back(view: StepView) -> None:
    """While a class votes on this text (explorer.classes.held_steps): the question to think about, without the
    check, the hint or the answer, each of which would give the answer away."""
    st.markdown(f"**Predict first.** {escape_markdown(view.question.prompt)}")
    st.info(HELD_BACK, icon="🗳️")


def reveal(view: StepView, numbers=st) -> None:
    """The numbers the answer was read from (in `numbers`), and the page with the whole story."""
    draw(view.after, numbers)
    with contextlib.nullcontext() if numbers is st else numbers:
        page_link(view.step.page, f"The whole story: {page(view.step.page).title}", "➡️")
