"""The quizzes: every item's answer is what the model computes (recomputed here another way, on the three
bundled checkpoints where the item applies), the two forms never share a string, and no item can be answered
from its text alone: a dozen surface rules that read only the prompt and the options do no better than chance."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter

import numpy as np
import pytest
from scipy.stats import binom

from analysis.lab import lab_limit
from analysis.labels import SOS_LABEL
from analysis.run import make_run
from drivers.text_only import TEXT_ONLY_RULES, odd_one_out
from teaching import quiz as qz
from transformer.checkpoint import bundled_checkpoint, load
from transformer.data import LETTERS, is_held_out, target
from transformer.intervention import Intervention

from ..conftest import ROOT

pytestmark = pytest.mark.slow   # left out of the quick tier: every item answered by the model, and held to chance

SEEDS = range(6)            # per task, both forms: the answer checks
TEXT_ONLY_SEEDS = range(120)  # the reverser, one form each (a seed's two forms share their answers' places):
                              # 120 independent items of each kind for the text-only answerers


@pytest.fixture(scope="module")
def checkpoints():
    return {task: load(bundled_checkpoint(task)) for task in ("reverse", "copy", "sort")}


@pytest.fixture(scope="module")
def costs(checkpoints):
    """Each model's exact match lost per head switched off, on the lab's words (its stored table)."""
    return {task: qz.lab_head_costs(bundled_checkpoint(task), ck.model, ck.vocab, task)
            for task, ck in checkpoints.items()}


@pytest.fixture(scope="module")
def quizzes(checkpoints, costs):
    return {(task, seed, form): qz.build_quiz(ck.model, ck.vocab, task, seed, form, costs[task])
            for task, ck in checkpoints.items() for seed in SEEDS for form in qz.FORMS}


def recomputed_answer(item: qz.QuizItem, ck, task: str, costs: dict) -> set[str]:
    """The item's right options, found from the model again, another way than the builder found them."""
    question, s, text = item.question, item.setting, item.text

    def run(**kw):
        return make_run(ck.model, ck.vocab, text, task=task, **kw)

    if item.kind == "positions":
        return {run(edit=Intervention(positions="swap", swapped=s["swapped"])).output} & set(question.options)
    if item.kind == "scaling":
        taken = run()
        scores = taken.trace.attention("encoder_self", s["layer"], "scores")[s["head"], s["row"]].astype(float)
        now = float(np.exp(scores - scores.max()).max() / np.exp(scores - scores.max()).sum())
        scaled = np.exp(s["factor"] * (scores - scores.max()))
        then = float(scaled.max() / scaled.sum())
        room = (1.0 if s["factor"] > 1 else 1 / len(text)) - now     # where the change can take the weight
        assert abs(room) <= qz.CLOSE or abs(room) >= qz.FAR            # the numbers on screen decide it
        assert (abs(room) <= qz.CLOSE) == (abs(then - now) <= qz.CLOSE)
        return {question.options[0 if then - now > qz.CLOSE else 2 if now - then > qz.CLOSE else 1]}
    if item.kind == "mask":
        taken = run()
        row = taken.trace["decoder_self", s["layer"]][s["head"], s["position"]]
        assert (row[s["position"] + 1:] == 0).all() and (row[: s["position"] + 1] > 0).all()   # the mask's rule
        return {str(s["position"] + 1)}
    if item.kind == "decoder_input":
        taken = run()
        return {" ".join([SOS_LABEL, *taken.output[: s["step"]]])}
    if item.kind == "cross":
        weights = run().trace["cross", s["layer"]][:, s["step"]].mean(0)
        top = int(np.argmax(weights))
        assert text[top] == target(text, task)[s["step"]]      # the position the hint's rule names
        return {o for o, p in zip(question.options, s["shown"]) if p == top}
    if item.kind == "forcing":
        return {" ".join([SOS_LABEL, *target(text, task)[: s["step"]]])}
    if item.kind == "head_off":
        changed = run(edit=Intervention(ablated=frozenset({s["head"]}))).output != run().output
        cost = costs[s["head"]]       # the lab's table agrees: a head asked about is clearly needed or not
        assert s["head"].kind == "cross"                        # a head the lesson's step 9 shows
        assert cost >= 0.9 if changed else cost <= 0.05
        return {question.options[0 if changed else 1]}
    if item.kind == "length":
        exact = make_run(ck.model, ck.vocab, text, max_len=lab_limit(ck.model), task=task).output == target(text, task)
        return {question.options[0 if exact else 1]}
    raise AssertionError(f"no check for {item.kind}")


@pytest.mark.parametrize("task", ["reverse", "copy", "sort"])
def test_every_answer_is_what_the_model_computes(quizzes, checkpoints, costs, task):
    kinds = Counter()
    for (t, seed, form), quiz in quizzes.items():
        if t != task:
            continue
        for item in quiz.items:
            assert set(item.question.answers) == recomputed_answer(item, checkpoints[task], task, costs[task]), (
                task, seed, form, item.kind, item.question.prompt)
            assert len(item.question.answers) == 1
            kinds[item.kind] += 1
    sides = qz.head_sides(qz.QuizModel(checkpoints[task].model, checkpoints[task].vocab, task, costs[task]))
    applies = [k.name for k in qz.ITEM_KINDS if k.asks_of(task) and (k.name != "head_off" or all(sides.values()))]
    assert sorted(kinds) == sorted(applies) and set(kinds.values()) == {2 * len(SEEDS)}


@pytest.fixture(scope="module")
def rotator(tmp_path_factory):
    """A model of rotate:2 on texts of 2 to 8 characters, trained here (no bundled model knows the rule)."""
    out = tmp_path_factory.mktemp("rotator") / "model"
    subprocess.run([sys.executable, "-m", "transformer.train", "--task", "rotate:2", "--lengths", "2-8", "--seconds",
                    "60", "--out", str(out)], cwd=ROOT, check=True, capture_output=True, timeout=600)
    return out, load(out)


def test_a_rule_no_bundled_model_knows_gets_a_quiz_its_model_answers(rotator):
    """Every item that applies, on strings of the model's own lengths, each answer recomputed from the model."""
    folder, ck = rotator
    costs = qz.lab_head_costs(folder, ck.model, ck.vocab, ck.task, ck.min_len)
    kinds = Counter()
    for seed in range(3):
        for form in qz.FORMS:
            quiz = qz.build_quiz(ck.model, ck.vocab, ck.task, seed, form, costs, min_len=ck.min_len)
            for item in quiz.items:
                assert set(item.question.answers) == recomputed_answer(item, ck, ck.task, costs), item.question.prompt
                assert item.kind == "length" or ck.min_len <= len(item.text) <= ck.model.config.max_len
                assert "reversal" not in item.question.prompt and "of a text" not in item.question.prompt
                kinds[item.kind] += 1
    sides = qz.head_sides(qz.QuizModel(ck.model, ck.vocab, ck.task, costs, ck.min_len))
    assert sorted(kinds) == sorted(k.name for k in qz.ITEM_KINDS if k.name != "head_off" or all(sides.values()))
    assert any("The model's task is rotate:2: to rotate the text left by 2 places." in item.question.prompt
               for item in quiz.items)


def test_another_model_gets_its_own_key(checkpoints, costs, quizzes):
    """The key is read from the model: each item of the trained reverser's quiz whose answer is what the model
    learnt, asked again with the same plan on the same string of an untrained model of the same shape, gets
    another right answer, or cannot be asked (the untrained model does not answer the way the plan needs). The
    causal mask's and teacher forcing's keys follow from their definitions, the same for any model."""
    ck = checkpoints["reverse"]
    untrained = qz.QuizModel(tiny_model_like(ck), ck.vocab, "reverse", costs["reverse"])
    kinds = {k.name: k for k in qz.ITEM_KINDS}
    other = {}
    for item in quizzes[("reverse", 0, "before")].items:
        again = kinds[item.kind].ask(untrained, item.text, qz.item_plan(untrained, kinds[item.kind], 0))
        other[item.kind] = again is None or again[0].answers != item.question.answers
    assert all(other[k] for k in ("positions", "cross", "head_off", "length")), other
    assert not other["mask"] and not other["forcing"], other


def tiny_model_like(ck):
    import torch
    from transformer.model import Transformer
    torch.manual_seed(0)
    return Transformer(ck.model.config).eval()


def test_the_two_forms_never_share_a_string(quizzes, checkpoints):
    lab = qz.lab_sample(48)
    for task in checkpoints:
        for seed in SEEDS:
            before = {i.text for i in quizzes[(task, seed, "before")].items}
            after = {i.text for i in quizzes[(task, seed, "after")].items}
            assert not before & after
            for form, texts in (("before", before), ("after", after)):
                assert all(qz.form_of(t) == form and is_held_out(t) and t not in lab for t in texts)


SHARED = {"positions": ("swapped",), "mask": ("layer", "head", "position"), "decoder_input": ("step",),
          "cross": ("layer", "step"), "forcing": ("step",), "head_off": ("head",), "length": ("max_len",),
          "scaling": ("factor", "layer", "head")}


def test_the_two_forms_of_a_seed_differ_only_in_their_strings(quizzes):
    """Parallel forms: each item of "before" and "after" asks the same thing (the same step, layer, head, the
    same trade or scale, a string of the same length) and its right option stands in the same place; a yes/no
    or three-way item has the same right answer."""
    for (task, seed, form), before in quizzes.items():
        if form != "before":
            continue
        after = quizzes[(task, seed, "after")]
        assert [i.kind for i in before.items] == [i.kind for i in after.items]
        for b, a in zip(before.items, after.items):
            where = (task, seed, b.kind)
            assert b.text != a.text and len(b.text) == len(a.text), where
            assert {k: b.setting[k] for k in SHARED[b.kind]} == {k: a.setting[k] for k in SHARED[b.kind]}, where
            assert b.question.options.index(b.question.answer) == a.question.options.index(a.question.answer), where
            if b.kind in ("scaling", "head_off", "length"):
                assert b.question.answer == a.question.answer, where


def test_the_forms_split_the_held_out_strings_of_every_length():
    """The held-out split is a CRC; a CRC split of the forms too would put every held-out string of one length
    in the same form (CRC-32 is linear). Both forms get strings of each length the items use."""
    import random
    rng = random.Random(0)
    for n in (*range(qz.WORD_LENGTHS[0], qz.WORD_LENGTHS[1] + 1), 30, 48, 60):
        held = [t for t in ("".join(rng.choice(LETTERS) for _ in range(n)) for _ in range(4000)) if is_held_out(t)]
        share = sum(qz.form_of(t) == "before" for t in held) / len(held)
        assert 0.4 < share < 0.6, (n, share)


def test_a_text_to_avoid_is_never_asked_about(checkpoints, costs):
    ck = checkpoints["reverse"]
    first = qz.build_quiz(ck.model, ck.vocab, "reverse", 3, "after", costs["reverse"])
    avoided = qz.build_quiz(ck.model, ck.vocab, "reverse", 3, "after", costs["reverse"],
                            avoid=frozenset({first.items[2].text}))
    assert first.items[2].text not in {i.text for i in avoided.items}


def test_seeds_make_different_quizzes_and_one_seed_the_same(quizzes, checkpoints, costs):
    ck = checkpoints["reverse"]
    again = qz.build_quiz(ck.model, ck.vocab, "reverse", 1, "before", costs["reverse"])
    assert [i.question for i in again.items] == [i.question for i in quizzes[("reverse", 1, "before")].items]
    assert ([i.text for i in quizzes[("reverse", 1, "before")].items]
            != [i.text for i in quizzes[("reverse", 2, "before")].items])


def test_sorting_has_no_positions_item_and_a_bad_form_is_refused(quizzes, checkpoints, costs):
    assert "positions" not in [i.kind for i in quizzes[("sort", 0, "before")].items]
    for task in ("copy", "sort"):     # no cross head clearly needed and one clearly not: not asked
        assert "head_off" not in [i.kind for i in quizzes[(task, 0, "before")].items]
    assert len(quizzes[("reverse", 0, "before")].items) == 8
    with pytest.raises(ValueError, match="form"):
        qz.build_quiz(checkpoints["reverse"].model, checkpoints["reverse"].vocab, "reverse", 0, "during",
                      costs["reverse"])
    assert quizzes[("reverse", 0, "before")].chance == pytest.approx((5 / 4 + 1 / 3 + 2 / 2) / 8)


def test_marks_and_score(quizzes):
    quiz = quizzes[("reverse", 0, "after")]
    right = [i.question.answer for i in quiz.items]
    assert quiz.score(right) == 1
    wrong = [next(o for o in i.question.options if o not in i.question.answers) for i in quiz.items]
    assert quiz.score(wrong) == 0
    assert quiz.marks([None] * len(quiz.items)) == (False,) * len(quiz.items)
    with pytest.raises(ValueError):
        quiz.marks(right[:-1])


# --- From the text alone (the rules: drivers/text_only.py) ----------------------------------------------

def beats_chance(hits: int, chances: list[float], alpha: float = 1e-3) -> bool:
    """Whether `hits` right is more than chance allows: above the (1 − alpha) quantile of the number of hits a
    guesser at each item's chance would get (a binomial at the mean chance; the items here have equal counts)."""
    return hits > binom.ppf(1 - alpha, len(chances), float(np.mean(chances)))


def test_the_chance_check_catches_a_leaky_item():
    """The check can fail: an item whose right option is the longest in 60 % of cases is caught."""
    assert beats_chance(72, [0.25] * 120) and not beats_chance(36, [0.25] * 120)


@pytest.fixture(scope="module")
def many_reverser_quizzes(checkpoints, costs):
    ck = checkpoints["reverse"]
    return [qz.build_quiz(ck.model, ck.vocab, "reverse", seed, qz.FORMS[seed % 2], costs["reverse"])
            for seed in TEXT_ONLY_SEEDS]


def test_no_item_can_be_answered_from_its_text_alone(many_reverser_quizzes):
    by_kind: dict[str, list] = {}
    for quiz in many_reverser_quizzes:
        for item in quiz.items:
            by_kind.setdefault(item.kind, []).append(item.question)
    leaks = []
    for kind, questions in by_kind.items():
        chances = [1 / len(q.options) for q in questions]
        for name, rule in TEXT_ONLY_RULES.items():
            picks = [odd_one_out(q.options) if name == "the odd one out in length" else rule(q.prompt, q.options)
                     for q in questions]
            hits = sum(q.grade(q.options[i]) for q, i in zip(questions, picks))
            if beats_chance(hits, chances):
                leaks.append(f"{kind}: '{name}' right {hits} of {len(questions)} (chance {np.mean(chances):.2f})")
        # and no option place is right more often than chance allows
        places = Counter(q.options.index(q.answer) for q in questions)
        assert all(not beats_chance(c, chances) for c in places.values()), (kind, places)
    assert not leaks, leaks
