"""The entrypoint: router, shared sidebar input and model card.

Streamlit 1.66-1.67 drop widgets created in an st.navigation entrypoint from the AppTest tree after
a rerun (see DESIGN.md); 1.65.0, which requirements.txt pins, keeps them. The rerun test below
fails if an upgrade brings that behaviour back, so the page tests' approach can be revisited.
"""

from streamlit.testing.v1 import AppTest

from .helpers import ROOT


def run_app() -> AppTest:
    return AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()


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
