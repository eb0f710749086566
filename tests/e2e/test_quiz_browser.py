"""The quizzes in a real browser: a learner alone on a 390×844 touch phone takes both and sees the gain; a class
of three (one on a phone) takes both while the teacher at 1280×720 opens and closes them, and each screen shows
its scores and gain. The answers picked are read from the model's quiz, built here from the same seed."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from drivers.harness import load, settle
from teaching.quiz import FORMS, Quiz, build_quiz, lab_head_costs
from transformer.checkpoint import bundled_checkpoint, load as load_checkpoint

from .conftest import ARTIFACTS, screenshot
from .test_class_mode_browser import PHONE, class_store, join, press, start_class

SEED = 4321


def phone_shot(page, name: str) -> None:
    """What the phone's screen shows (the wide screenshot helper would re-lay the page out for a desktop)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


@pytest.fixture(scope="module")
def reverser():
    return load_checkpoint(bundled_checkpoint("reverse"))


def quiz_of(reverser, seed: int, form: str, avoid: tuple[str, ...] = ()) -> Quiz:
    costs = lab_head_costs(bundled_checkpoint("reverse"), reverser.model, reverser.vocab, "reverse")
    return build_quiz(reverser.model, reverser.vocab, "reverse", seed, form, costs, frozenset(avoid))


def picks(quiz: Quiz, right: int) -> list[str]:
    """The first `right` items answered right, the others wrong."""
    return [item.question.answer if i < right else
            next(o for o in item.question.options if o not in item.question.answers)
            for i, item in enumerate(quiz.items)]


def answer(page, quiz: Quiz, chosen: list[str], tap: bool = False, hand_in: bool = True) -> None:
    """Pick each item's option in its radio group, by its label (in class mode each pick is stored at once and
    reruns the page), then hand in where there is a button for it."""
    for i, option in enumerate(chosen):
        group = page.get_by_role("radiogroup", name=f"Answer to question {i + 1}")
        expect(group).to_be_visible(timeout=30_000)
        label = group.get_by_text(option, exact=True)        # the option's own text, in its label
        label.tap() if tap else label.click()
        if not hand_in:
            settle(page)
        expect(group.get_by_role("radio", name=option, exact=True)).to_be_checked()
    if hand_in:
        button = page.get_by_role("button", name="Hand in")
        button.tap() if tap else button.click()
        settle(page)


def test_a_learner_alone_on_a_phone_takes_both_quizzes_and_sees_the_gain(browser, server, reverser):
    page = browser.new_context(**PHONE).new_page()
    load(page, f"{server}/quiz?quiz={SEED}", timeout=120_000)
    before, after = (quiz_of(reverser, SEED, f) for f in FORMS)
    expect(page.get_by_role("heading", name="1 · Before the lesson")).to_be_visible(timeout=60_000)
    answer(page, before, picks(before, 3), tap=True)
    expect(page.get_by_text("First quiz handed in: 3 of 8 right")).to_be_visible(timeout=30_000)
    answer(page, after, picks(after, 7), tap=True)
    expect(page.get_by_text("Normalised gain", exact=True)).to_be_visible(timeout=30_000)
    expect(page.get_by_text(f"{(7 / 8 - 3 / 8) / (1 - 3 / 8):.2f}", exact=True)).to_be_visible()
    expect(page.get_by_role("link", name="See it on")).to_have_count(1)          # the one item missed
    page.reload()                                   # the link keeps the seed and the answers
    expect(page.get_by_text("Normalised gain", exact=True)).to_be_visible(timeout=60_000)
    phone_shot(page, "quiz-phone-result")
    assert page.locator("[data-testid='stException']").count() == 0
    page.context.close()


def test_a_class_of_three_takes_both_quizzes_and_every_screen_shows_the_gain(browser, server, reverser):
    teacher, code = start_class(browser, server)
    phone = join(browser, server, code, "Ann", phone=True)
    laptops = [join(browser, server, code, name) for name in ("Bo", "Cy")]
    students = [phone, *laptops]
    expect(teacher.get_by_text("3 students joined")).to_be_visible(timeout=10_000)
    state = class_store().snapshot(code).state
    quizzes = {f: quiz_of(reverser, state.quiz_seed, f, (state.text,)) for f in FORMS}

    scores = {"before": (2, 4, 0), "after": (8, 6, 4)}
    for form in FORMS:
        press(teacher, f"Open the {form} quiz")
        for page, right in zip(students, scores[form]):
            expect(page.get_by_role("heading", name=f"The {form} quiz")).to_be_visible(timeout=30_000)
            answer(page, quizzes[form], picks(quizzes[form], right), tap=page is phone, hand_in=False)
            expect(page.get_by_text("Your answers are in: 8 of 8")).to_be_visible(timeout=30_000)
        expect(teacher.get_by_text(f"3 of 3 handed in the {form} quiz")).to_be_visible(timeout=10_000)
        if form == "before":
            phone_shot(phone, "quiz-class-phone-before")
        press(teacher, "Close the quiz")

    mean_before, mean_after = sum(scores["before"]) / 24, sum(scores["after"]) / 24
    gain = (mean_after - mean_before) / (1 - mean_before)
    expect(teacher.get_by_text("Class gain (normalised)")).to_be_visible(timeout=30_000)
    expect(teacher.get_by_text(f"{gain:.2f}", exact=True)).to_be_visible()
    for page, b, a in zip(students, scores["before"], scores["after"]):
        expect(page.get_by_text("Your quiz result")).to_be_visible(timeout=30_000)
        expect(page.get_by_text(f"{(a - b) / (8 - b):.2f}", exact=True)).to_be_visible()
    screenshot(teacher, "quiz-class-teacher-results")
    phone_shot(phone, "quiz-class-phone-result")
    for page in (teacher, *students):
        assert page.locator("[data-testid='stException']").count() == 0
        page.context.close()
