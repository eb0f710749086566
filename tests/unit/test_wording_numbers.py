"""The Streamlit-free numbers behind issue 25's corrected sentences: the training story, the pooled chance level,
every head's share, the gap between copies of a letter, the zero that is exact, and a readable log axis."""

import math
import re

import numpy as np
import pytest

from analysis.labels import ffn_formula, weight_text
from analysis.repeats import copies_gap
from analysis.training import chance_share, head_shares, training_story
from viz.plotly_charts import xy_chart
from viz.plotly_charts import Series
from viz.training import learning_curves, live_curves


def shot(step, alignment, exact=0.0):
    return {"step": step, "fraction": step / 100, "loss": 1.0, "exact_match": exact, "alignment": alignment}


def test_the_story_finds_the_first_right_snapshot_and_the_first_with_most_steps_on_the_pattern():
    index = [shot(0, 0.04), shot(10, 0.12), shot(50, 0.55), shot(100, 0.72, 1.0)]
    story = training_story(index, {0: False, 10: True, 50: False, 100: True})
    assert story.first_right["step"] == 10 and story.first_most["step"] == 50 and story.last["step"] == 100
    assert story.output_first
    late = training_story(index, {0: False, 10: False, 50: False, 100: True})
    assert late.first_right["step"] == 100 and not late.output_first
    never = training_story(index[:2], {0: False, 10: False})
    assert never.first_right is None and never.first_most is None and not never.output_first
    assert training_story(index[:2], {0: False, 10: True}).output_first      # no snapshot has most steps on it


def test_chance_is_pooled_over_steps_not_one_over_the_learners_length():
    assert chance_share(["ab", "abcd"], "reverse").share == pytest.approx(2 / 6)   # words ÷ steps, not 1/2 or 1/4
    assert chance_share(["ab", "abcd"], "copy").steps == 6
    # sort: every position holding the same character counts: "aab" -> steps a, a, b with 2/3, 2/3, 1/3
    assert chance_share(["aab"], "sort").share == pytest.approx((2 / 3 + 2 / 3 + 1 / 3) / 3)


def test_head_shares_read_every_layer_of_the_final_report_in_order():
    shares = head_shares({"cross_attention_alignment": {"layer_1": [0.7, 0.2], "layer_0": [1.0, 0.5]}})
    assert [(s.layer, s.head, s.share) for s in shares] == [(0, 0, 1.0), (0, 1, 0.5), (1, 0, 0.7), (1, 1, 0.2)]
    assert head_shares({}) == []


def test_copies_gap_is_zero_only_when_every_query_weighs_the_copies_alike():
    weights = np.array([[0.2, 0.3, 0.3, 0.2], [0.1, 0.6, 0.1, 0.2]])       # (T, S) over "h l l o"
    assert copies_gap(weights, ["h", "l", "l", "o"]) == pytest.approx(0.5)
    assert copies_gap(weights[:1], ["h", "l", "l", "o"]) == 0
    assert copies_gap(weights, ["a", "b", "c", "d"]) is None


def test_a_weight_prints_exactly_zero_only_when_it_is():
    assert weight_text(0.0) == "0 (exactly)" and weight_text(-0.0) == "0 (exactly)"
    assert weight_text(0.04) == "0.04" and weight_text(3e-8) == "3e-08"


def test_the_ffn_formula_has_the_row_vector_shapes():
    formula = ffn_formula(64, 256)
    assert r"x W_1 + b_1" in formula and r"W_1 \in \mathbb{R}^{64\times256}" in formula
    assert r"W_2 \in \mathbb{R}^{256\times64}" in formula


def test_the_log_axis_ticks_are_plain_decimals_spanning_the_values():
    chart = xy_chart([Series("loss", np.array([1e-5, 0.3, 4.5]), "#000000", x=np.arange(3.0))], "", "step", "loss",
                     "", log_y=True)
    axis = chart.figure.layout.yaxis
    assert axis.type == "log" and list(axis.range) == [-5, 1]        # a log axis: each power of ten as far apart
    assert list(axis.ticktext) == ["0.00001", "0.0001", "0.001", "0.01", "0.1", "1", "10"]
    assert np.allclose(axis.tickvals, [10.0 ** p for p in range(-5, 2)])


def test_a_loss_of_zero_sits_on_the_log_axiss_floor_and_is_said_as_itself():
    chart = xy_chart([Series("loss", np.array([0.0, 0.02, 3.0]), "#000000", x=np.arange(3.0))], "", "step", "loss",
                     "", log_y=True)
    (line,) = chart.figure.data
    assert list(line.y) == [0.01, 0.02, 3.0] and list(line.customdata) == [0.0, 0.02, 3.0]   # the hover's values
    assert "%{customdata:.4~g}" in line.hovertemplate     # four significant figures: 0.00003 is not "0.0000"


def test_the_learning_curves_draw_the_uniform_guess_as_a_labelled_line():
    curve = [{"step": 0, "loss": 4.5, "exact_match": 0.0, "alignment": 0.04},
             {"step": 100, "loss": 0.01, "exact_match": 1.0, "alignment": 0.7}]
    (with_guess, _), (without, _) = learning_curves(curve, vocab_size=30), learning_curves(curve)
    assert [a.text for a in with_guess.figure.layout.annotations] == ["uniform guess: ln 30 = 3.40"]
    (guess,) = with_guess.figure.layout.shapes
    assert guess.y0 == guess.y1 == pytest.approx(math.log(30)) and guess.line.dash == "dash"
    assert not without.figure.layout.annotations and not without.figure.layout.shapes


def test_a_log_axis_with_no_value_above_zero_stands_on_its_floor():
    chart = xy_chart([Series("loss", np.zeros(3), "#000000", x=np.arange(3.0))], "", "step", "loss", "", log_y=True)
    assert list(chart.figure.layout.yaxis.range) == [-5, 0] and list(chart.figure.data[0].y) == [1e-5] * 3


def test_losses_of_zero_under_a_reference_line_stay_on_the_floor_and_the_line_in_view():
    (loss,) = live_curves(((1, 0.0), (2, 0.0)), (), 10, vocab_size=30)
    assert list(loss.figure.data[0].y) == [1e-5, 1e-5]                   # not at 1, where the guess's decade starts
    assert list(loss.figure.layout.yaxis.range) == [-5, 1]               # ln 30 = 3.40 drawn too
