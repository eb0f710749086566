"""Widget values from a crafted client are refused before Streamlit reads them.

Streamlit deserializes whichever value field a client's message sets for a widget, before the page runs: a
hand-made websocket message can give an integer number input NaN (`int(nan)` raises) or a select slider a bare
number (`len()` of it raises), and the session shows a traceback. A browser never sends these. So each incoming
value whose field is not of the kind its widget registered (a number for a number), or that is a non-finite number, is dropped from the
rerun: the widget keeps the value it had, and the page says so (REFUSED_KEY). Values in range but of the right
type are the page's to check, as for any input.

A value for a widget the session's last run did not draw is dropped too, silently: Streamlit would keep it
until such a widget appears, and a crafted client sending a million made-up ids grew a server by 2.6 GB in 12
messages. A browser sends only the widgets it was given; one that reconnects to another replica (whose
session never drew them) gets its view back from the URL, as every view's widget is bound to it.

Upstream: streamlit/streamlit#16203 (open: check a widget's declared constraints on the server); until a release
refuses a value of the wrong kind for its widget, this patch stays.
"""

from __future__ import annotations

import functools
import math

from streamlit.proto.WidgetStates_pb2 import WidgetStates
from streamlit.runtime.state.session_state import SessionState

REFUSED_KEY = "_refused_widget_values"   # how many values the last rerun refused, in st.session_state
# Fields a browser may send for one another: an integer number input registers double_value and sends int_value.
FAMILY = {"int_value": "number", "double_value": "number", "int_array_value": "numbers",
          "double_array_value": "numbers"}


def _acceptable(state, registered_field: str) -> bool:
    field = state.WhichOneof("value")
    if field is None:
        return True   # a cleared value
    if FAMILY.get(field, field) != FAMILY.get(registered_field, registered_field):
        return False
    if field == "double_value":
        return math.isfinite(state.double_value)
    if field == "double_array_value":
        return all(math.isfinite(x) for x in state.double_array_value.data)
    return True


def refuse_malformed(rerun):
    @functools.wraps(rerun)
    def guarded(self: SessionState, fresh_widget_states: WidgetStates | None, **kwargs):
        if fresh_widget_states is not None:
            metadata = self._new_widget_state.widget_metadata
            known = [w for w in fresh_widget_states.widgets if w.id in metadata]
            kept = [w for w in known if _acceptable(w, metadata[w.id].value_type)]
            if len(kept) < len(fresh_widget_states.widgets):
                fresh_widget_states = WidgetStates(widgets=kept)
            if len(kept) < len(known):
                self._new_session_state[REFUSED_KEY] = len(known) - len(kept)
        return rerun(self, fresh_widget_states, **kwargs)

    guarded.refuses_malformed = True
    return guarded


def install() -> None:
    """Once per process (server.install)."""
    if not getattr(SessionState.on_script_will_rerun, "refuses_malformed", False):
        SessionState.on_script_will_rerun = refuse_malformed(SessionState.on_script_will_rerun)
