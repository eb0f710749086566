"""A link's values that a widget cannot use fall back to the widget's default, with a notice, never a traceback.

Widgets bound to the URL (`bind="query-params"`) are seeded by Streamlit from the link when they are first
drawn (SessionState._seed_widget_from_url): it parses the text for the widget's value type and runs the widget's
deserializer. It catches ValueError, TypeError and IndexError there, and drops such a value silently; anything else
escapes into the page. `?seed=1e309` is one: parsed as the float inf, an integer number input's `int(inf)` raises
OverflowError. And a segmented control registers as clearable even with required=True, so `?kind=` (or an empty
selection sent by a crafted client) gives the page None where it expects a choice (KeyError: None).

So, once per process (the explorer package installs it on import):
- seeding catches every error and records each value it did not use (DROPPED_KEY); app.py names them on the
  page with show_dropped_link_values;
- a required pills or segmented control deserializes an empty value to its default, as the browser's own
  control never lets it be emptied.
A page that stops early calls stop_page(), which names the dropped values before st.stop(): once a stop is
requested Streamlit draws nothing more in the run.
"""

from __future__ import annotations

import functools
import re

import streamlit as st
from streamlit.elements.widgets.button_group import ButtonGroupMixin
from streamlit.runtime.state.query_params import parse_url_param
from streamlit.runtime.state.session_state import SessionState

from .text import escape_markdown

DROPPED_KEY = "_dropped_link_values"   # {URL key: value as sent} this run could not use, in st.session_state
SLOT_KEY = "_link_notice_slot"         # this run's place for the notice (app.py's st.empty), in st.session_state
SHOWN_CHARACTERS = 40                  # of a dropped value, in the notice


def _writes_the_default(metadata, url_value: str | list[str]) -> bool:
    """Whether a URL value is one way of writing the widget's default (Streamlit drops such a value too)."""
    try:
        return parse_url_param(url_value, metadata.value_type) == metadata.serializer(metadata.deserializer(None))
    except Exception:
        return False


def default_for_unusable(seed):
    """Streamlit's seeding, with any error a drop like the ones it catches, and each drop recorded for the notice."""
    @functools.wraps(seed)
    def guarded(self: SessionState, metadata, user_key: str, widget_id: str, url_value: str | list[str]) -> bool:
        try:
            if seed(self, metadata, user_key, widget_id, url_value):
                return True
        except Exception:   # e.g. OverflowError from int(inf): the widget keeps its default, as for any bad value
            self._clear_url_param(user_key)
        if not _writes_the_default(metadata, url_value):
            dropped = self._new_session_state.get(DROPPED_KEY) or {}
            self._new_session_state[DROPPED_KEY] = {**dropped, user_key: url_value}
        return False

    guarded.defaults_unusable = True
    return guarded


def required_keeps_a_choice(button_group):
    """The button group with, when required, a deserializer that turns an empty value into the default."""
    @functools.wraps(button_group)
    def guarded(self, *args, required: bool = False, deserializer, **kwargs):
        if required:
            choice = deserializer

            def deserializer(ui_value):
                value = choice(ui_value)
                return choice(None) if value is None else value   # choice(None) is the default

        return button_group(self, *args, required=required, deserializer=deserializer, **kwargs)

    guarded.keeps_a_choice = True
    return guarded


def install() -> None:
    """Once per process; the explorer package calls it on import."""
    if not getattr(SessionState._seed_widget_from_url, "defaults_unusable", False):
        SessionState._seed_widget_from_url = default_for_unusable(SessionState._seed_widget_from_url)
    if not getattr(ButtonGroupMixin._button_group, "keeps_a_choice", False):
        ButtonGroupMixin._button_group = required_keeps_a_choice(ButtonGroupMixin._button_group)


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
    dropped = st.session_state.pop(DROPPED_KEY, None)
    if not dropped:
        return
    named = [f"{escape_markdown(key)} ({escape_markdown(_shown(value))})" for key, value in dropped.items()]
    if len(named) == 1:
        sentence = f"The link's value for {named[0]} could not be used, so it shows the default."
    else:
        sentence = (f"The link's values for {', '.join(named[:-1])} and {named[-1]} could not be used, so they "
                    "show their defaults.")
    slot.info(sentence, icon="ℹ️")
