"""Issue 16 on the Training page: each hostile upload shows its message and changes nothing, for this session or
another; widget values no browser sends are refused with a message instead of a traceback."""

import math

import pytest

from explorer.own_models import OWN_MODEL_KEY

from drivers.payloads import HOSTILE
from .helpers import no_exception, open_page, own_shelf
from .test_live_training import STARTED, no_runs_left_behind  # noqa: F401 - autouse: no run from one test caps the next


def test_every_hostile_upload_shows_what_is_wrong_and_no_session_changes():
    other = open_page("attention", "banana")
    at = open_page("training", "level")
    for i, (name, (data, reason)) in enumerate(HOSTILE.items()):
        at.file_uploader(key=f"upload_{i}").set_value((f"hostile-{i}.zip", data, "application/zip"))
        at.run()
        no_exception(at)
        shown = at.error[0].value.replace("\\", "")   # the message as escaped for markdown, unescaped
        assert shown.startswith(f"hostile-{i}.zip") and reason in shown, (name, shown)
        assert OWN_MODEL_KEY not in at.session_state
        assert "model_choice" not in at.session_state
    again = open_page("attention", "banana")
    assert [m.value for m in again.metric] == [m.value for m in other.metric]


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_a_non_finite_number_from_a_crafted_client_is_refused_with_a_message(value):
    at = open_page("training", "level")
    at.radio(key="live_sizing").set_value("My own sizes").run()
    at.number_input(key="live_steps").set_value(value)
    next(b for b in at.button if b.label == "Start training").click().run()   # the form's submit: values read now
    no_exception(at)
    assert at.session_state["_refused_widget_values"] == 1
    assert at.number_input(key="live_steps").value == 800            # it kept the value it had
    run = own_shelf(at).live_run                                     # the submit went ahead with that value
    STARTED.append(run)                                              # stopped, and waited for, after the test
    assert run.settings.steps == 800
