"""Class mode's page model: from the class's state, its vote counts and the step's question to everything the
teacher's and the students' screens show (the spread, the share right in each round, the teacher's next move)
and the cells of the files the teacher downloads (teaching.gradebook). Streamlit-free, so every figure has a unit test."""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass

from .questions import Question

EXPLAIN_BELOW, MOVE_ON_ABOVE = 0.30, 0.70   # peer instruction's rule of thumb (Crouch & Mazur)
HELD_BACK = ("Your class is voting on this lesson's questions on this text: this answer comes when the teacher "
             "reveals it.")   # said wherever an answer is held back (classroom.store.ClassStore.held_steps)


@dataclass(frozen=True)
class Spread:
    """One round's votes over the question's options, in the question's order (the right one not marked)."""
    options: tuple[str, ...]
    counts: tuple[int, ...]
    total: int

    @property
    def shares(self) -> tuple[float, ...]:
        return tuple(c / self.total if self.total else 0.0 for c in self.counts)


@dataclass(frozen=True)
class RoundResult:
    round: int
    votes: int
    right: int

    @property
    def share_right(self) -> float | None:
        return self.right / self.votes if self.votes else None


def spread(question: Question, counts: Mapping[str, int]) -> Spread:
    """Votes for options the question no longer has (none, unless the class's text changed) are left out."""
    values = tuple(int(counts.get(o, 0)) for o in question.options)
    return Spread(question.options, values, sum(values))


def round_result(question: Question, round_: int, counts: Mapping[str, int]) -> RoundResult:
    shown = spread(question, counts)
    return RoundResult(round_, shown.total, sum(c for o, c in zip(shown.options, shown.counts)
                                                 if question.grade(o)))


def teacher_advice(result: RoundResult) -> str:
    """What the peer-instruction literature suggests after a round, from its share right."""
    share = result.share_right
    if share is None:
        return "No votes yet."
    said = f"{share:.0%} right ({result.right} of {result.votes})."
    if share < EXPLAIN_BELOW:
        return f"{said} Under {EXPLAIN_BELOW:.0%}: explain the idea again before a second vote."
    if share <= MOVE_ON_ABOVE:
        return (f"{said} Between {EXPLAIN_BELOW:.0%} and {MOVE_ON_ABOVE:.0%}: let neighbours convince each other, "
                "then start round 2.")
    return f"{said} Over {MOVE_ON_ABOVE:.0%}: most have it; reveal and move on."


def joined_line(joined: int, voted: int, voting: bool, round_: int, quiz_form: str | None = None,
                handed_in: int = 0) -> str:
    people = f"{joined} student{'s' if joined != 1 else ''} joined"
    if quiz_form is not None:
        return f"{people} · {handed_in} of {joined} handed in the {quiz_form} quiz"
    if not voting:
        return f"{people} · {voted} voted in round {round_} · voting closed"
    return f"{people} · {voted} of {joined} voted in round {round_}"


@dataclass(frozen=True)
class ProjectedFit:
    left: float           # the question's (or the answer's) type size, in rem: 1 is the page's own
    right: float          # the options', the count's and the spread's
    wide_options: bool    # an option too long for half a screen: the right column takes two thirds


def projected_scales(question: Question) -> ProjectedFit:
    """Type sizes that let the projector view hold a step's question, its options and the spread on one
    1280 × 720 screen in projector mode (measured on every step of the class's text in
    tests/e2e/test_class_mode_browser.py): smaller type rather than a screen that scrolls."""
    prompt, rows = len(question.prompt), len(question.options)
    longest = max(len(o) for o in question.options)
    room = 2 / 3 if longest > 30 else 1.0      # the left column is a third of the screen then, else a half
    left = 1.0 if prompt <= 200 * room else 0.8 if prompt <= 400 * room else 0.62
    right = (1.0 if rows <= 4 and longest <= 30 else
             0.8 if (rows <= 6 and longest <= 30) or (rows <= 4 and longest <= 70) else 0.62)
    return ProjectedFit(left, right, longest > 30)


def projected_line(joined: int, voted: int, voting: bool, round_: int, quiz_form: str | None = None,
                   handed_in: int = 0) -> str:
    """joined_line for the projector view's large type: short enough for half of a 1280-pixel screen."""
    if quiz_form is not None:
        return f"{handed_in} of {joined} handed in"
    return f"{voted} of {joined} voted · round {round_}" + ("" if voting else " · closed")


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value: object) -> str:
    """A cell a spreadsheet shows as text: one beginning like a formula gets a leading apostrophe. Its NFKC form
    is what is checked, as a spreadsheet may read a full-width ＝ or a small ﹢ as the plain sign."""
    text = str(value)
    return "'" + text if unicodedata.normalize("NFKC", text).startswith(FORMULA_STARTS) else text
