"""What the quizzes report: Hake's gain, its bootstrap interval over a class, and each item's difficulty and
discrimination; and scripted classes on a real pair of quizzes showing the gain cannot be had by chance."""

from __future__ import annotations

import random

import numpy as np
import pytest

from teaching import quiz as qz
from teaching.quiz_results import (
    class_gain, gain, gain_words, item_stats, learner_result, score_counts,
)
from transformer.checkpoint import bundled_checkpoint, load


@pytest.fixture(scope="module")
def pair():
    ck = load(bundled_checkpoint("reverse"))
    costs = qz.lab_head_costs(bundled_checkpoint("reverse"), ck.model, ck.vocab, "reverse")
    return tuple(qz.build_quiz(ck.model, ck.vocab, "reverse", 11, form, costs) for form in qz.FORMS)


def random_answers(quiz: qz.Quiz, rng: random.Random) -> list[str]:
    return [rng.choice(item.question.options) for item in quiz.items]


def right_answers(quiz: qz.Quiz) -> list[str]:
    return [item.question.answer for item in quiz.items]


def test_hake_gain():
    assert gain(0.5, 0.75) == pytest.approx(0.5)
    assert gain(0.25, 1.0) == pytest.approx(1.0)
    assert gain(0.5, 0.25) == pytest.approx(-0.5)
    assert gain(1.0, 1.0) is None


def test_a_class_answering_at_random_has_an_interval_around_zero(pair):
    """200 scripted classes of 30 students, every answer drawn at random on both quizzes: the class gain's 95 %
    interval contains 0 in at least 90 % of them (a 95 % interval should, give or take the bootstrap's own
    error), and the gains centre on 0."""
    before, after = pair
    rng = random.Random(0)
    covered, gains = 0, []
    for c in range(200):
        pre = [before.score(random_answers(before, rng)) for _ in range(30)]
        post = [after.score(random_answers(after, rng)) for _ in range(30)]
        result = class_gain(pre, post, resamples=1000, seed=c)
        covered += result.low <= 0 <= result.high
        gains.append(result.gain)
    assert covered >= 180
    assert abs(np.mean(gains)) < 0.05


def test_a_class_right_on_every_after_item_gains_exactly_one(pair):
    before, after = pair
    rng = random.Random(1)
    pre = [before.score(random_answers(before, rng)) for _ in range(25)]
    post = [after.score(right_answers(after)) for _ in range(25)]
    result = class_gain(pre, post)
    assert result.gain == 1 and result.low == 1 and result.high == 1 and result.post == 1


def test_a_small_class_has_a_wider_interval_than_a_large_one(pair):
    before, after = pair
    rng = random.Random(2)

    def width(n: int) -> float:
        pre = [before.score(random_answers(before, rng)) for _ in range(n)]
        post = [after.score(right_answers(after) if rng.random() < 0.5 else random_answers(after, rng))
                for _ in range(n)]
        return class_gain(pre, post, seed=n).interval_width

    assert np.mean([width(5) for _ in range(10)]) > 2 * np.mean([width(60) for _ in range(10)])
    pre = [before.score(random_answers(before, rng)) for _ in range(4)]
    few = class_gain(pre, [1.0] * 4)
    assert few.gain == 1 and few.low is None and few.high is None      # under 5 students: no interval


def test_a_class_with_nothing_left_to_gain_and_an_empty_class():
    assert class_gain([1.0, 1.0], [1.0, 0.5]).gain is None
    empty = class_gain([], [])
    assert empty.students == 0 and empty.gain is None and empty.low is None
    with pytest.raises(ValueError):
        class_gain([0.5], [0.5, 0.75])


def test_difficulty_and_discrimination(pair):
    """An item only the strongest students get right discriminates; one everybody gets right has no
    discrimination to compute; the share right is the item's difficulty."""
    quiz = pair[1]
    n_items = len(quiz.items)
    marks = np.zeros((6, n_items))
    for s in range(6):
        marks[s, : 1 + s] = 1          # student s gets the first s + 1 items right
    marks[:, n_items - 1] = [0, 0, 0, 1, 1, 1]   # the last item: the three best students only
    marks[:, 0] = 1                    # the first item: everyone
    stats = item_stats(quiz, marks)
    assert stats[0].share_right == 1 and stats[0].discrimination is None
    assert stats[-1].share_right == 0.5 and stats[-1].discrimination > 0.8
    assert [s.concept for s in stats] == [i.concept for i in quiz.items]
    few = item_stats(quiz, marks[2:5])       # three students: no correlation is shown, however it comes out
    assert all(s.discrimination is None for s in few) and few[-1].share_right == 2 / 3


def test_learner_result_names_the_pages_of_missed_items(pair):
    before, after = pair
    picked = right_answers(after)
    picked[2] = next(o for o in after.items[2].question.options if o not in after.items[2].question.answers)
    result = learner_result(before, after, right_answers(before)[:4] + [None] * (len(before.items) - 4), picked)
    assert result.right_before == 4 and result.right_after == len(after.items) - 1
    assert result.gain == pytest.approx((result.after - result.before) / (1 - result.before))
    assert [m.index for m in result.missed] == [2] and result.missed[0].page == after.items[2].page
    alone = learner_result(before, after, right_answers(before), None)
    assert alone.after is None and alone.gain is None and alone.missed == ()


def test_score_counts_and_words():
    assert score_counts([0, 2, 2, 8], 8) == [1, 0, 2, 0, 0, 0, 0, 0, 1]
    assert "lecture" in gain_words(0.1, 20) and "interactive" in gain_words(0.6, 20)
    assert "lower" in gain_words(-0.2, 20) and "20 students on eight items" in gain_words(0.3, 20)
