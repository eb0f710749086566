"""A link's values that a widget cannot use fall back to the widget's default and are recorded, never a traceback.

Widgets bound to the URL (`bind="query-params"`) are seeded by Streamlit from the link when they are first
drawn (SessionState._seed_widget_from_url): it parses the text for the widget's value type and runs the widget's
deserializer. It catches ValueError, TypeError and IndexError there, and drops such a value silently; anything else
escapes into the page. `?seed=1e309` is one: parsed as the float inf, an integer number input's `int(inf)` raises
OverflowError. And a segmented control registers as clearable even with required=True, so `?kind=` (or an empty
selection sent by a crafted client) gives the page None where it expects a choice (KeyError: None).

So, once per process (server.install):
- seeding catches every error and records each value it did not use (DROPPED_KEY); explorer.link_guard names
  them on the page;
- a required pills or segmented control deserializes an empty value to its default, as the browser's own
  control never lets it be emptied.

A pass over st.query_params before the widgets draw cannot do this: Streamlit seeds a bound widget again after
its first run (a disabled one on every run, any one on Back or Forward), and refuses to delete a bound key from
st.query_params.

Upstream: streamlit/streamlit#14006 (pills and segmented control clearable when required); no upstream issue
found for an error other than ValueError, TypeError or IndexError escaping URL seeding (`int(inf)`'s
OverflowError): when a Streamlit release catches it, default_for_unusable goes.
"""

from __future__ import annotations

import functools

from streamlit.elements.widgets.button_group import ButtonGroupMixin
from streamlit.runtime.state.query_params import parse_url_param
from streamlit.runtime.state.session_state import SessionState

DROPPED_KEY = "_dropped_link_values"   # {URL key: value as sent} this run could not use, in st.session_state


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
    """Once per process (server.install)."""
    if not getattr(SessionState._seed_widget_from_url, "defaults_unusable", False):
        SessionState._seed_widget_from_url = default_for_unusable(SessionState._seed_widget_from_url)
    if not getattr(ButtonGroupMixin._button_group, "keeps_a_choice", False):
        ButtonGroupMixin._button_group = required_keeps_a_choice(ButtonGroupMixin._button_group)


