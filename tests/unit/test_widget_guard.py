"""server.widget_guard on Streamlit's own SessionState: values for widgets the session never drew are not kept."""

from streamlit.proto.WidgetStates_pb2 import WidgetStates
from streamlit.runtime.state.session_state import SessionState

import server
from server.widget_guard import REFUSED_KEY

server.install()


def test_made_up_widget_ids_are_dropped_before_streamlit_stores_them():
    state = SessionState()
    flood = WidgetStates()
    for i in range(10_000):
        made_up = flood.widgets.add()
        made_up.id, made_up.int_value = f"$$ID-{i:012x}", i
    state.on_script_will_rerun(flood)
    assert len(state._new_widget_state.states) == 0          # Streamlit kept every one of them before
    assert REFUSED_KEY not in state._new_session_state        # a learner is not told of what a browser never sends
