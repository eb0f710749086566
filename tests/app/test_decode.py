import re

import numpy as np
import pytest
import torch

from analysis.labels import token_label
from transformer import decoding
from transformer.decoding import next_token_probs
from transformer.vocab import SOS

from .helpers import cell_rows, cell_table_with, cell_tables, html_bars, html_with, no_exception, open_page
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
    assert not at.get("plotly_chart")        # drawn in HTML: a new step sends no Plotly chart to draw again
    for title in ("Next-token distribution at step 0", "T = 10"):
        html_with(at, title)
    for title in ("Cross-attention at step 0", "Decoder self-attention at step 0"):
        cell_table_with(at, title)
    assert metric(at, "Decoder input at step 0") == "⟨s⟩"
    assert metric(at, "Chosen token") == "a"
    assert any("read through the decoder as a draft in one pass" in c.value for c in at.caption)   # how decided
    src = ckpt.vocab.encode("banana", 24)
    expected = torch.softmax(step_pass(ckpt, src, []).logits[0, -1], -1).numpy()
    bars = html_bars(html_with(at, "Next-token distribution at step 0"))
    top = np.argsort(-expected)[:10]
    assert [token for token, _, _ in bars] == [token_label(ckpt.vocab, i) for i in top]
    assert np.allclose([p for _, _, p in bars], expected[top], atol=1e-6)
    assert [series for _, series, _ in bars] == ["chosen"] + [""] * 9          # "a", the likeliest, is chosen


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
    cross_table = cell_table_with(at, f"Cross-attention at step 2, layer {layer}")
    assert np.allclose(np.stack(list(cell_rows(cross_table).values())), cross, atol=1e-6)
    outlined = re.findall(r'<tr data-row="([^"]+)" style="outline', cross_table)
    assert outlined == [f"head {head}"]                    # the chosen head's row is outlined
    self_table = cell_table_with(at, f"Decoder self-attention at step 2, layer {layer}")
    self_all = np.stack(list(cell_rows(self_table).values()))
    assert np.allclose(self_all[:, :3], own, atol=1e-6)
    assert np.all(self_all[:, 3:] == 0)  # the future, under the causal mask
    # repeated letters keep their own columns, each cell named by its position and letter
    assert "source position 3 (e): weight" in cross_table


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
    shown = np.array([p for _, _, p in html_bars(html_with(at, "Next-token distribution at step 0"))])
    assert np.count_nonzero(shown > 0) == 5
    assert np.isclose(shown.max(), expected.max().item(), atol=1e-6)
    assert metric(at, "Chosen token") == token_label(ckpt.vocab, first)
    assert first == decoding.decide(ckpt.model, src, 3.0, 5, 7).chosen[0]


def test_temperature_chart_shows_the_same_step_at_five_temperatures():
    at = open_page("decode", "hello")
    bars = html_bars(html_with(at, "T = 10"))
    names = ["T = 0.5", "T = 1", "T = 3", "T = 5", "T = 10"]
    assert [series for _, series, _ in bars[:5]] == names and len(bars) == 8 * 5      # eight tokens, five bars each
    peaks = [max(p for _, series, p in bars if series == name) for name in names]
    assert peaks[0] >= peaks[1] > peaks[2] > peaks[3] > peaks[4]   # at T = 0.5 the top p may already be 1.000
    caption = " ".join(c.value for c in at.caption)
    assert f"T = 0.5: top p = {peaks[0]:.3f}" in caption and f"T = 10: top p = {peaks[4]:.3f}" in caption


def test_query_parameters_open_the_same_step_layer_and_head():
    at = open_app({"text": "level", "step": "3", "step_layer": "0", "step_head": "2"}, "decode")
    no_exception(at)
    assert at.session_state["text"] == "level"
    assert (at.session_state["step"], at.session_state["step_layer"], at.session_state["step_head"]) == (3, 0, 2)
    assert metric(at, "Decoder input at step 3") == "⟨s⟩ l e v"
    cell_table_with(at, "Cross-attention at step 3, layer 0, every head (head 2 outlined)")


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


def test_the_cache_section_says_what_step_t_keeps_and_shows_it_on_request(ckpt):
    at = open_page("decode", "level", state={"step": 3, "step_layer": 1, "step_head": 2})
    no_exception(at)
    said = " ".join(m.value for m in at.markdown)
    assert "reads, per head, 4 keys and values: 3 kept in the cache from the steps before, and 1 computed now" in said
    assert "6 steps), one step at a time, each decoder layer computes 6 positions with the cache" in said
    assert "21 positions" in said
    assert any("agreed at every position, so all 6 steps came from it" in c.value for c in at.caption)
    assert not any("Keys, layer 1, head 2" in m for m in cell_tables(at))     # the tables wait for the toggle
    at.toggle(key="show_cache").set_value(True).run()
    no_exception(at)
    src = ckpt.vocab.encode("level", 24)
    prefix = step_pass(ckpt, src, list(decoding.generate(ckpt.model, src)[:3])).trace
    for name in ("keys", "values"):
        rows = cell_rows(cell_table_with(at, f"{name.capitalize()}, layer 1, head 2"))
        assert list(rows) == ["0: ⟨s⟩ (kept)", "1: l (kept)", "2: e (kept)", "3: v (new)"]
        expected = prefix.attention("decoder_self", 1, name)[0, 2].numpy()             # (4, d_k)
        assert np.allclose(np.stack(list(rows.values())), expected, atol=1e-5)
