"""The frame every page runs in: page config, the page router, the sidebar every page shares (the text box, the
model's answer, the task, projector mode, the model card), and the page itself inside a place of the server's
gate. app.py calls main() on every run of a session."""

from __future__ import annotations

import weakref

import streamlit as st

from analysis.tasks import words as task_words
from transformer.data import TASKS

from server.gate import script_place
from server.reconnect import rerun_after_reconnect
from server.widget_guard import REFUSED_KEY

from .cache import TASK_KEY, checkpoint_or_stop, model_key, pointed_checkpoint, text_run
from .charts import PROJECTOR_CSS, PROJECTOR_KEY, projector_on
from .frame_fixes import frame_fixes
from .glossary import glossary_popover
from .link_guard import notice_goes_in, show_dropped_link_values
from .links import show_link_for_students
from .own_models import (
    CHOICE, GONE_KEY, LOST_KEY, OWN_MODEL_KEY, SERVER_MODEL, apply_choice, back_to_bundled, forget_released,
    own_models,
)
from .pages import PAGES, SECTIONS, at_url_path
from .state import VIEW, checked_text, quick_text_box, text_box
from .task_links import show_task_link_notice, take_task_link
from .text import escape_markdown, visible


WRITES = "The model writes: "   # the sidebar's line with the model's answer (drivers.protocol_session reads it)


_PARAMETER_COUNTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()   # model -> its count


def parameter_count(model) -> int:
    """The model card's count, walked once per model (every run's sidebar asked it: 1 % of a busy server)."""
    if model not in _PARAMETER_COUNTS:
        _PARAMETER_COUNTS[model] = model.n_parameters()
    return _PARAMETER_COUNTS[model]


def task_selector() -> None:
    """Which bundled model every page shows: the reverser, the copier or the sorter (in the URL as ?task=)."""
    pointed = pointed_checkpoint()
    if pointed is not None:
        st.caption(escape_markdown(f"This server shows one checkpoint: {pointed.name}."))
        return
    st.segmented_control("Task", list(TASKS), key=TASK_KEY, default="reverse", required=True, **VIEW,
                         on_change=back_to_bundled,  # no format_func: the URL keeps the label, ?task=sort
                         help="Three models with the same architecture, each trained for one task. Every page "
                              "shows the chosen one.")


def sidebar(url_path: str) -> None:
    """The text box, the model's answer, the page's terms, projector mode and the model card, on every page."""
    with st.sidebar:
        rerun_after_reconnect()
        take_task_link()     # before the text box and the Task picker read the URL
        text_box()
        if st.session_state.pop(REFUSED_KEY, None):
            st.warning("Some values your browser sent could not be used (a number that is not finite, or a value "
                       "of the wrong kind), so those controls kept their previous values.", icon="ℹ️")
        task_selector()
        forget_released()
        lost = st.session_state.pop(LOST_KEY, None)
        if lost:
            for label, why in lost:
                st.warning(escape_markdown(f"Your own model {label} is gone: {why}. Train or upload it again on the "
                                           "Training page."), icon="ℹ️")
        if st.session_state.pop(GONE_KEY, None):
            st.warning("This page was showing a model of your own (trained or uploaded), which lives only in the "
                       "server process of the session that made it. That session is gone (its server process "
                       "stopped and you were moved to another, or the link was opened in another browser), so the "
                       "bundled model is shown. Train or upload yours again on the Training page.", icon="ℹ️")
        if own_models():
            st.selectbox("Model", [SERVER_MODEL, *own_models()], key=CHOICE,
                         help="Your own models (trained or uploaded on the Training page) are seen by you alone.")
        apply_choice()
        ckpt = checkpoint_or_stop()
        if st.session_state.get(OWN_MODEL_KEY):   # the Task buttons still show the last bundled task chosen
            st.caption(escape_markdown(f"Every page shows your own model ({ckpt.task}). Pressing a task above shows "
                                       "its bundled model instead."))
        _, cleaned, problem = checked_text(ckpt)
        if problem is None:
            written = visible(text_run(model_key(), cleaned.text).output) or "(nothing)"   # the pages' own run
            st.markdown(f"{WRITES}**{written}**")      # not a heading: the sidebar comes before the page's h1
        glossary_popover(at_url_path(url_path))
        st.toggle("Projector mode", key=PROJECTOR_KEY, **VIEW,
                  help="Large type, thick lines and a colour scale safe for colour-blind viewers, on every chart.")
        if projector_on():
            show_link_for_students(url_path)
        frame_fixes()
        config, metrics = ckpt.model.config, ckpt.metrics
        with st.container(border=True):
            st.markdown("**Model card**")
            n_parameters = parameter_count(ckpt.model)
            held_out = metrics.get("held_out", {})
            st.markdown(
                f"- task: {task_words(ckpt.task).verb}\n"
                f"- {n_parameters:,} parameters ({n_parameters * 4 / 1024:,.0f} KiB of float32 weights)\n"
                f"- {config.n_encoder_layers} encoder + {config.n_decoder_layers} decoder layers, "
                f"{config.n_heads} heads, d_model {config.d_model}\n"
                f"- reads up to {config.max_len} characters\n"
                + (f"- exact match {held_out['exact_match']:.2%} on {held_out['n']:,} held-out strings" if held_out
                   else "- no held-out exact match recorded")
            )


# A focus ring the keyboard's user can see on every control, the router's page links included: Streamlit's own is
# a half-transparent shadow on some widgets and nothing on others. A page's sections are h2 under its h1 (a
# screen reader's outline skipped a level), drawn at the size the h3 they were had; Home's h3 one step smaller. A
# container keyed hidden_links… holds page links that a chart's own links click (explorer.attention_view). On a
# phone a display formula is drawn at 1.12 times the text (KaTeX's 1.21 made the widest ones scroll sideways). A
# metric's label wraps, where Streamlit cut it off with "…" ("Largest difference from th…" projected at 1,024 px).
# Code in a caption is drawn at the caption's own size: Streamlit's 0.75 em made it 10.5 px at 1400 px, where
# anti-aliasing left its green strokes at about 2.8 : 1 on screen though the CSS colours give 6.8 : 1.
PAGE_CSS = """<style>
[data-testid="stCaptionContainer"] code { font-size: 1em; }
:focus-visible { outline: 3px solid #1d4ed8 !important; outline-offset: 2px !important; }
@media (max-width: 640px) { .katex-display > .katex { font-size: 1.12em; } }
[data-testid="stMetricLabel"] [data-testid="stMarkdownContainer"], [data-testid="stMetricLabel"] p {
  white-space: normal; overflow: visible; text-overflow: clip; }
[data-testid="stMain"] h2 { font-size: 1.75rem; }
[data-testid="stMain"] h3 { font-size: 1.4rem; }
[class*="st-key-hidden_links"] { display: none; }
</style>"""

ROUTER_KEY = "_router_pages"   # this session's st.Page objects, in st.session_state


def router_pages() -> dict:
    """The router's pages, made once per session: st.Page resolves its script's path and checks its icon
    against Streamlit's emoji catalogue, 23 times a run (3 % of a busy server's time, benchmarks.classroom).
    Never shared between sessions: st.navigation marks the chosen one on the object, and sessions run at once."""
    pages = st.session_state.get(ROUTER_KEY)
    if pages is None:
        pages = {section: [st.Page(p.script, title=p.title, icon=p.icon, url_path=p.url_path or None,
                                   default=not p.url_path) for p in PAGES if p.section == section]
                 for section in SECTIONS}
        st.session_state[ROUTER_KEY] = pages
    return pages


def main() -> None:
    """One run of a session's page: the router, the sidebar and the page."""
    page = st.navigation(router_pages(), expanded=True)  # every page listed: a collapsed list hid three lab pages
    projected = (projector_on() if PROJECTOR_KEY in st.session_state    # the switch, drawn below, or on a first
                 else st.query_params.get(PROJECTOR_KEY) == "true")      # run before it has read the link
    st.set_page_config(page_title=f"{page.title} · Attention explorer", page_icon="🔁", layout="wide",  # its own
                       initial_sidebar_state="collapsed" if projected else "auto")    # the hall sees the page
    st.html(PAGE_CSS)
    if projected:   # first in the page, before anything it restyles is drawn (a data grid measures its type once)
        st.html(PROJECTOR_CSS)
    with script_place():  # at most two runs at once on the server, one per learner (server.gate says why)
        link_notice = st.empty()   # top of the page; filled once the widgets have read the link
        notice_goes_in(link_notice)
        try:
            sidebar(page.url_path)
            show_task_link_notice()
            if at_url_path(page.url_path).reads_text:
                quick_text_box()
            page.run()
        finally:
            show_dropped_link_values(link_notice)
            notice_goes_in(None)   # the slot belongs to this run only
