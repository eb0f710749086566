"""Predict, then train, in class mode through AppTest on a real SQLite file: the teacher sets a task after the
lesson, three students vote on where the trained model's last layer will look, the teacher's session trains
the model while every screen reads its run from the class's row, and the reveal grades the votes by what the
model's attention does, recomputed here another way (transformer.metrics over its own greedy decodings)."""

from __future__ import annotations

import time

import pytest

from classroom.store import PREDICT_STEP
from teaching.predict_train import ClassTask, Run, prediction
from transformer.data import held_out_strings
from transformer.metrics import cross_attention_alignment

from .helpers import no_exception, open_page, own_shelf
from .test_class_mode import fresh_limits, store  # noqa: F401 - fixtures: a real SQLite file, the limits fresh


def teacher(new):
    return open_page("run_a_class", None, query={"class": new.code, "teacher": new.secret})


def buttons(at) -> dict:
    return {b.label: b for b in at.button}


def said(at) -> str:
    return " ".join(str(e.value) for kind in ("markdown", "caption", "info", "success", "warning", "error")
                    for e in getattr(at, kind)).replace("\\", "")


@pytest.mark.slow   # one model trained to its target
def test_a_class_predicts_where_a_new_tasks_model_will_look_then_watches_it_learn(store):
    new = store.create_class("hello")
    at = teacher(new)
    at.select_slider(key="class_step_1").set_value(PREDICT_STEP).run()
    no_exception(at)
    assert store.snapshot(new.code).state.step == PREDICT_STEP
    at.text_input(key="own_rule").set_value("swap-pairs").run()
    at.text_input(key="own_lengths").set_value("2-6").run()
    buttons(at)["Ask the class about this task"].click().run()
    no_exception(at)
    task = ClassTask.from_text(store.snapshot(new.code).state.task)
    assert task == ClassTask("swap-pairs", lengths="2-6")
    ask = prediction(task)
    assert ask.prompt in said(at) and all(o in said(at) for o in ask.options)
    assert buttons(at)["Reveal"].disabled                        # nothing to reveal before the model trains

    buttons(at)["Open voting"].click().run()
    picks = [ask.options[0], ask.options[1], ask.options[1]]
    for number, pick in enumerate(picks):
        seat = store.join(new.code, f"S{number}")
        phone = open_page("join", None, query={"class": new.code, "seat": seat.token})
        no_exception(phone)
        assert ask.prompt in said(phone)
        [button] = [b for b in phone.button if b.label == pick]
        button.click().run()
        no_exception(phone)
        assert f"Your vote is in (round 1): {pick}" in said(phone)
    assert store.counts(new.code, PREDICT_STEP, 1) == {ask.options[0]: 1, ask.options[1]: 2}

    buttons(at)["Close voting"].click().run()
    buttons(at)["Train the model"].click().run()
    no_exception(at)
    live = own_shelf(at).live_run
    deadline = time.monotonic() + 600
    while not live.progress.done and time.monotonic() < deadline:
        time.sleep(0.5)
    assert live.progress.status == "finished", live.progress
    at.run()                                                      # the teacher's screen writes the ended run
    run = Run.from_text(store.snapshot(new.code).state.training)
    assert run.done and run.followed and run.step == live.progress.step
    assert not buttons(at)["Reveal"].disabled

    model = live.result                                           # the shares again, over its own decodings
    texts = held_out_strings(200, task.spec.max_len, min_len=task.spec.min_len, letters=task.spec.alphabet)
    last = f"layer_{model.model.config.n_decoder_layers - 1}"
    again = {o.rule: max(cross_attention_alignment(model.model, model.vocab, texts, task=o.rule)[last])
             for o in ask.patterns}
    assert again == pytest.approx(run.followed["shares"], abs=1e-3)

    buttons(at)["Reveal"].click().run()
    no_exception(at)
    question = ask.question(run)
    best = max(again.values())
    assert question.answers == {o.label for o in ask.patterns if again[o.rule] >= best - 0.02}
    right = sum(question.grade(p) for p in picks)
    shown = next(m for m in at.metric if m.label == "Round 1: share right")
    assert shown.value == f"{right / 3:.0%}" and shown.delta == f"{right} of 3 votes"
    assert question.answer_line in said(at)

    phone = open_page("join", None, query={"class": new.code, "seat": store.join(new.code, "late").token})
    no_exception(phone)
    assert question.answer_line in said(phone) and run.ended.replace("**", "") in said(phone).replace("**", "")
    book = [b for b in at.button if b.label == "Prepare the gradebook"][0]
    book.click().run()
    no_exception(at)
    gradebook = at.session_state["_class_csv"][1]
    assert f"step {PREDICT_STEP} round 1" in gradebook.students.columns


def test_before_a_task_the_phones_wait_and_a_task_the_class_cannot_be_asked_about_is_said_plainly(store):
    new = store.create_class("hello")
    store.go_to_step(new.code, new.secret, PREDICT_STEP)
    seat = store.join(new.code, "a")
    phone = open_page("join", None, query={"class": new.code, "seat": seat.token})
    no_exception(phone)
    assert "The teacher has not set the class's task yet" in said(phone) and not phone.get("plotly_chart")
    at = teacher(new)
    no_exception(at)
    assert [e.label for e in at.expander][:2] == ["Your private teacher link (not while projecting: whoever has it "
                                                 "controls the class)", "Set the class's task"]
    assert not [b for b in at.button if b.label == "Open voting"]    # nothing to vote on yet
    store.set_task(new.code, new.secret, ClassTask("reverse", lengths="1-1").to_text())
    at = teacher(new)
    no_exception(at)
    assert "reads the same positions as every rule near it" in said(at)
    phone = open_page("join", None, query={"class": new.code, "seat": seat.token})
    no_exception(phone)
    assert "reads the same positions as every rule near it" in said(phone)
