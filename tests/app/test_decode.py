import numpy as np
import pytest
import torch

from analysis.labels import token_label
from transformer import decoding
from transformer.decoding import next_token_probs
from transformer.vocab import SOS

from .helpers import array, figures, no_exception, open_page
from .test_entrypoint import open_app


def step_pass(ckpt, src, prefix):
    """The model over one step's own prefix, independent of the page's single traced pass."""
    with torch.inference_mode():
        return ckpt.model(torch.tensor([src]), torch.tensor([[SOS, *prefix]]), trace=True)


def metric(at, label_start):
    return next(m.value for m in at.metric if m.label.startswith(label_start))


def test_first_step_shows_sos_its_distribution_and_four_charts(ckpt):
    at = open_page("decode", "banana")
    no_exception(at)
    charts = figures(at)
    assert set(charts) == {"probs", "temperatures", "cross", "self"}
    assert metric(at, "Decoder input at step 0") == "⟨s⟩"
    assert metric(at, "Chosen token") == "a"
    assert any("read as a draft in one pass" in c.value for c in at.caption)   # how the tokens were decided
    src = ckpt.vocab.encode("banana", 24)
    expected = torch.softmax(step_pass(ckpt, src, []).logits[0, -1], -1).numpy()
    bars = charts["probs"]["data"][0]
    top = np.argsort(-expected)[:10]
    assert list(bars["x"]) == [token_label(ckpt.vocab, i) for i in top]
    assert np.allclose(array(bars["y"]).astype(float), expected[top], atol=1e-6)


def test_step_controls_walk_to_the_end_and_the_decoded_word(ckpt):
    at = open_page("decode", "banana")
    assert at.button[1].disabled  # "Previous" at step 0; the buttons are First, Previous, Next, Last
    at.button[2].click().run()
    assert at.session_state["step"] == 1
    assert metric(at, "Decoder input at step 1") == "⟨s⟩ a"
    at.button[3].click().run()
    no_exception(at)
    assert at.session_state["step"] == 6
    assert at.button[2].disabled  # "Next" at the last step
    assert metric(at, "Chosen token") == "⟨/s⟩"
    assert metric(at, "Written so far") == "ananab"
    at.slider(key="step").set_value(3).run()
    assert metric(at, "Decoder input at step 3") == "⟨s⟩ a n a"
    at.button[0].click().run()
    assert at.session_state["step"] == 0


@pytest.mark.parametrize("layer, head", [(0, 1), (1, 3)])
def test_attention_rows_match_the_model_trace_for_the_chosen_layer_and_head(ckpt, layer, head):
    at = open_page("decode", "level", state={"step": 2})
    at.selectbox(key="step_layer").set_value(layer).run()
    at.selectbox(key="step_head").set_value(head).run()
    no_exception(at)
    src = ckpt.vocab.encode("level", 24)
    greedy = decoding.generate(ckpt.model, src)
    step = step_pass(ckpt, src, greedy[:2])
    cross = step.trace["cross", layer][0, :, -1].numpy()           # (H, S)
    own = step.trace["decoder_self", layer][0, :, -1].numpy()      # (H, 3)
    charts = figures(at)
    assert np.allclose(array(charts["cross"]["data"][0]["z"]).astype(float), cross, atol=1e-6)
    outline = charts["cross"]["layout"]["shapes"][0]      # the chosen head's row is outlined
    assert (outline["y0"], outline["y1"]) == (head - 0.5, head + 0.5)
    self_all = array(charts["self"]["data"][0]["z"]).astype(float)
    assert np.allclose(self_all[:, :3], own, atol=1e-6)
    assert np.all(self_all[:, 3:] == 0)  # the future, under the causal mask
    # repeated letters keep their own columns
    assert list(charts["cross"]["layout"]["xaxis"]["ticktext"]) == ["l", "e", "v", "e", "l"]


def test_sampling_uses_temperature_top_k_and_seed(ckpt):
    at = open_page("decode", "hello")
    at.segmented_control(key="mode").set_value("sample").run()
    at.slider[0].set_value(3.0).run()     # temperature
    at.slider[1].set_value(5).run()       # top-k
    at.number_input[0].set_value(7).run()
    no_exception(at)
    src = ckpt.vocab.encode("hello", 24)
    expected = next_token_probs(step_pass(ckpt, src, []).logits[0, -1], 3.0, 5)
    first = decoding.choose(expected, 3.0, 7, 0)
    bars = figures(at)["probs"]["data"][0]
    shown = array(bars["y"]).astype(float)
    assert np.count_nonzero(shown > 0) == 5
    assert np.isclose(shown.max(), expected.max().item(), atol=1e-6)
    assert metric(at, "Chosen token") == token_label(ckpt.vocab, first)
    assert first == decoding.decide(ckpt.model, src, 3.0, 5, 7).chosen[0]


def test_temperature_chart_shows_the_same_step_at_five_temperatures():
    at = open_page("decode", "hello")
    traces = figures(at)["temperatures"]["data"]
    assert [t["name"] for t in traces] == ["T = 0.5", "T = 1", "T = 3", "T = 5", "T = 10"]
    peaks = [float(array(t["y"]).astype(float).max()) for t in traces]
    assert peaks[0] >= peaks[1] > peaks[2] > peaks[3] > peaks[4]   # at T = 0.5 the top p may already be 1.000
    caption = " ".join(c.value for c in at.caption)
    assert f"T = 0.5: top p = {peaks[0]:.3f}" in caption and f"T = 10: top p = {peaks[4]:.3f}" in caption


def test_query_parameters_open_the_same_step_layer_and_head():
    at = open_app({"text": "level", "step": "3", "step_layer": "0", "step_head": "2"}, "decode")
    no_exception(at)
    assert at.session_state["text"] == "level"
    assert (at.session_state["step"], at.session_state["step_layer"], at.session_state["step_head"]) == (3, 0, 2)
    assert metric(at, "Decoder input at step 3") == "⟨s⟩ l e v"
    assert figures(at)["cross"]["layout"]["title"]["text"] == (
        "Cross-attention at step 3, layer 0, every head (head 2 outlined)")


def test_a_step_beyond_the_text_is_brought_back_in_range():
    at = open_app({"text": "ab", "step": "9"}, "decode")       # a link with a step this text does not have
    no_exception(at)
    assert at.session_state["step"] == 0
    at = open_app({"text": "banana"}, "decode")
    at.button[3].click().run()                                 # the last step of banana, step 6
    at.sidebar.text_input(key="text").set_value("ab").run()    # then a shorter word
    no_exception(at)
    assert at.session_state["step"] == 2
    assert metric(at, "Chosen token") == "⟨/s⟩"


def test_previous_and_next_move_from_the_step_a_link_opened():
    """A link's step is read by the slider; the buttons (and their ← → keys) must move from it, not from 0."""
    from .test_entrypoint import open_app
    at = open_app({"text": "level", "step": "3"}, "decode")
    previous, following = at.button[1], at.button[2]
    assert (previous.proto.shortcut, following.proto.shortcut) == ("left", "right")
    previous.click().run()
    assert at.session_state["step"] == 2
    at.button[2].click().run()
    at.button[2].click().run()
    assert at.session_state["step"] == 4
