from .helpers import no_exception, open_page, svg_charts


def metric(at, label):
    return next(m.value for m in at.metric if m.label == label)


def test_home_shows_the_reversal_and_the_real_architecture(ckpt):
    at = open_page("home", "banana")
    no_exception(at)
    assert metric(at, "You typed") == "banana"
    assert metric(at, "The model writes") == "ananab"
    diagram = svg_charts(at)["architecture"]
    c = ckpt.model.config
    assert f"Encoder layer × {c.n_encoder_layers}" in diagram and f"{c.d_model}→{c.d_ff}→{c.d_model}" in diagram
    assert f"{c.n_heads} heads × d_k {c.d_model // c.n_heads}" in diagram and not at.get("graphviz_chart")
    page_text = " ".join(m.value for m in at.markdown)
    assert "pre-norm" in page_text and "Tied." in page_text
    assert f"from {c.d_model} to {c.d_ff}" in page_text


def test_example_buttons_set_the_shared_text():
    at = open_page("home", "hello")
    at.button(key="example_aaab").click().run()          # repeated letters, and not a palindrome (issue 25)
    no_exception(at)
    assert at.session_state["text"] == "aaab"
    assert metric(at, "The model writes") == "baaa"


def test_spaces_are_shown_visibly():
    at = open_page("home", "ab cd")
    assert metric(at, "The model writes") == "dc␣ba"


def test_home_points_a_newcomer_to_the_lesson_first():
    from .test_entrypoint import open_app

    at = open_app({"text": "hello"}, "home")
    no_exception(at)
    [link] = [e for e in at.get("page_link") if "Start with the Lesson" in e.proto.label]
    assert link.proto.page == "lesson"
    assert at.get("page_link").index(link) == 0                  # the page's first link, under its title
