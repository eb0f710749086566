"""A task of one's own in the real browser: a learner on a phone opens a link to rotate:2 and trains it; a teacher
in projector mode finds swap-pairs from five examples and trains it; each walks the pages on the new model."""

import re

from playwright.sync_api import expect

from drivers.axe import described, serious, violations
from drivers.harness import load, settle

from .conftest import picture, screenshot

TRAINED = re.compile(r"Reached 99% held-out exact match|Stopped after the 60 s")


def go_to(page, label: str) -> None:
    """Through the sidebar, unfolding it first where it is folded away (a phone, projector mode): a new URL would
    be a new session, without the model just trained."""
    sidebar = page.get_by_test_id("stSidebar")
    if sidebar.get_attribute("data-collapsed") == "true":
        page.get_by_role("button", name="Expand sidebar", exact=True).click()
        expect(sidebar).to_have_attribute("data-collapsed", "false")
    sidebar.get_by_role("link", name=label, exact=True).click()
    settle(page)


def no_exception(page, where: str) -> None:
    assert page.locator("[data-testid='stException']").count() == 0, where


def train_and_use(page) -> None:
    page.get_by_role("button", name="Start training").click()
    expect(page.get_by_text(TRAINED)).to_be_visible(timeout=240_000)
    settle(page)
    page.get_by_role("button", name="Look at it on every page").click()
    settle(page)


def walk(page, rule: str) -> None:
    """Home, Decode, Attention, Which head does the work? and the lesson, on the model just trained."""
    for label in ("Home", "Decode step by step", "Attention", "Which head does the work?", "Lesson"):
        go_to(page, label)
        no_exception(page, label)
    go_to(page, "Attention")
    expect(page.get_by_test_id("stSidebar").get_by_role("combobox")).to_have_value(re.compile(re.escape(rule)))


def test_a_learner_on_a_phone_opens_a_link_to_rotate_2_trains_it_and_walks_the_pages(server, browser):
    page = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                               reduced_motion="reduce").new_page()
    load(page, f"{server}/training?task=rotate%3A2&lengths=2-5", timeout=180_000)
    expect(page.get_by_text("This link asks for the task rotate:2")).to_be_visible()
    expect(page.get_by_text("could not be used")).to_have_count(0)   # the Task picker's seeding skips it quietly
    expect(page.get_by_label("Rule", exact=True)).to_have_value("rotate:2")
    expect(page.get_by_text(re.compile(r"rotate the text left by 2 places"))).to_be_visible()
    found = serious(violations(page))
    assert not found, described(found)
    page.get_by_role("heading", name="Train your own").evaluate("h => h.scrollIntoView({block: 'start'})")
    picture(page, "phone-own-task")
    train_and_use(page)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    walk(page, "rotate:2")
    go_to(page, "Attention")
    expect(page.get_by_text(re.compile(r"should look at source position \(i\+2\) mod n"))).to_be_visible()
    go_to(page, "Lesson")   # asked of the rotator itself, in its own words
    expect(page.get_by_role("heading", name="Lesson: how a Transformer learns rotate:2")).to_be_visible()
    expect(page.get_by_text("trained to rotate the text left by 2 places (rotate:2)", exact=False)).to_be_visible()
    expect(page.get_by_text("built on the reversal model", exact=False)).to_have_count(0)
    found = serious(violations(page))
    assert not found, described(found)
    page.context.close()


def test_a_teacher_in_projector_mode_finds_swap_pairs_from_five_examples_and_trains_it(server, browser):
    page = browser.new_context(viewport={"width": 1280, "height": 720}, reduced_motion="reduce").new_page()
    load(page, f"{server}/training?projector=true", timeout=180_000)
    page.get_by_role("tab", name="From examples").click()
    page.get_by_role("button", name="Find the rule").click()
    expect(page.get_by_text(re.compile(r"One rule fits all 5 pairs: swap-pairs"))).to_be_visible(timeout=60_000)
    page.get_by_role("button", name="Use swap-pairs").click()
    settle(page)
    page.get_by_role("tab", name="By rule").click()
    expect(page.get_by_label("Rule", exact=True)).to_have_value("swap-pairs")
    found = serious(violations(page))
    assert not found, described(found)
    screenshot(page, "own-task-projector")
    page.set_viewport_size({"width": 1280, "height": 720})
    train_and_use(page)
    walk(page, "swap-pairs")
    go_to(page, "Lesson")   # projector mode folds the lesson's introduction under its name
    expect(page.get_by_text("How a Transformer learns swap-pairs: about this lesson", exact=True)).to_be_visible()
    page.get_by_role("button", name="Next").click()
    settle(page)
    expect(page.get_by_text("Step 2 of 13", exact=False).first).to_be_visible()
    # the question, asked of the rule (its answer held back if a class on this server votes on the text)
    expect(page.get_by_text("Will the model still write exactly the right answer?", exact=False)).to_be_visible()
    screenshot(page, "own-task-lesson-projector")
    page.context.close()
