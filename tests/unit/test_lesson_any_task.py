"""The lesson on a model of another task (the bundled copier and sorter here; a rule trained live in
tests/app/test_own_task_trained.py): every step but the reverser's own is asked, its words follow the task's own
answer and keys, and each answer is worked out here again from the model."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import numpy as np
import pytest

from analysis import attribution, patching
from analysis.lab import ablation_ranking
from analysis.lesson import forced_outcome, forced_outcomes
from analysis.offsets import head_offsets
from analysis.run import Decoding, make_run
from teaching import questions as q
from teaching import step_views
from teaching.step_views import Note, Side, Table, forced_token
from teaching.steps import STEPS
from transformer.checkpoint import bundled_checkpoint, load, load_snapshot, snapshot_index
from transformer.data import expected_keys, held_out_strings, target
from transformer.intervention import Head, Intervention

SAMPLE = 30
REVERSERS_WORDS = re.compile(r"revers|mirror|anti-diagonal|n − 1 − i|n − i|How it reverses")


@functools.cache
def model(task: str):
    return load(bundled_checkpoint(task))


@functools.cache
def sample(task: str) -> tuple[str, ...]:
    return tuple(held_out_strings(SAMPLE, model(task).model.config.max_len))


@dataclass(frozen=True)
class TaskSource:
    """teaching.step_views.LessonSource for one bundled model, every table computed here from the model."""
    text: str
    task: str
    sample_size: int = SAMPLE

    @property
    def vocab(self):
        return model(self.task).vocab

    @property
    def config(self):
        return model(self.task).model.config

    def run(self, forced=(), teacher=False, ablated=(), positions="normal", sides=("source", "target")):
        edit = Intervention(frozenset(Head(*h) for h in ablated), positions, frozenset(sides))
        return make_run(model(self.task).model, self.vocab, self.text, Decoding(forced=forced, teacher=teacher),
                        edit, task=self.task)

    def snapshots(self):
        return snapshot_index(bundled_checkpoint(self.task))[:3]

    def snapshot_output(self, step):
        return make_run(load_snapshot(bundled_checkpoint(self.task), step), self.vocab, self.text,
                        task=self.task).output

    def forced_table(self, token, ask):
        return _forced(self.task, token)

    def cross_offsets(self, ask):
        return _offsets(self.task, None)

    def ablation_table(self, ask):
        return _ablation(self.task)

    def lenses(self):
        m = model(self.task)
        return attribution.lenses(m.model, m.vocab, self.run())

    def patch_score(self, pattern, layer, head, ask):
        return _patch(self.task, pattern, layer, head)

    def cross_offsets_without(self, head, ask):
        return _offsets(self.task, head)

    def other_run(self, text):
        return make_run(model(self.task).model, self.vocab, text, Decoding(teacher=True), task=self.task)

    def split_table(self, ask):
        raise AssertionError("step 13 is the reverser's: it must not measure another model's last layer")


@functools.cache
def _forced(task, token):
    return forced_outcomes(model(task).model, model(task).vocab, list(sample(task)), token, task)


@functools.cache
def _offsets(task, without):
    m = model(task)
    if without is None:
        return head_offsets(m.model, m.vocab, list(sample(task)), task, kind="cross")
    return head_offsets(m.model, m.vocab, list(sample(task)), task, kind="cross",
                        layer=m.model.config.n_decoder_layers - 1, edit=Intervention(ablated=frozenset({without})))


@functools.cache
def _ablation(task):
    return ablation_ranking(model(task).model, model(task).vocab, list(sample(task)), task)


@functools.cache
def _patch(task, pattern, layer, head):
    m = model(task).model
    edit = Intervention() if pattern is None else patching.patched(pattern, task, patching.Placement(layer, head), m)
    return patching.patch_score(m, model(task).vocab, list(sample(task)), [], task, edit)


@functools.cache
def view(task: str, number: int, text: str = "banana"):
    return step_views.step_view(number, TaskSource(text, task))


def words_of(v) -> list[str]:
    """Every sentence a step's record gives the learner, before and after the answer."""
    said = [v.step.title, v.step.goal, v.step.look_for]
    if v.question is not None:
        said += [v.question.prompt, v.question.hint, v.question.why, *v.question.options, *v.question.hints.values()]
    for d in (*v.before, *v.after):
        for part in ((d.left, d.right) if isinstance(d, Side) else (d,)):
            if isinstance(part, Table):
                said += [part.heading, part.caption, *part.columns]
            elif isinstance(part, Note):
                said.append(part.text)
    return said


@pytest.mark.parametrize("task", ["copy", "sort"])
def test_every_step_but_the_reversers_own_is_asked_and_none_speaks_of_reversing(task):
    for step in STEPS:
        v = view(task, step.number)
        if step.number == 13:
            assert v.question is None and "reverser" in v.step.goal
            continue
        assert v.question is not None, step.number
        found = [s for s in words_of(v) if REVERSERS_WORDS.search(s)]
        assert not found, (step.number, found)


@pytest.mark.parametrize("task", ["copy", "sort"])
@pytest.mark.parametrize("number, change", [(2, {"positions": "shuffle", "sides": ("source",)}),
                                            (10, {"ablated": step_views.encoder_heads(model("copy").model.config)})])
def test_the_yes_or_no_answers_are_the_tasks_own_answer(task, number, change):
    source = TaskSource("banana", task)
    changed = source.run(**change)
    right = changed.output == target("banana", task)
    assert view(task, number).question.answer.startswith("yes" if right else "no")
    assert f"'{changed.output}'" in view(task, number).question.why


@pytest.mark.parametrize("task", ["copy", "sort"])
def test_step_6_counts_the_last_layers_heads_on_the_key_the_task_copies_from(task):
    v = view(task, 6)
    run = TaskSource("banana", task).run()
    t = step_views._cross_step("banana", run)
    last = run.trace["cross", model(task).model.config.n_decoder_layers - 1][:, t].argmax(-1)   # (H,)
    keys = expected_keys("banana", task)[t]
    on = sum(int(k) in keys for k in last)
    assert f"{on} of {len(last)} on position" in v.question.why
    assert "where the character it writes comes from" in v.question.why


@pytest.mark.parametrize("task", ["copy", "sort"])
def test_step_8_forces_a_wrong_letter_and_its_answer_is_what_the_model_then_writes(task):
    v = view(task, 8)
    answer = target("banana", task)
    token = forced_token(answer, model(task).vocab.letters)
    assert not answer.startswith(token)
    forced = TaskSource("banana", task).run(forced=((0, model(task).vocab.encode(token, 1)[0]),))
    assert v.question.answer == q.forced_options(token, task)[forced_outcome(forced.output, answer, token)]
    assert "right answer" in v.question.answer or v.question.answer == "something else"


def test_a_wrong_first_letter_comes_from_the_models_own_alphabet():
    greek = "αβγδεζηθικλμνξοπρστυφχψω"
    assert forced_token("αβγ", greek) == "ω" and forced_token("ωβγ", greek) == "ψ"
    assert forced_token("zebra") == "q" and forced_token("apple") == "z"


@pytest.mark.parametrize("task, read", [("copy", "i−1"), ("sort", "the i-th smallest − 1")])
def test_step_12_puts_the_key_just_read_beside_the_tasks_own_and_grades_by_exact_match(task, read):
    v = view(task, 12)
    assert read in v.question.options[0] and "the task's own pattern" in v.question.options[1]
    table = v.after[0]
    kept = dict(zip(table.columns[next(iter(table.columns))], table.columns["exact match"]))
    best = max(kept[o] for o in v.question.options)
    assert {o for o in v.question.options if kept[o] >= best - 0.005} == set(v.question.answers)
    assert np.isclose(kept[v.question.options[1]], _patch(task, "task", *_worst_cross(task)).within)


def _worst_cross(task):
    _, effects = _ablation(task)
    worst = max((e for e in effects if e.head.kind == "cross"), key=lambda e: e.drop)
    return worst.head.layer, worst.head.head
