"""The learner's quiz page under AppTest: the before quiz, the after quiz, both scores and the gain, the missed
items with their pages; the link keeps the seed and the answers; a hand-edited link is refused quietly."""

from __future__ import annotations

from explorer import quiz as glue
from explorer.cache import checkpoint_for
from explorer.classes import CLASS_MODEL_KEY
from teaching.quiz import build_quiz, lab_head_costs

from .helpers import no_exception, open_page

SEED = 1234


def quizzes():
    ckpt = checkpoint_for(CLASS_MODEL_KEY)
    costs = lab_head_costs(CLASS_MODEL_KEY, ckpt.model, ckpt.vocab, ckpt.task)
    return {f: build_quiz(ckpt.model, ckpt.vocab, ckpt.task, SEED, f, costs) for f in ("before", "after")}


def answer(at, quiz, picks):
    """Pick an option in each radio of the open form, then hand in."""
    radios = [r for r in at.radio if r.key and r.key.startswith("quiz_")]
    assert len(radios) == len(quiz.items)
    for radio, item, pick in zip(radios, quiz.items, picks):
        assert tuple(radio.options) == item.question.options
        if pick is not None:
            radio.set_value(pick)
    next(b for b in at.button if "Hand in" in b.label).click().run()
    no_exception(at)


def wrong(item):
    return next(o for o in item.question.options if o not in item.question.answers)


def test_a_learner_takes_both_quizzes_and_sees_the_gain_and_where_to_look(monkeypatch):
    q = quizzes()
    at = open_page("quiz", None, query={"quiz": str(SEED)})
    no_exception(at)
    assert [s.value for s in at.header] == ["1 · Before the lesson"]
    # before: the first four right, the rest wrong (one left blank)
    before = [i.question.answer for i in q["before"].items[:4]] + [wrong(i) for i in q["before"].items[4:7]] + [None]
    answer(at, q["before"], before)
    assert "First quiz handed in: 4 of 8 right" in " ".join(s.value for s in at.success)
    assert at.query_params["before"] == glue.encode_answers(q["before"], before)
    # after: all right but item 3
    after = [i.question.answer for i in q["after"].items]
    after[2] = wrong(q["after"].items[2])
    answer(at, q["after"], after)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics == {"Before": "4 of 8", "After": "7 of 8", "Normalised gain": f"{(7 / 8 - 4 / 8) / (1 - 4 / 8):.2f}"}
    body = " ".join(m.value for m in at.markdown).replace("\\", "")   # as shown, escapes removed
    assert q["after"].items[2].concept in body and q["after"].items[2].question.answer in body
    assert "g = (after − before) / (100 % − before)" in " ".join(c.value for c in at.caption)


def test_the_link_brings_the_answers_back_and_an_odd_link_is_ignored():
    q = quizzes()
    picks = [i.question.answer for i in q["before"].items]
    at = open_page("quiz", None, query={"quiz": str(SEED), "before": glue.encode_answers(q["before"], picks)})
    no_exception(at)
    assert "8 of 8 right" in " ".join(s.value for s in at.success)
    assert [s.value for s in at.header] == ["2 · After the lesson"]
    for odd in ({"quiz": "99999999999999"}, {"quiz": "-3"}, {"quiz": "abc"}, {"quiz": "²"}, {"quiz": "١٢"},
                {"quiz": str(SEED), "before": "²-------"},
                {"quiz": str(SEED), "before": "9999999x"}, {"quiz": str(SEED), "after": "0" * 500}):
        at = open_page("quiz", None, query=odd)
        no_exception(at)
        assert [s.value for s in at.header] == ["1 · Before the lesson"]   # nothing taken from the link


def test_codecs_round_trip():
    q = quizzes()["after"]
    picks = [i.question.options[-1] for i in q.items]
    picks[0] = None
    text = glue.encode_answers(q, picks)
    assert text[0] == glue.UNANSWERED and glue.decode_answers(q, text) == picks
    assert glue.decode_answers(q, text[:-1]) is None


def test_the_quiz_keeps_the_sidebars_text_in_the_link():
    at = open_page("quiz", "banana", query={"text": "banana", "task": "copy"})
    no_exception(at)
    assert at.query_params["text"] == "banana" and at.query_params["task"] == "copy" and "quiz" in at.query_params
