"""Predict, then train, in a real browser: a teacher at 1280×720 sets swap-pairs after the lesson, three
students (one on a 390×844 touch phone) vote on where the trained model's last layer will look, the teacher
trains the model while the phones and the projector view follow its run, and the reveal grades the votes by
the model's measured attention, the same on every screen."""

from __future__ import annotations

import re
from collections import Counter

from playwright.sync_api import expect

from classroom.store import PREDICT_STEP
from drivers.axe import described, serious, violations
from drivers.harness import settle
from teaching.predict_train import ClassTask, Run, prediction

from .conftest import picture, screenshot
from .test_class_mode_browser import SHOWN_BOTTOM, class_store, join, press, start_class, vote

TRAINED = re.compile(r"(Trained|Stopped at the time limit): step [\d,]+ of [\d,]+")


def test_a_class_predicts_then_watches_swap_pairs_learn_and_the_reveal_grades_it(browser, server):
    teacher, code = start_class(browser, server)
    teacher.get_by_role("slider", name="Step").press("End")              # after the lesson's last step
    expect(teacher.get_by_role("heading", name=re.compile(f"Step {PREDICT_STEP} · Predict, then train"))) \
        .to_be_visible(timeout=60_000)
    teacher.get_by_label("Rule", exact=True).fill("swap-pairs")
    teacher.get_by_label("Rule", exact=True).press("Enter")
    settle(teacher)
    teacher.get_by_label("Lengths", exact=True).fill("2-6")
    teacher.get_by_label("Lengths", exact=True).press("Enter")
    settle(teacher)
    press(teacher, "Ask the class about this task")
    store = class_store()
    task = ClassTask.from_text(store.snapshot(code).state.task)
    assert task == ClassTask("swap-pairs", lengths="2-6")
    ask = prediction(task)
    expect(teacher.get_by_text(re.compile(r"The task: swap each pair of neighbouring characters \(swap-pairs\)"))
           ).to_be_visible()

    phone = join(browser, server, code, "Ann", phone=True)
    laptops = [join(browser, server, code, name) for name in ("Bo", "Cy")]
    press(teacher, "Open voting")
    picks = [vote(phone, 0, tap=True, step=PREDICT_STEP), vote(laptops[0], 1, step=PREDICT_STEP),
             vote(laptops[1], 2, step=PREDICT_STEP)]
    assert set(picks) <= set(ask.options)
    expect(teacher.get_by_text("3 of 3 voted in round 1")).to_be_visible(timeout=10_000)
    found = serious(violations(phone))
    assert not found, described(found)

    with teacher.context.expect_page() as opened:
        teacher.get_by_role("link", name="Open the projector view in a new tab ↗").click()
    projected = opened.value
    projected.set_viewport_size({"width": 1280, "height": 720})
    press(teacher, "Close voting")
    press(teacher, "Train the model")
    for page in (teacher, phone, *laptops, projected):   # each screen follows the run from the class's row
        expect(page.get_by_text(TRAINED).first).to_be_visible(timeout=300_000)
    run = Run.from_text(store.snapshot(code).state.training)
    assert run.done and run.followed
    settle(projected)
    assert projected.evaluate(SHOWN_BOTTOM) <= 720          # the room's screen: question, count and curve

    press(teacher, "Reveal")
    question = ask.question(run)
    right = sum(question.grade(p) for p in picks)
    expect(teacher.get_by_test_id("stMetric").filter(has_text="Round 1: share right")).to_contain_text(
        f"{right / 3:.0%}")
    share, head = ask.measured(run, question.answer)
    for page in (teacher, phone, *laptops):
        expect(page.get_by_text(question.answer_line).first).to_be_visible(timeout=15_000)
    expect(projected.get_by_text(f"The model's answer: {question.answer} (head {head}, at {share:.0%} of the "
                                 "output steps).")).to_be_visible(timeout=15_000)
    mine = ask.share_of(run, picks[0])
    expect(phone.get_by_text(f"You chose {picks[0]} ({mine}):")).to_contain_text(
        "you were right." if question.grade(picks[0]) else f"the model follows {question.answer}")
    assert class_store().counts(code, PREDICT_STEP, 1) == Counter(picks)
    expect(projected.locator("canvas").first).to_be_visible(timeout=15_000)   # the model's attention, drawn
    settle(projected)
    settle(projected)
    assert projected.evaluate(SHOWN_BOTTOM) <= 720          # and at the reveal, the answer and the attention
    for page in (teacher, phone):
        found = serious(violations(page))
        assert not found, described(found)
    picture(phone, "class-predict-phone-reveal")
    screenshot(teacher, "class-predict-teacher-reveal")
    screenshot(projected, "class-predict-projected-reveal")
    for page in (teacher, phone, *laptops, projected):
        assert page.locator("[data-testid='stException']").count() == 0
    for page in (teacher, phone, *laptops):   # the projector view is a tab of the teacher's
        page.context.close()
