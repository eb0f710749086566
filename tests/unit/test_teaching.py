"""The lesson's questions: each graded against the model's own numbers, right for the model in use (an early
training snapshot gives its own answers), and the teacher's sheet built from them."""

import numpy as np
import pytest

from analysis.lab import ablation_ranking
from analysis.run import Decoding, make_run
from teaching import questions as q
from teaching.glossary import GLOSSARY, TERMS_BY_PAGE
from teaching.sheet import sheet_html, sheet_markdown
from teaching.tour import INTRODUCTION_MINUTES, STEPS, WRAP_UP_MINUTES
from transformer.checkpoint import load_snapshot, snapshot_index
from transformer.intervention import Head, Intervention, every_head

from ..conftest import BUNDLED

TEXT = "banana"


@pytest.fixture(scope="module")
def early(bundled):
    """The bundled model at its second snapshot (1 % of its training run): another model, the same vocabulary."""
    return load_snapshot(BUNDLED, snapshot_index(BUNDLED)[1]["step"])


def runs(model, vocab, text=TEXT):
    return {
        "greedy": make_run(model, vocab, text),
        "taught": make_run(model, vocab, text, Decoding(teacher=True)),
        "shuffled": make_run(model, vocab, text, edit=Intervention(positions="shuffle", sides=frozenset({"source"}))),
        "forced": make_run(model, vocab, text, Decoding(forced=((0, vocab.encode("z", 1)[0]),))),
        "encoder_off": make_run(model, vocab, text, edit=Intervention(frozenset(
            h for h in every_head(model.config.layers_per_kind, model.config.n_heads) if h.kind == "encoder_self"))),
    }


def questions(model, vocab, text=TEXT):
    r = runs(model, vocab, text)
    return {
        "embedding": q.embedding_question(r["greedy"]),
        "positions": q.positions_question(text, r["greedy"], r["shuffled"]),
        "scaling": q.scaling_question(r["greedy"], 0, 0, 0),
        "mask": q.mask_question(r["taught"], 0, 0, 3),
        "decode": q.decode_question(r["greedy"], 1),
        "cross": q.cross_question(r["greedy"], 1, 0, 3),
        "forcing": q.forcing_question(r["forced"], "z"),
        "encoder_off": q.encoder_off_question(text, r["encoder_off"]),
    }


def test_every_kind_of_question_grades_its_answer_right_and_every_other_option_wrong(bundled):
    every = questions(bundled.model, bundled.vocab)
    every["snapshot"] = q.snapshot_question(TEXT, [(50, "aaaa"), (500, TEXT[::-1]), (5000, TEXT[::-1])])
    base, effects = ablation_ranking(bundled.model, bundled.vocab, ["level", "banana", "attention", "abc"])
    every["head"] = q.ablation_question(effects, 4)
    assert {question.kind for question in every.values()} == set(q.KINDS_OF_ANSWER)
    for name, question in every.items():
        assert question.grade(question.answer), name
        wrong = [o for o in question.options if o not in question.answers]
        assert wrong, name                                         # there is a way to be wrong
        assert not any(question.grade(o) for o in wrong), name
        assert not question.grade(None)
        assert question.hint, name
        if len(question.answer) > 2:                               # a hint never names the answer
            assert question.answer not in question.hint, name
    assert every["snapshot"].answer == "step 500"
    assert every["head"].answers == {f"{q.KIND_SHORT[e.head.kind]} L{e.head.layer} H{e.head.head}"
                                     for e in effects if e.drop == max(x.drop for x in effects)}


def test_a_wrong_snapshot_gets_told_earlier_or_later():
    question = q.snapshot_question("ab", [(50, ""), (500, "ba"), (5000, "ba")])
    assert question.answer == "step 500"
    assert question.hint_for("step 50").startswith("Later") and question.hint_for("never").startswith("Earlier")
    assert question.hint_for("step 5,000").startswith("Earlier")


def test_the_mask_question_is_answered_by_the_weights_on_later_positions(bundled):
    question = questions(bundled.model, bundled.vocab)["mask"]
    assert question.answer == "exactly 0"                            # the causal mask, as the model applies it
    later = make_run(bundled.model, bundled.vocab, TEXT, Decoding(teacher=True)).trace["decoder_self", 0][0, 3, 4:]
    assert later.max() == 0.0


@pytest.mark.parametrize("which", ["bundled", "early"])
def test_each_answer_is_read_from_the_model_in_use(bundled, early, which):
    model = bundled.model if which == "bundled" else early
    vocab = bundled.vocab
    r = runs(model, vocab)
    got = questions(model, vocab)
    greedy = r["greedy"]
    assert got["decode"].answer == greedy.decoder_out[1]
    assert got["cross"].answer == f"{int(greedy.trace['cross', 1][0, 3].argmax())}: {greedy.source[int(greedy.trace['cross', 1][0, 3].argmax())]}"
    assert got["forcing"].answer == r["forced"].decoder_out[1]
    assert got["encoder_off"].answer.startswith("yes" if r["encoder_off"].output == TEXT[::-1] else "no")
    assert got["positions"].answer.startswith("yes" if r["shuffled"].output == TEXT[::-1] else "no")
    moved = int((r["shuffled"].trace["src_positions.rows"] != r["greedy"].trace["src_positions.rows"]).any(-1).sum())
    assert f"moved {moved} of the {len(TEXT)} codes" in got["positions"].why
    embedding = np.linalg.norm(greedy.trace["src_embed.output"][0])
    code = np.linalg.norm(greedy.trace["src_positions.rows"][0])
    assert (got["embedding"].answer == "the scaled embedding") == (embedding > 1.1 * code)


def test_another_model_gives_other_answers(bundled, early):
    changed = set()
    for text in ("banana", "parallel", "attention"):
        now, then = questions(bundled.model, bundled.vocab, text), questions(early, bundled.vocab, text)
        changed |= {name for name in now if now[name].answers != then[name].answers}
    assert {"decode", "cross", "forcing"} <= changed, changed


def test_the_ablation_question_follows_the_ranking_it_is_given():
    effects = [q.HeadEffect(Head("cross", 1, 0), 0.2, 0.8), q.HeadEffect(Head("encoder_self", 0, 1), 0.9, 0.1)]
    assert q.ablation_question(effects, 10).answer == "Cross L1 H0"
    flipped = [q.HeadEffect(e.head, e.drop, e.exact_match) for e in effects]
    assert q.ablation_question(flipped, 10).answer == "Encoder self L0 H1"


def test_the_teachers_sheet_has_every_step_question_and_expected_answer_in_fifty_minutes(bundled):
    got = questions(bundled.model, bundled.vocab)
    head = q.ablation_question([q.HeadEffect(Head("cross", 1, 0), 0.2, 0.8)] * 1, 10)
    every = [got["embedding"], got["positions"], got["scaling"], got["mask"], got["decode"], got["cross"],
             None, got["forcing"], head, got["encoder_off"]]                 # step 7 without snapshots says so
    markdown = sheet_markdown("par<b>allel", "the bundled model", every)
    page = sheet_html("par<b>allel", "the bundled model", every)
    assert INTRODUCTION_MINUTES + sum(s.minutes for s in STEPS) + WRAP_UP_MINUTES == 50
    assert "| 47–50 | Wrap-up" in markdown
    for step, question in zip(STEPS, every):
        assert f"Step {step.number} · {step.title}" in markdown
        if question is not None:
            assert question.prompt in markdown and f"- {question.answer} **← expected**" in markdown
    assert "No question here for this model" in markdown
    assert "<b>allel" not in page and "par&lt;b&gt;allel" in page        # the class's text is escaped
    assert page.count("← expected") == sum(len(x.answers) for x in every if x is not None)


def test_the_glossary_covers_every_page_and_term():
    assert len(GLOSSARY) >= 30
    assert all(20 < len(text) < 400 for text in GLOSSARY.values())          # one or two sentences
    used = {t for terms in TERMS_BY_PAGE.values() for t in terms}
    assert used <= set(GLOSSARY)
