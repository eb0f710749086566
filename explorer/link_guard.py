"""A link's values that a widget cannot use are named on the page, with the default the widget shows instead.

Streamlit's seeding of URL-bound widgets records each value it could not use (server.url_seeding, installed by
server.install); the views the browser keeps in the URL (Attention's head, Decode's step) are read here by
index_in_url and flag_in_url, which record theirs the same way. app.py's frame names them all at the top of the
page (show_dropped_link_values). A page that stops early calls stop_page(), which names the dropped values
before st.stop(): once a stop is requested Streamlit draws nothing more in the run.
"""

from __future__ import annotations

import functools
import re

import streamlit as st
from server.url_seeding import DROPPED_KEY

from .text import escape_markdown

SLOT_KEY = "_link_notice_slot"         # this run's place for the notice (app.py's st.empty), in st.session_state
TAKEN_KEY = "_taken_link_values"      # {URL key: value} read by a reader of its own before a widget saw it
SHOWN_CHARACTERS = 40                  # of a dropped value, in the notice


def _shown(value: str | list[str]) -> str:
    text = ", ".join(value) if isinstance(value, list) else value
    if not text:
        return "empty"
    return text if len(text) <= SHOWN_CHARACTERS else text[:SHOWN_CHARACTERS] + "…"


def drop_link_value(key: str, value: str) -> None:
    """A URL value that no widget reads (a view the browser keeps, explorer.attention_view's head) and the page
    cannot use: out of the URL, and named in the notice as a widget's would be."""
    dropped = st.session_state.get(DROPPED_KEY) or {}
    st.session_state[DROPPED_KEY] = {**dropped, key: value}
    del st.query_params[key]


def take_link_value(key: str, value: str) -> None:
    """A URL value read by something other than the widget bound to its key (a rule in ?task=, which the Task
    picker of the bundled three cannot use): out of the URL, and never named as unusable. Streamlit seeds the
    bound widget from the link as it was when the page opened, so the widget still drops it; the notice skips
    it."""
    taken = st.session_state.get(TAKEN_KEY) or {}
    st.session_state[TAKEN_KEY] = {**taken, key: value}
    if key in st.query_params:
        del st.query_params[key]


INDEX_IN_URL = re.compile(r"[0-9]{1,3}")      # a view's number in the URL: at most three ASCII digits
READ_FOR_KEY = "_views_read_for"   # {URL key: (model, views) its last run read it for}, in st.session_state


def index_in_url(key: str, n: int, bring_in_range: bool = False, model: str | None = None) -> int:
    """The view the page opens on among n that the browser switches (Attention's head, Decode's step): the URL's
    `key` (a link to one), else 0, a value the page cannot use named as a widget's would be. The browser keeps
    the learner's later choices itself (explorer/components/), and writes them into the URL, which a rerun reads:
    with `bring_in_range`, a number past the last view is the last (a step kept from a longer word), not a
    mistake; given the `model` the views belong to, a number past the last one that was a view of the model this
    session's last run read it for (a head that model had) is dropped without a notice."""
    value = st.query_params.get(key)
    read_for = st.session_state.get(READ_FOR_KEY) or {}
    if model is not None:
        st.session_state[READ_FOR_KEY] = {**read_for, key: (model, n)}
    if value is None:
        return 0
    if INDEX_IN_URL.fullmatch(value) and (int(value) < n or bring_in_range):   # not isdigit: "²" is a digit
        return min(int(value), n - 1)                                            # int() refuses
    before, had = read_for.get(key, (model, 0))
    if model is not None and INDEX_IN_URL.fullmatch(value) and before != model and int(value) < had:
        del st.query_params[key]
        return 0
    drop_link_value(key, value)
    return 0


def flag_in_url(key: str) -> bool:
    """A yes or no the browser keeps (Decode's cache tables shown): the URL's `key` as a bound toggle writes it,
    "true" or "false" (absent: no), a value the page cannot use named as a widget's would be."""
    value = st.query_params.get(key)
    if value is None or value in ("true", "false"):
        return value == "true"
    drop_link_value(key, value)
    return False


def notice_goes_in(slot) -> None:
    """Where this run names the link's values it could not use (app.py: the top of the page; None once the run
    is over, so a later callback never writes into an old run's place)."""
    st.session_state[SLOT_KEY] = slot


def stop_page() -> None:
    """st.stop(), after naming the link's values this run could not use: once a stop is requested, Streamlit
    draws nothing more in the run, so app.py's notice after the page would never appear."""
    slot = st.session_state.get(SLOT_KEY)
    if slot is not None:
        show_dropped_link_values(slot)
    st.stop()


def show_dropped_link_values(slot) -> None:
    """Name, in `slot`, the link's values this run could not use (each widget shows its default instead)."""
    dropped = st.session_state.pop(DROPPED_KEY, None) or {}
    taken = st.session_state.get(TAKEN_KEY) or {}
    dropped = {key: value for key, value in dropped.items() if taken.get(key) != value}
    if not dropped:
        return
    named = [f"{escape_markdown(key)} ({escape_markdown(_shown(value))})" for key, value in dropped.items()]
    if len(named) == 1:
        sentence = f"The link's value for {named[0]} could not be used, so it shows the default."
    else:
        sentence = (f"The link's values for {', '.join(named[:-1])} and {named[-1]} could not be used, so they "
                    "show their defaults.")
    slot.info(sentence, icon="ℹ️")
