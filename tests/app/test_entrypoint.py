"""The entrypoint: router, shared sidebar input and model card.

DESIGN.md records that Streamlit 1.66.0-1.67.0 dropped widgets created in an st.navigation entrypoint from
the AppTest tree after a rerun. Under 1.67.0, which requirements.txt pins, this app's entrypoint keeps them
(checked by the rerun test below, which fails if a version brings that behaviour back, so that the page tests'
approach can be revisited).
"""

from streamlit.testing.v1 import AppTest

from explorer.own_models import SERVER_MODEL

from .helpers import ROOT, no_exception, own_model_state


def run_app() -> AppTest:
    return AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()


def open_app(query: dict[str, str], page: str) -> AppTest:
    """The whole app opened from a link: these query parameters, then this page."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    return at.switch_page(f"app_pages/{page}.py").run()


def test_sidebar_has_the_shared_input_and_a_model_card(ckpt):
    at = run_app()
    assert not at.exception
    box = at.sidebar.text_input(key="text")
    assert box.value == "hello"
    card = " ".join(m.value for m in at.sidebar.markdown)
    c = ckpt.model.config
    assert f"{c.n_encoder_layers} encoder + {c.n_decoder_layers} decoder layers" in card
    assert f"{c.n_heads} heads" in card
    exact = ckpt.metrics["held_out"]["exact_match"]
    assert f"{exact:.2%}" in card


def test_home_is_the_default_page_and_shows_the_reversal():
    at = run_app()
    assert at.title[0].value.endswith("Attention explorer")
    assert any(m.value == "olleh" for m in at.metric)


def test_entrypoint_widgets_survive_a_rerun_in_the_pinned_streamlit():
    at = run_app()
    at.sidebar.text_input(key="text").set_value("level").run()
    assert not at.exception
    assert at.sidebar.text_input(key="text").value == "level"
    at.run()
    assert [t.key for t in at.sidebar.text_input] == ["text"]
    assert any(m.value == "level" for m in at.metric)


def test_text_from_the_url_fills_the_shared_input():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["text"] = "banana"
    at.run()
    assert at.sidebar.text_input(key="text").value == "banana"


def test_the_model_selector_appears_with_an_own_model_and_switches_every_page():
    from explorer.live_training import LiveSettings, LiveTraining
    run = LiveTraining(LiveSettings(layers=1, heads=2, d_model=16, steps=20, max_len=6))
    run.run()
    at = run_app()
    assert not [s for s in at.sidebar.selectbox if s.key == "model_choice"]   # nothing of its own yet: no selector
    for key, value in own_model_state(run.result, "Your model (20 steps, 0%)").items():
        at.session_state[key] = value
    at.run()
    selector = at.sidebar.selectbox(key="model_choice")
    assert selector.options == [SERVER_MODEL, "Your model (20 steps, 0%)"]
    selector.set_value("Your model (20 steps, 0%)").run()
    assert not at.exception
    card = " ".join(m.value for m in at.sidebar.markdown)
    assert "1 encoder + 1 decoder layers" in card and "2 heads" in card and "reads up to 6 characters" in card
    at.sidebar.selectbox(key="model_choice").set_value(SERVER_MODEL).run()
    assert "2 encoder + 2 decoder layers" in " ".join(m.value for m in at.sidebar.markdown)


def test_a_run_waits_while_two_others_hold_the_server(ckpt):
    """app.py runs inside server.gate's places: with both taken by other sessions, a run cannot finish until
    one is given back (here after 5 s; a run alone takes a fraction of that)."""
    import threading
    import time

    from server.gate import PLACES, server_gate

    gate = server_gate()
    taken, given_back = threading.Barrier(PLACES + 1), threading.Event()

    def hold(session: str) -> None:
        """Another session's run: holds its place (in its own thread, as Streamlit's would) for 5 s."""
        with gate.place(session):
            taken.wait()
            time.sleep(5)
            given_back.set()

    for i in range(PLACES):
        threading.Thread(target=hold, args=(f"another session {i}",), daemon=True).start()
    taken.wait()
    at = run_app()
    assert given_back.is_set()  # the run finished only after a place was free
    assert any(m.value == "olleh" for m in at.metric)


def test_a_session_in_debt_at_the_gate_still_runs_under_apptest(ckpt):
    """AppTest's Runtime is a mock without a session manager: asking who else is connected must answer "nobody",
    not raise, when a session in debt asks whether it must rest (every AppTest run is one session id)."""
    import time

    from server.gate import MAX_REST, SHARE, _connected_sessions, server_gate

    assert _connected_sessions() == []
    gate = server_gate()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    with gate._lock:                                   # in debt: the most a session can owe
        gate._spent["test session id"] = (-MAX_REST * SHARE, time.monotonic())
    at.run()
    assert not at.exception and any(m.value == "olleh" for m in at.metric)


def test_an_own_model_is_named_in_the_url_and_a_session_without_it_says_it_is_gone():
    from explorer.live_training import LiveSettings, LiveTraining
    run = LiveTraining(LiveSettings(layers=1, heads=2, d_model=16, steps=20, max_len=6))
    run.run()
    at = run_app()
    for key, value in own_model_state(run.result, "Your model").items():
        at.session_state[key] = value
    at.run()
    assert at.query_params["model"] == "own"              # while it is shown
    shown = "Every page shows your own model (reverse). Pressing a task above shows its bundled model instead."
    assert [c.value.replace("\\", "") for c in at.sidebar.caption if "own model" in c.value] == [shown]   # Task
    url = dict(at.query_params)            # buttons still show the bundled task: the sidebar says which is shown
    at.sidebar.selectbox(key="model_choice").set_value(SERVER_MODEL).run()
    assert "model" not in at.query_params                # the bundled one again
    assert not [c for c in at.sidebar.caption if "own model" in c.value]
    assert not at.sidebar.warning

    elsewhere = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    for key, value in url.items():                        # the same URL in a session that never held the model
        elsewhere.query_params[key] = value
    elsewhere.run()
    warnings = [w.value for w in elsewhere.sidebar.warning]
    assert len(warnings) == 1 and "model of your own" in warnings[0], warnings
    assert "model" not in elsewhere.query_params
    assert "2 encoder + 2 decoder layers" in " ".join(m.value for m in elsewhere.sidebar.markdown)
    elsewhere.switch_page("app_pages/attention.py").run()
    assert not elsewhere.exception and not elsewhere.sidebar.warning   # said once


def test_the_text_can_be_changed_from_the_top_of_the_page_body():
    at = open_app({"text": "level"}, "attention")
    no_exception(at)
    [quick] = [p for p in at.main.get("popover") if "Your text" in p.proto.popover.label]
    assert "level" in quick.proto.popover.label
    at.text_input(key="quick_text").set_value("banana").run()                    # as Enter sends it
    no_exception(at)
    assert at.session_state["text"] == "banana" and at.text_input(key="text").value == "banana"   # the sidebar's too
    assert "banana" in [p for p in at.main.get("popover") if "Your text" in p.proto.popover.label][0].proto.popover.label


def test_the_sidebar_says_what_the_model_writes_in_a_line_the_protocol_driver_reads():
    """Not a heading (the sidebar comes before the page's h1), and in the form drivers.protocol_session parses."""
    from drivers.protocol_session import WRITES, Answer
    from explorer.frame import WRITES as DRAWN

    at = open_app({"text": "banana"}, "attention")
    no_exception(at)
    lines = [m.value for m in at.sidebar.markdown]
    assert WRITES == DRAWN and not any(line.startswith("#") for line in lines)
    assert Answer(0.0, markdown=lines).model_writes == "ananab"
