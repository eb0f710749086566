"""Per-session state and the URL.

The shared input lives in st.session_state[TEXT_KEY]; the sidebar text box in app.py is bound to it.
The view (text, step, layer, head, kind) is mirrored into st.query_params so a copied link opens
the same view, and into a shadow dict so it survives switching pages.
"""

from __future__ import annotations

from typing import Sequence, TypeVar

import streamlit as st

from transformer.checkpoint import Checkpoint
from transformer.vocab import CleanedText, InputError

from .text import escape_markdown

TEXT_KEY = "text"
DEFAULT_TEXT = "hello"
MAX_TYPED = 200          # the text box accepts more than the model reads, so "too long" can be explained
_SHADOW = "_view"        # non-widget copy of the view: widget keys are dropped when a page is left

T = TypeVar("T")


def init_text() -> None:
    """Put the starting text in session state: from the URL if given, else the default."""
    if TEXT_KEY not in st.session_state:
        st.session_state[TEXT_KEY] = str(st.query_params.get("text", DEFAULT_TEXT))[:MAX_TYPED]


def checked_text(ckpt: Checkpoint) -> tuple[str, CleanedText, InputError | None]:
    """The typed text, its tidied form, and what is wrong with it (None when the model can read it)."""
    init_text()
    raw = st.session_state[TEXT_KEY]
    cleaned = ckpt.vocab.clean(raw)
    try:
        ckpt.vocab.check(cleaned.text, ckpt.model.config.max_len)
    except InputError as err:
        return raw, cleaned, err
    return raw, cleaned, None


def learner_text(ckpt: Checkpoint) -> str:
    """The validated text every page works on. Shows what was tidied; on bad input, says why and stops the page."""
    raw, cleaned, err = checked_text(ckpt)
    st.query_params["text"] = raw
    if err is not None:
        st.error(escape_markdown(str(err)), icon="✋")
        st.caption("You typed:")
        st.text(raw if raw else "(nothing)")
        st.stop()
    if cleaned.notices:
        st.info(escape_markdown(" ".join(cleaned.notices) + f" The model reads: {cleaned.text}"), icon="ℹ️")
    return cleaned.text


def restore(name: str, default: T, allowed: Sequence[T]) -> None:
    """Give widget `name` its value before it is drawn: this session's, else the URL's, else the default."""
    shadow = st.session_state.setdefault(_SHADOW, {})
    if name in st.session_state and st.session_state[name] in allowed:
        return
    for candidate in (shadow.get(name), _from_url(name, default)):
        if candidate in allowed:
            st.session_state[name] = candidate
            return
    st.session_state[name] = default if default in allowed else allowed[-1]


def publish(name: str) -> None:
    """After the widget is drawn: remember its value across pages and put it in the URL."""
    value = st.session_state[name]
    st.session_state.setdefault(_SHADOW, {})[name] = value
    st.query_params[name] = str(value)


def _from_url(name: str, default: T) -> T | None:
    raw = st.query_params.get(name)
    if raw is None:
        return None
    try:
        return type(default)(raw)
    except (TypeError, ValueError):
        return None
