"""What the quizzes measure: a learner's two scores and gain, a class's gain with a bootstrap interval over its
students, and how each item behaves (difficulty and discrimination). Streamlit-free, so every figure the quiz
pages show has a unit test.

The gain is Hake's normalised gain, g = (post − pre) / (1 − pre): the share of what was left to learn that was
learnt. For a class it is computed from the class's mean scores (Hake's "average normalised gain"), over the
students who took both quizzes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .quiz import Quiz

RESAMPLES = 2000          # bootstrap resamples of the class's students
MIN_FOR_INTERVAL = 5      # fewer students than this get no interval: a bootstrap of 1–4 students has 1–35
                          # distinct resamples, and its percentiles understate the uncertainty
LECTURE_GAIN, INTERACTIVE_GAIN = 0.23, 0.48   # Hake (1998): means of traditional and interactive courses


def gain(pre: float, post: float) -> float | None:
    """Hake's normalised gain; None when the first score left nothing to gain."""
    return None if pre >= 1 else (post - pre) / (1 - pre)


@dataclass(frozen=True)
class Missed:
    index: int        # the item's place in the quiz, from 0
    concept: str
    page: str         # the page that shows it (explorer.pages id)
    picked: str | None
    answer: str
    why: str


@dataclass(frozen=True)
class LearnerResult:
    before: float | None    # share right, or None while that quiz is not handed in
    after: float | None
    right_before: int
    right_after: int
    items: int
    missed: tuple[Missed, ...]   # the after quiz's wrong items (the before quiz's while there is no after)

    @property
    def gain(self) -> float | None:
        return None if self.before is None or self.after is None else gain(self.before, self.after)


def missed_items(quiz: Quiz, answers: Sequence[str | None]) -> tuple[Missed, ...]:
    return tuple(Missed(i, item.concept, item.page, picked, item.question.answer, item.question.why)
                 for i, (item, picked, right) in enumerate(zip(quiz.items, answers, quiz.marks(answers)))
                 if not right)


def learner_result(before: Quiz, after: Quiz, before_answers: Sequence[str | None] | None,
                   after_answers: Sequence[str | None] | None) -> LearnerResult:
    marks_before = before.marks(before_answers) if before_answers is not None else None
    marks_after = after.marks(after_answers) if after_answers is not None else None
    shown = (missed_items(after, after_answers) if after_answers is not None
             else missed_items(before, before_answers) if before_answers is not None else ())
    return LearnerResult(
        None if marks_before is None else sum(marks_before) / len(marks_before),
        None if marks_after is None else sum(marks_after) / len(marks_after),
        sum(marks_before or ()), sum(marks_after or ()), len(after.items), shown)


@dataclass(frozen=True)
class ClassGain:
    students: int             # who took both quizzes
    pre: float | None         # the class's mean share right before
    post: float | None
    gain: float | None
    low: float | None         # the bootstrap 95 % interval (None under MIN_FOR_INTERVAL students)
    high: float | None
    undefined: int            # resamples whose "before" mean was 100 %, so they have no gain

    @property
    def interval_width(self) -> float | None:
        return None if self.low is None or self.high is None else self.high - self.low


def class_gain(pre: Sequence[float], post: Sequence[float], resamples: int = RESAMPLES,
               seed: int = 0) -> ClassGain:
    """The class's normalised gain from its mean scores, with a percentile bootstrap 95 % interval over its
    students (resampled with replacement; `pre[i]` and `post[i]` are one student's two scores). Only students
    are resampled: the items, and how hard one form is beside the other, are taken as they are."""
    before, after = np.asarray(pre, dtype=float), np.asarray(post, dtype=float)   # (N,) each
    if before.shape != after.shape:
        raise ValueError("one 'before' and one 'after' score per student")
    n = len(before)
    if n == 0:
        return ClassGain(0, None, None, None, None, None, 0)
    pre_mean, post_mean = float(before.mean()), float(after.mean())
    picks = np.random.default_rng(seed).integers(0, n, size=(resamples, n))      # (R, N) students drawn
    pre_r, post_r = before[picks].mean(1), after[picks].mean(1)                   # (R,) each
    defined = pre_r < 1
    gains = (post_r[defined] - pre_r[defined]) / (1 - pre_r[defined])
    low, high = ((float(np.percentile(gains, 2.5)), float(np.percentile(gains, 97.5)))
                 if gains.size and n >= MIN_FOR_INTERVAL else (None, None))
    return ClassGain(n, pre_mean, post_mean, gain(pre_mean, post_mean), low, high, int((~defined).sum()))


@dataclass(frozen=True)
class ItemStats:
    index: int
    concept: str
    students: int
    share_right: float | None          # difficulty: the share who got it right
    discrimination: float | None       # the correlation of getting it right with the rest of the score


def item_stats(quiz: Quiz, marks: np.ndarray) -> list[ItemStats]:
    """`marks`: (students, items) 1 right, 0 wrong. Discrimination is the corrected item-total correlation:
    the item against the score on the other items, so an item is not correlated with itself. None where either
    side does not vary (everyone right, or every rest score equal), and under MIN_FOR_INTERVAL students, whose
    correlation swings to -0.87 on one answer (the review's class of 3)."""
    marks = np.asarray(marks, dtype=float).reshape(-1, len(quiz.items))     # (N, I)
    rows = []
    for i, item in enumerate(quiz.items):
        right = marks[:, i]                                                  # (N,)
        rest = marks.sum(1) - right                                          # (N,)
        varies = len(right) >= MIN_FOR_INTERVAL and right.std() > 0 and rest.std() > 0
        rows.append(ItemStats(i, item.concept, len(right), float(right.mean()) if len(right) else None,
                              float(np.corrcoef(right, rest)[0, 1]) if varies else None))
    return rows


def score_counts(scores_right: Sequence[int], items: int) -> list[int]:
    """How many students had 0, 1, … `items` right."""
    counts = [0] * (items + 1)
    for s in scores_right:
        counts[int(s)] += 1
    return counts


def gain_words(g: float | None, students: int) -> str:
    """A class's gain set against Hake's two reference means, as a reference only: those are averages of whole
    courses on a 30-item test, this is one class on eight items."""
    if g is None:
        return "No gain can be computed: the first quiz left nothing to gain."
    if g < 0:
        return f"g = {g:.2f}: the class's second score is lower than its first."
    ref = ("under the {l:.2f} of traditional lecture courses" if g < LECTURE_GAIN else
           "between the {l:.2f} of traditional lecture courses and the {i:.2f} of interactive ones"
           if g < INTERACTIVE_GAIN else "at or above the {i:.2f} of interactive courses")
    return (f"g = {g:.2f}: {ref.format(l=LECTURE_GAIN, i=INTERACTIVE_GAIN)} in Hake's survey of physics courses, "
            f"a reference only: those are course averages on a 30-item test, this is {students} "
            f"student{'s' if students != 1 else ''} on eight items.")


# --- A class ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class FormReport:
    form: str
    scores: dict[int, int]            # seat number -> items right (a student with any answer in this form)
    counts: list[int]                 # students with 0, 1, … items right
    items: list[ItemStats]

    @property
    def students(self) -> int:
        return len(self.scores)

    @property
    def mean_share(self) -> float | None:
        n = len(self.items)
        return sum(self.scores.values()) / (n * len(self.scores)) if self.scores else None


@dataclass(frozen=True)
class ClassReport:
    before: FormReport
    after: FormReport
    gain: ClassGain                   # over the students who took both


def form_report(quiz: Quiz, answers: dict[int, dict[int, str]]) -> FormReport:
    """`answers`: seat number -> {item: option}; an item a student left out counts as wrong."""
    seats = sorted(answers)
    marks = np.array([quiz.marks([answers[s].get(i) for i in range(len(quiz.items))]) for s in seats],
                     dtype=float).reshape(len(seats), len(quiz.items))                      # (N, I)
    scores = {s: int(m.sum()) for s, m in zip(seats, marks)}
    return FormReport(quiz.form, scores, score_counts(scores.values(), len(quiz.items)), item_stats(quiz, marks))


def class_report(before: Quiz, after: Quiz, rows: Sequence[tuple[str, int, int, str]]) -> ClassReport:
    """`rows`: (form, seat number, item, option) for every answer the class handed in."""
    by_form: dict[str, dict[int, dict[int, str]]] = {"before": {}, "after": {}}
    for form, seat, item, option in rows:
        by_form[form].setdefault(seat, {})[item] = option
    reports = {q.form: form_report(q, by_form[q.form]) for q in (before, after)}
    both = sorted(reports["before"].scores.keys() & reports["after"].scores.keys())
    n_before, n_after = len(before.items), len(after.items)
    result = class_gain([reports["before"].scores[s] / n_before for s in both],
                        [reports["after"].scores[s] / n_after for s in both])
    return ClassReport(reports["before"], reports["after"], result)
