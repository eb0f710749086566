"""Sentences the pages say about this model, each checked against the model's own numbers (issue 12)."""

import math

import numpy as np
import pytest

from analysis.positional import largest_rise, similarity
from transformer.data import held_out_strings
from transformer.intervention import Intervention
from transformer.layers import sinusoidal_encoding
from transformer.metrics import exact_match

from .helpers import canvas_charts, decode_parts, decode_sentences, no_exception, open_page


def text_of(at) -> str:
    return " ".join([m.value for m in at.markdown] + [c.value for c in at.caption])


def test_no_positions_says_this_model_needs_its_target_codes_with_the_measured_share(ckpt):
    at = open_page("lab_positions", "banana")
    no_exception(at)
    edit = Intervention(positions="zero", sides=frozenset({"target"}))
    share = exact_match(ckpt.model, ckpt.vocab, held_out_strings(200, ckpt.model.config.max_len), edit).exact_match
    assert f"in the decoder alone, this model gets {share:.1%} of 200 held-out words exactly right" in text_of(at)
    assert ("it cannot do without its target codes" in text_of(at)) == (share < 0.5)
    assert "In the **encoder**, only the positional encoding" in text_of(at)


def test_positional_page_shows_that_similarity_does_not_fall_steadily(ckpt):
    at = open_page("positional", "banana")
    no_exception(at)
    positions = ckpt.model.config.max_len + 1
    row = similarity(sinusoidal_encoding(positions, ckpt.model.config.d_model)).numpy()[0]
    low, rise = largest_rise(row)
    assert low < rise and row[rise] > row[low] + 1                      # a real climb, not rounding
    assert all(row[rise] - row[lo] <= row[rise] - row[low] + 1e-6 for lo in range(1, rise))
    assert f"PE(0)·PE({low}) = {row[low]:.1f} is less than PE(0)·PE({rise}) = {row[rise]:.1f}" in text_of(at)
    assert sorted(row[1:])[-1] == row[1]          # "neighbours are the most alike"


def test_positional_page_gives_the_embedding_sizes_behind_the_scaling(ckpt):
    at = open_page("positional", "banana")
    raw = ckpt.model.src_embed.lookup.weight[ckpt.vocab.encode("banana", 24)].norm(dim=1)
    assert f"here they have length {float(raw.min()):.2f}–{float(raw.max()):.2f}" in text_of(at)
    assert "Unscaled, the code would be the larger." in text_of(at)
    assert float(raw.max()) < math.sqrt(ckpt.model.config.d_model / 2)


def test_training_defines_the_loss_and_the_chance_levels(ckpt):
    at = open_page("training", "banana")
    helps = " ".join(m.help or "" for m in at.metric)
    v = ckpt.model.config.vocab_size
    assert f"ln {v} = {math.log(v):.2f}" in helps
    assert "for a word as long as yours" not in helps      # chance is pooled over held-out steps (test_wording)
    assert "output steps of" in helps and "held-out words" in helps


def test_teacher_forcing_names_exposure_bias():
    at = open_page("lab_forcing", "banana")
    assert "**exposure bias**" in text_of(at) and "one parallel pass" in text_of(at)


def test_decode_calls_the_model_sure_only_when_a_moderate_temperature_leaves_the_top_token_ahead():
    at = open_page("decode", "banana")
    caption = decode_parts(at)["step"]["views"][0]["temperature_caption"]
    top_at_3 = float(caption.split("T = 3: top p = ")[1].split(",")[0])
    sure = "so only a large T spreads the probability" in caption
    assert sure == (top_at_3 > 0.5)
    assert np.isfinite(top_at_3)


def test_the_ablation_table_states_its_sampling_noise_instead_of_no_cost():
    at = open_page("lab_ablation", "banana")
    caption = " ".join(c.value for c in at.caption)
    assert "at no cost" not in caption
    assert "below about 1.5 points (95 %, the rule of three)" in caption and "±3.5 points" in caption


def test_head_averages_are_labelled_summaries():
    at = open_page("attention", "banana")
    assert "not something the model computes" in text_of(at)
    for page in ("lab_positions", "lab_forcing", "lab_length"):
        titles = [spec["title"] for spec in canvas_charts(open_page(page, "banana")).values()]
        assert any("(a summary)" in title for title in titles), page


def test_decode_says_why_the_later_positions_get_no_weight():
    at = open_page("decode", "banana")
    text = decode_sentences(at, 0)
    assert "one pass over the whole decoding" in text and "one parallel pass" in text
    assert "(exactly zero)" not in text


def test_positional_page_shows_the_mirror_needs_the_length():
    at = open_page("positional", "banana")
    no_exception(at)
    text = text_of(at)
    assert "**reflection** (determinant -1)" in text and "for your 6 characters and for 7" in text
    assert "the original paper's motivation" in text


@pytest.mark.slow   # 20 strings of every length to 96
def test_longer_than_trained_shows_the_failure_starts_at_the_first_step(ckpt):
    from analysis import lab
    at = open_page("lab_length", "hello")
    no_exception(at)
    table = at.dataframe[0].value
    expected = lab.first_failures(ckpt.model, ckpt.vocab, list(table["length"]), 10)
    assert np.allclose(table["p(correct first character)"], [f.p_step_0 for f in expected],   # stored on another
                       rtol=1e-4, atol=1e-9)                                                # CPU: float32 noise
    trained = ckpt.model.config.max_len
    past = table[table["length"] > trained]
    assert past["wrong from the first character"].mean() > 0.8          # measured: the failure starts at step 0
    assert (table[table["length"] <= trained]["exactly right"] == 1).all()
    assert "one reading is that the model's sense of where the text ends breaks" in text_of(at)


def test_heads_that_cost_a_lot_are_not_said_to_be_spared():
    at = open_page("lab_heads", "hello")
    text = text_of(at)
    table = at.dataframe[0].value
    top = table.sort_values("rank by pattern").head(4)
    if (top["exact match lost when off"] * 100 >= 2 * 50 / 200 ** 0.5).any():
        assert "copes without" not in text


def test_decode_shows_the_mask_in_the_teacher_forced_pass(ckpt):
    import torch

    from analysis.labels import weight_text
    from transformer.vocab import SOS
    at = open_page("decode", "banana")
    src = ckpt.vocab.encode("banana", 24)
    with torch.inference_mode():
        trace = ckpt.model(torch.tensor([src]), torch.tensor([[SOS, *ckpt.vocab.encode("ananab", 24)]]),
                           trace=True).trace
    above = float(np.triu(trace.stack_attention("decoder_self").numpy(), k=1).max())
    assert above == 0.0
    said = decode_sentences(at, 0)
    assert f"over every layer and head, is <strong>{weight_text(above)}</strong>" in said   # "0 (exactly)"
