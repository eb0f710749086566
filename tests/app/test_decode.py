"""Decode step by step: every step of the decoding sent at once (viz.decode_steps), read here against the model run
again step by step without the page's single traced pass. The browser's drawing of them, and its buttons, keys and
slider, are tested in tests/e2e/test_browser.py."""

import numpy as np
import pytest
import torch

from analysis.labels import token_label
from transformer import decoding
from transformer.decoding import next_token_probs
from transformer.vocab import SOS

from .helpers import decode_parts, decode_sentences, no_exception, open_page
from .test_entrypoint import open_app


def step_pass(ckpt, src, prefix):
    """The model over one step's own prefix, independent of the page's single traced pass."""
    with torch.inference_mode():
        return ckpt.model(torch.tensor([src]), torch.tensor([[SOS, *prefix]]), trace=True)


def test_every_step_is_sent_with_what_it_reads_chooses_and_its_distribution(ckpt):
    at = open_page("decode", "banana")
    no_exception(at)
    assert not at.get("plotly_chart") and "step" not in at.session_state     # no widget: the browser steps
    parts = decode_parts(at)
    step = parts["step"]
    assert step["chosen"] == 0 and len(step["views"]) == 7 == len(parts["looked"]["views"])   # 6 letters and ⟨/s⟩
    assert [v["input"] for v in step["views"][:4]] == ["⟨s⟩", "⟨s⟩ a", "⟨s⟩ a n", "⟨s⟩ a n a"]
    assert [v["chosen"] for v in step["views"]] == ["a", "n", "a", "n", "a", "b", "⟨/s⟩"]
    assert [v["written"] for v in step["views"]] == ["a", "an", "ana", "anan", "anana", "ananab", "ananab"]
    assert any("read through the decoder as a draft in one pass" in c.value for c in at.caption)   # how decided
    src = ckpt.vocab.encode("banana", 24)
    greedy = decoding.generate(ckpt.model, src)
    for t in (0, 3, 6):
        expected = torch.softmax(step_pass(ckpt, src, greedy[:t]).logits[0, -1], -1).numpy()
        view = step["views"][t]
        assert np.allclose(view["probs"], expected, atol=1e-6)
        assert view["bar_order"] == list(np.argsort(-expected, kind="stable")[:10])
        assert view["chosen_id"] == int(expected.argmax()) == view["bar_order"][0]          # greedy: the tallest bar
        assert view["p"] == f"p = {expected.max():.3f}"
        assert [token for token, _ in view["top"]] == [token_label(ckpt.vocab, i) for i in view["bar_order"][:8]]
    assert step["labels"] == [token_label(ckpt.vocab, i) for i in range(ckpt.vocab.size)]
    assert "Next-token distribution at step 3: the likeliest next token is n" in step["views"][3]["bar_summary"]


@pytest.mark.parametrize("layer, head", [(0, 1), (1, 3)])
def test_attention_rows_match_the_model_trace_for_the_chosen_layer_and_head(ckpt, layer, head):
    at = open_page("decode", "level")
    at.selectbox(key="step_layer").set_value(layer).run()
    at.selectbox(key="step_head").set_value(head).run()
    no_exception(at)
    looked = decode_parts(at)["looked"]
    assert (looked["layer"], looked["head"]) == (layer, head)      # the head whose row the browser outlines
    assert looked["source"] == list("level") and looked["heads"] == [f"head {h}" for h in range(4)]
    src = ckpt.vocab.encode("level", 24)
    greedy = decoding.generate(ckpt.model, src)
    for t in (0, 2, 5):
        step = step_pass(ckpt, src, greedy[:t])
        cross = step.trace["cross", layer][0, :, -1].numpy()           # (H, S)
        own = step.trace["decoder_self", layer][0, :, -1].numpy()      # (H, t + 1)
        view = looked["views"][t]
        assert np.allclose(view["cross"], cross, atol=1e-6)
        self_all = np.array(view["self"])
        assert np.allclose(self_all[:, :t + 1], own, atol=1e-6)
        assert np.all(self_all[:, t + 1:] == 0)                        # the future, under the causal mask
        assert f"Head {head} puts its largest weight ({cross[head].max():.3f})" in view["cross_sentence"]


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
    view = decode_parts(at)["step"]["views"][0]
    shown = np.array(view["probs"])
    assert np.count_nonzero(shown > 0) == 5
    assert np.allclose(shown, expected.numpy(), atol=1e-6)
    assert view["chosen"] == token_label(ckpt.vocab, first) and view["chosen_id"] == first
    assert first == decoding.decide(ckpt.model, src, 3.0, 5, 7).chosen[0]
    assert "These tokens were sampled" in decode_parts(at)["looked"]["draft"]


def test_temperature_bars_show_the_same_step_at_five_temperatures():
    at = open_page("decode", "hello")
    step = decode_parts(at)["step"]
    names = ["T = 0.5", "T = 1", "T = 3", "T = 5", "T = 10"]
    assert step["temperature_names"] == names
    view = step["views"][0]
    by_temperature = np.array(view["temperatures"])                    # (5, V)
    assert by_temperature.shape == (5, len(step["labels"])) and np.allclose(by_temperature.sum(axis=1), 1, atol=1e-5)
    assert view["temperature_order"] == list(np.argsort(-by_temperature[1], kind="stable")[:8])   # the top 8 at T = 1
    peaks = by_temperature.max(axis=1)
    assert peaks[0] >= peaks[1] > peaks[2] > peaks[3] > peaks[4]   # at T = 0.5 the top p may already be 1.000
    caption = view["temperature_caption"]
    assert f"T = 0.5: top p = {peaks[0]:.3f}" in caption and f"T = 10: top p = {peaks[4]:.3f}" in caption
    top = step["labels"][view["temperature_order"][0]]
    assert view["temperature_summary"].startswith(f"The same step at different temperatures: token {top} has "
                                                  f"probability {by_temperature[0, view['temperature_order'][0]]:.3f}")


def test_query_parameters_open_the_same_step_layer_and_head():
    at = open_app({"text": "level", "step": "3", "step_layer": "0", "step_head": "2"}, "decode")
    no_exception(at)
    assert at.session_state["text"] == "level"
    assert (at.session_state["step_layer"], at.session_state["step_head"]) == (0, 2)
    parts = decode_parts(at)
    assert parts["step"]["chosen"] == parts["looked"]["chosen"] == 3           # the step the browser opens on
    assert parts["step"]["views"][3]["input"] == "⟨s⟩ l e v"
    assert (parts["looked"]["layer"], parts["looked"]["head"]) == (0, 2)
    assert at.query_params["step"] == "3"                                      # kept in the link
    assert not parts["looked"]["show_cache"]
    shown = open_app({"text": "level", "show_cache": "true"}, "decode")
    assert decode_parts(shown)["looked"]["show_cache"] and decode_parts(shown)["step"]["chosen"] == 0


def test_a_step_past_the_texts_last_opens_the_last_and_a_malformed_one_is_named():
    """The URL's step is also the one the browser kept from a longer word, read by the rerun a new word makes: a
    number past the last step is the last, as the browser brings its own in range, with no notice."""
    at = open_app({"text": "ab", "step": "9"}, "decode")            # ab is decoded in 3 steps
    no_exception(at)
    parts = decode_parts(at)                                      # both parts read the step: they agree
    assert parts["step"]["chosen"] == parts["looked"]["chosen"] == 2 and at.query_params["step"] == "9"
    assert not [n for n in at.info if "could not be used" in n.value]
    at = open_app({"text": "ab", "step": "-1"}, "decode")
    parts = decode_parts(at)
    assert parts["step"]["chosen"] == parts["looked"]["chosen"] == 0 and "step" not in at.query_params
    assert any("value for step (-1) could not be used" in n.value.replace("\\", "") for n in at.info)   # named
    # (tests/app/test_hostile_links.py: other values no page can use)


def test_the_cache_section_says_what_step_t_keeps_with_its_keys_and_values(ckpt):
    at = open_app({"text": "level", "step_layer": "1", "step_head": "2"}, "decode")
    no_exception(at)
    looked = decode_parts(at)["looked"]
    view = looked["views"][3]
    assert "reads, per head, 4 keys and values: 3 kept in the cache from the steps before, and 1 computed now" in (
        view["reads"])
    assert "6 steps), one step at a time, each decoder layer computes 6 positions with the cache" in view["cost"]
    assert "21 positions" in view["cost"]
    assert "agreed at every position, so all 6 steps came from it" in looked["draft"]
    assert looked["row_labels"] == ["⟨s⟩", "l", "e", "v", "e", "l"]
    src = ckpt.vocab.encode("level", 24)
    prefix = step_pass(ckpt, src, list(decoding.generate(ckpt.model, src)[:5])).trace
    for name in ("keys", "values"):                    # step t shows rows 0..t of these, row t outlined as new
        expected = prefix.attention("decoder_self", 1, name)[0, 2].numpy()             # (6, d_k)
        assert np.allclose(looked[name], expected, atol=1e-5)


def test_a_steps_sentences_come_as_html_with_their_bold():
    said = decode_sentences(open_page("decode", "level"), 2)
    assert "<strong>Cross-attention</strong>" in said and "**" not in said       # the browser writes no markdown
