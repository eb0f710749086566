"""Class mode's page model: the spread in the question's order, the share right per round, the teacher's next
move by the peer-instruction thresholds, and cells no spreadsheet runs as formulas."""

import pytest

from teaching.class_mode import (
    EXPLAIN_BELOW, MOVE_ON_ABOVE, joined_line, projected_line, projected_scales, round_result, safe_cell, spread,
    teacher_advice,
)
from teaching.questions import Question

QUESTION = Question("choice", "Which?", ("left", "right", "=SUM(A1)"), frozenset({"right"}), "hint", "why")


def test_the_spread_keeps_the_questions_order_and_drops_unknown_options():
    shown = spread(QUESTION, {"=SUM(A1)": 2, "left": 1, "gone": 5})
    assert shown.options == QUESTION.options and shown.counts == (1, 0, 2) and shown.total == 3
    assert shown.shares == pytest.approx((1 / 3, 0, 2 / 3))
    assert spread(QUESTION, {}).shares == (0.0, 0.0, 0.0)


def test_the_share_right_counts_every_right_option_of_a_tie():
    tied = Question("choice", "Which?", ("a", "b", "c"), frozenset({"a", "b"}), "hint", "why")
    result = round_result(tied, 2, {"a": 3, "b": 1, "c": 4})
    assert (result.round, result.votes, result.right) == (2, 8, 4) and result.share_right == 0.5
    assert round_result(tied, 1, {}).share_right is None


@pytest.mark.parametrize("right, votes, says", [
    (0, 10, "explain the idea again"), (2, 10, "explain the idea again"), (3, 10, "neighbours"),
    (7, 10, "neighbours"), (8, 10, "move on"), (10, 10, "move on")])
def test_the_teachers_advice_follows_the_thresholds(right, votes, says):
    counts = {"right": right, "left": votes - right}
    advice = teacher_advice(round_result(QUESTION, 1, counts))
    assert says in advice and advice.startswith(f"{right / votes:.0%} right ({right} of {votes})")
    assert (EXPLAIN_BELOW, MOVE_ON_ABOVE) == (0.30, 0.70)


def test_no_votes_gives_no_advice_and_the_count_line_reads_right():
    assert teacher_advice(round_result(QUESTION, 1, {})) == "No votes yet."
    assert joined_line(1, 0, True, 1) == "1 student joined · 0 of 1 voted in round 1"
    assert joined_line(30, 28, False, 2) == "30 students joined · 28 voted in round 2 · voting closed"


@pytest.mark.parametrize("cell", ["=1+1", "+1", "-1", "@SUM(A1)", "\t=1", "\r=1",
                                  "＝1+1", "﹢1", "－1", "＠SUM(A1)"])   # full-width and small forms: NFKC
def test_a_cell_that_looks_like_a_formula_is_text(cell):
    assert safe_cell(cell) == "'" + cell
    assert safe_cell("Ann") == "Ann" and safe_cell(3) == "3"


def test_the_projected_count_is_short_and_the_answer_has_one_full_stop():
    assert projected_line(30, 28, True, 1) == "28 of 30 voted · round 1"
    assert projected_line(30, 28, False, 2) == "28 of 30 voted · round 2 · closed"
    assert projected_line(30, 0, False, 1, "before", 12) == "12 of 30 handed in"
    ends = Question("choice", "Which?", ("It reads n − i.", "no"), frozenset({"It reads n − i."}), "hint", "why")
    assert ends.answer_line == "The model's answer: It reads n − i." and QUESTION.answer_line.endswith("right.")


def test_the_projector_view_takes_smaller_type_only_for_long_questions_and_options():
    def q(prompt: int, options: list[int]) -> Question:
        opts = tuple(f"{i}" + "x" * (n - 1) for i, n in enumerate(options))
        return Question("choice", "p" * prompt, opts, frozenset({opts[0]}), "hint", "why")

    short = projected_scales(q(150, [20, 20, 20]))
    assert (short.left, short.right, short.wide_options) == (1.0, 1.0, False)
    assert projected_scales(q(300, [5] * 5)).left == 0.8 and projected_scales(q(300, [5] * 5)).right == 0.8
    assert projected_scales(q(500, [5] * 10)).right == 0.62 and projected_scales(q(500, [5] * 10)).left == 0.62
    wide = projected_scales(q(150, [185, 166, 103, 20]))       # step 13's: a third of the screen for the prompt
    assert (wide.left, wide.right, wide.wide_options) == (0.8, 0.62, True)
