"""A required pills or segmented control always gives the page a choice, whatever a client sends.

Streamlit registers a segmented control (and pills) as clearable even with required=True: a crafted client that
sends an empty selection gives the page None where it asked for a choice, and the page's lookup of it raised
KeyError: None. The browser's own control never lets it be emptied, and a link's empty value is taken out of the
URL before the widget is seeded (explorer.link_guard.view_widget); only the websocket path is left, so the
button group's deserializer is wrapped once per process (server.install): when required, an empty value
deserializes to the default.

Upstream: streamlit/streamlit#14006 (pills and segmented control clearable when required); when a Streamlit
release refuses an empty value for a required group, this module goes.
"""

from __future__ import annotations

import functools

from streamlit.elements.widgets.button_group import ButtonGroupMixin


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
    if not getattr(ButtonGroupMixin._button_group, "keeps_a_choice", False):
        ButtonGroupMixin._button_group = required_keeps_a_choice(ButtonGroupMixin._button_group)
