"""Arbitrary Unicode typed into the app: every case shows the reversal or the clear message, never a traceback."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .helpers import open_page

pytestmark = pytest.mark.slow   # the quick tier leaves it out: hundreds of hostile texts through the app

CASES = 120


def test_any_text_typed_into_the_app_gives_a_reversal_or_a_message(ckpt):
    outcomes = {"reversed": 0, "message": 0}

    @settings(max_examples=CASES, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
    @given(st.one_of(st.text(max_size=40), st.text(alphabet="abcdefghijklmnopqrstuvwxyzABC  ", max_size=30)))
    def case(text):
        at = open_page("home", text)
        assert not at.exception, (text, [e.value for e in at.exception])
        if at.error:
            assert len(at.error) == 1 and at.error[0].value
            outcomes["message"] += 1
        else:
            written = next(m.value for m in at.metric if m.label == "The model writes")
            assert written == ckpt.vocab.clean(text).text[::-1].replace(" ", "␣")
            outcomes["reversed"] += 1

    case()
    print(f"hypothesis: {sum(outcomes.values())} texts typed, {outcomes['reversed']} reversed, "
          f"{outcomes['message']} answered with a message")
    assert sum(outcomes.values()) == CASES
    assert outcomes["reversed"] > 0 and outcomes["message"] > 0
