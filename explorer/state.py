"""The learner's text, shared by every page.

The sidebar's text box (app.py) is bound to the URL (`?text=`), so a copied link opens the same text; the
other views' widgets bind themselves (`bind="query-params"`, `persist_state="session"`).
"""

from __future__ import annotations

import streamlit as st

from transformer.checkpoint import Checkpoint
from transformer.vocab import CleanedText, InputError

from .cache import checkpoint_or_stop, model_key
from .link_guard import stop_page
from .text import escape_markdown

TEXT_KEY = "text"
DEFAULT_TEXT = "hello"
MAX_TYPED = 200          # the text box accepts more than the model reads, so "too long" can be explained
VIEW = {"bind": "query-params", "persist_state": "session"}  # a widget whose value is part of the view


def text_box() -> None:
    st.text_input(
        "Your text", value=DEFAULT_TEXT, key=TEXT_KEY, max_chars=MAX_TYPED, **VIEW,
        help="Letters a-z and single spaces, up to the model's limit. Every page shows what the model does with it.",
    )


QUICK_TEXT_KEY = "quick_text"


def _use_quick_text() -> None:
    st.session_state[TEXT_KEY] = st.session_state.get(QUICK_TEXT_KEY, "")


def quick_text_box() -> None:
    """At the top of the page body, the text every page reads and a way to change it without the sidebar, which a
    phone hides behind » and a laptop shows below the page list: a popover with a box (Enter uses it)."""
    shown = str(st.session_state.get(TEXT_KEY, DEFAULT_TEXT))
    with st.popover(f"✏️ Your text: {escape_markdown(shown[:48]) or '(nothing)'}"):
        st.text_input("A new text for every page (Enter to use it)", key=QUICK_TEXT_KEY, max_chars=MAX_TYPED,
                      on_change=_use_quick_text,
                      help="Letters a-z and single spaces; the same text as the sidebar's Your text.")


def keep_in_range(key: str, low: int, high: int) -> None:
    """Before a slider is drawn: a value kept from another text or model (or a link) brought into its range."""
    if key in st.session_state and not low <= st.session_state[key] <= high:
        st.session_state[key] = min(max(st.session_state[key], low), high)


def checked_text(ckpt: Checkpoint) -> tuple[str, CleanedText, InputError | None]:
    """The typed text, its tidied form, and what is wrong with it (None when the model can read it)."""
    raw = str(st.session_state.get(TEXT_KEY, DEFAULT_TEXT))
    cleaned = ckpt.vocab.clean(raw)
    try:
        ckpt.vocab.check(cleaned.text, ckpt.model.config.max_len)
    except InputError as err:
        return raw, cleaned, err
    return raw, cleaned, None


def learner_text(ckpt: Checkpoint) -> str:
    """The validated text every page works on. Shows what was tidied; on bad input, says why and stops the page."""
    raw, cleaned, err = checked_text(ckpt)
    if err is not None:
        st.error(escape_markdown(str(err)), icon="✋")
        st.caption("You typed:")
        st.text(raw if raw else "(nothing)")
        stop_page()
    if cleaned.notices:
        st.info(escape_markdown(" ".join(cleaned.notices) + f" The model reads: {cleaned.text}"), icon="ℹ️")
    return cleaned.text


def model_and_text() -> tuple[Checkpoint, str, str]:
    """What a page works on: the model in use (else the page says why and stops), its key, which names every cached
    run of it, and the learner's text checked against its vocabulary (learner_text)."""
    ckpt = checkpoint_or_stop()
    return ckpt, model_key(), learner_text(ckpt)
