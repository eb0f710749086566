"""A link's values that a widget cannot use are named on the page, with the default the widget shows instead.

Every widget whose value is part of the view is drawn by view_widget, bound to the URL: before Streamlit seeds
it from the link (on its first draw in the session), a value it could not use is taken out of st.query_params,
recorded, and the run started again without it, so Streamlit never parses it (`?seed=1e309` made an integer number input raise OverflowError, and
`?kind=` gave a required segmented control None). The views the browser keeps in the URL (Attention's head,
Decode's step) are read by index_in_url and flag_in_url, which record theirs the same way. app.py's frame names
them all at the top of the page (show_dropped_link_values). A page that stops early calls stop_page(), which
names the dropped values before st.stop(): once a stop is requested Streamlit draws nothing more in the run.
"""

from __future__ import annotations

import inspect
import math
import re
from typing import Any, Callable, TypeVar

import streamlit as st

from .text import escape_markdown

T = TypeVar("T")
VIEW = {"bind": "query-params", "persist_state": "session"}  # a widget whose value is part of the view
DROPPED_KEY = "_dropped_link_values"   # {URL key: value as sent} this run could not use, in st.session_state
CHOICES = {"selectbox", "radio", "segmented_control", "pills", "select_slider", "multiselect", "tabs"}
NUMBERS = {"slider", "number_input"}
FLAGS = {"toggle", "checkbox"}
WHOLE_NUMBER = re.compile(r"-?[0-9]{1,18}")
SLOT_KEY = "_link_notice_slot"         # this run's place for the notice (app.py's st.empty), in st.session_state
RESTARTING_KEY = "_restarting_for_link"  # set when view_widget starts the run again, in st.session_state
SHOWN_CHARACTERS = 40                  # of a dropped value, in the notice


def _shown(value: str | list[str]) -> str:
    text = ", ".join(value) if isinstance(value, list) else value
    if not text:
        return "empty"
    return text if len(text) <= SHOWN_CHARACTERS else text[:SHOWN_CHARACTERS] + "…"


def _writes(arguments: dict[str, Any]) -> set[str]:
    """What a choice widget writes in the URL for each of its options: the label its format_func shows."""
    options = arguments.get("options", arguments.get("tabs", ()))
    shown = arguments.get("format_func", str)
    return {str(shown(option)) for option in options}


def _number_usable(arguments: dict[str, Any], text: str) -> bool:
    """A number within the widget's bounds, whole when the widget counts in whole numbers (int(inf) raises)."""
    bounds = [arguments.get(name) for name in ("min_value", "max_value", "value", "step")]
    whole = not any(isinstance(b, float) for b in bounds)
    if whole and not WHOLE_NUMBER.fullmatch(text):
        return False
    try:
        number = int(text) if whole else float(text)
    except ValueError:
        return False
    low, high = arguments.get("min_value"), arguments.get("max_value")
    return (math.isfinite(number) and (low is None or number >= low) and (high is None or number <= high))


def link_value_usable(kind: str, arguments: dict[str, Any], values: list[str]) -> bool:
    """Whether a widget of `kind` (st.selectbox's name, "selectbox") drawn with `arguments` can take the URL's
    `values` for its key (st.query_params.get_all): one of the labels it writes for a choice (any number of them,
    none included, for a multiple choice), a number in its bounds, true or false for a toggle; any text."""
    if kind in CHOICES:
        if kind == "multiselect" or arguments.get("selection_mode") == "multi":
            return all(value in _writes(arguments) for value in values if value != "")   # "?ablated=": none
        return len(values) == 1 and values[0] in _writes(arguments)
    if kind in NUMBERS:
        return len(values) == 1 and _number_usable(arguments, values[0])
    if kind in FLAGS:
        return len(values) == 1 and values[0].lower() in ("true", "false")
    return len(values) == 1


def view_widget(draw: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """`draw(*args, **kwargs)` (st.selectbox, a column's slider...) as a widget whose value is part of the view:
    bound to the URL and kept through page switches (VIEW), after the link's value for its key is taken out of
    the URL and named on the page if the widget could not use it. Only a widget without a value yet in this
    session is seeded from the link, so only then is the link's value checked: a later run's URL is the one the
    widget wrote.

    Streamlit seeds a widget from the query string the run began with, not from st.query_params, so a value
    taken out is gone for the widget only from the next run: the run starts again (st.rerun), once for each such
    value, before the widget is drawn."""
    signature = inspect.signature(draw)
    key = kwargs["key"]
    if key in st.query_params and key not in st.session_state:
        values = st.query_params.get_all(key)
        if not link_value_usable(draw.__name__, signature.bind(*args, **kwargs).arguments, values):
            drop_link_value(key, values[0] if len(values) == 1 else values)
            st.session_state[RESTARTING_KEY] = True   # this run's notice waits for the next run
            st.rerun()
    return draw(*args, **kwargs, **{name: value for name, value in VIEW.items() if name in signature.parameters})


def drop_link_value(key: str, value: str | list[str]) -> None:
    """A URL value the page cannot use (a widget's, or a view's the browser keeps: explorer.attention_view's
    head): out of the URL before anything reads it, and named in the notice."""
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
    """Name, in `slot`, the link's values this run could not use (each widget shows its default instead); not
    in a run view_widget started again, whose drawing Streamlit throws away: the next run names them."""
    if st.session_state.pop(RESTARTING_KEY, False):
        return
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
