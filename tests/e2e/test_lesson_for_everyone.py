"""The lesson as three kinds of learner meet it, in Chromium: by keyboard alone (the focus stays on the step
controls from the first step to the last and round again, and a question is answered without a mouse), on a
phone (every step by touch, nothing wider than the screen), and projected in a hall (28-px text, each step's
numbers on the first screen at 1280×720, whole 24.5-px button labels at 1024×768)."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from drivers.harness import load, run_ends
from teaching.steps import STEPS

LAST = len(STEPS)
FOCUSED_KEY = """() => document.activeElement?.closest("[class*='st-key-']")?.className.match(/st-key-(\\S+)/)?.[1]"""
FOCUS_RING = "() => { const s = getComputedStyle(document.activeElement); return [s.outlineStyle, s.outlineWidth] }"
# Elements of the page body that reach past the window's right edge, outside any box that scrolls sideways
# (a wide table scrolls inside its own box, which is fine on a phone).
SPILLING = """() => [...document.querySelectorAll("[data-testid='stMain'] [data-testid='stElementContainer']")]
    .filter(e => e.getBoundingClientRect().width > 0 && e.getBoundingClientRect().right > innerWidth + 1)
    .filter(e => { for (let a = e.parentElement; a; a = a.parentElement) {
        if (a.matches("[data-testid='stMain']")) return true;
        const o = getComputedStyle(a).overflowX; if (o === 'auto' || o === 'scroll') return false; }
        return true; })
    .map(e => (e.firstElementChild?.dataset.testid || e.className).slice(0, 40) + ' ' + Math.round(e.getBoundingClientRect().right))"""
BODY_TEXT = """() => [...document.querySelectorAll(".st-key-lesson_slide [data-testid='stMarkdown'] p")]
    .filter(p => p.closest("[data-testid]").dataset.testid === "stMarkdownContainer")    // captions aside
    .map(p => parseFloat(getComputedStyle(p).fontSize))"""
# The top of the first element in the slide's right-hand column (the step's numbers), and its height.
FIRST_NUMBERS = """() => { const column = document.querySelectorAll(".st-key-lesson_slide [data-testid='stColumn']")[1];
    const first = column && [...column.querySelectorAll("[data-testid='stElementContainer']")]
        .find(e => e.getBoundingClientRect().height > 0);
    return first ? [first.getBoundingClientRect().top, first.getBoundingClientRect().height] : null; }"""


def step_shown(page, number: int) -> None:
    expect(page.get_by_test_id("stMain").get_by_text(f"Step {number} of {LAST}", exact=False)).to_be_visible(
        timeout=120_000)


def right_answer(step: int, text: str) -> tuple[str, list[str]]:
    """The answer the page grades right (the model's own) and the options in their order."""
    from explorer.cache import BUNDLED_CHECKPOINT
    from explorer.lesson import question
    asked = question(step, str(BUNDLED_CHECKPOINT), text)
    return asked.answer, list(asked.options)


def shown_before_the_answer(step: int, text: str) -> bool:
    """Whether the step shows numbers before its question (some show them only with the answer)."""
    from explorer.cache import BUNDLED_CHECKPOINT
    from explorer.lesson import step_view
    return bool(step_view(step, str(BUNDLED_CHECKPOINT), text, ask_tables=False).before)


def test_the_lesson_is_walked_by_keyboard_alone_with_the_focus_kept_on_its_controls(server, browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, reduced_motion="reduce")
    page = context.new_page()
    load(page, f"{server}/lesson?text=banana", timeout=180_000)
    for _ in range(80):                                      # Tab from the top of the page to Next
        page.keyboard.press("Tab")
        if page.evaluate(FOCUSED_KEY) == "lesson_next":
            break
    assert page.evaluate(FOCUSED_KEY) == "lesson_next"
    assert page.evaluate(FOCUS_RING) == ["solid", "3px"]    # a ring the eye can find
    for number in [*range(2, LAST + 1), 1]:                  # Enter on Next to the last step, and round again
        with run_ends(page, timeout=120_000):
            page.keyboard.press("Enter")
        step_shown(page, number)
        assert page.evaluate(FOCUSED_KEY) == "lesson_next", number   # never dropped to the page body
        expect(page.locator(".st-key-lesson_next button >> visible=true")).to_have_text(
            re.compile("^Start again" if number == LAST else "^Next"))
    page.keyboard.press("Shift+Tab")                         # the slider
    page.keyboard.press("Shift+Tab")                         # Previous, which stays on step 1 and says so
    assert page.evaluate(FOCUSED_KEY) == "lesson_previous"
    with run_ends(page):                                     # its run ends before the next step's wait starts
        page.keyboard.press("Enter")
    expect(page.get_by_test_id("stToast")).to_contain_text("first step")
    assert page.evaluate(FOCUSED_KEY) == "lesson_previous"
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    for number in range(2, 7):
        with run_ends(page, timeout=120_000):
            page.keyboard.press("Enter")
        step_shown(page, number)

    right, options = right_answer(6, "banana")               # step 6 asks with a row of pills, one a position
    main = page.get_by_test_id("stMain")
    for _ in range(40):                                      # Tab on to the question's first option
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement.getAttribute('role') === 'radio'"):
            break
    expect(main.get_by_role("radio", name=options[0], exact=True)).to_be_focused()
    for _ in range(options.index(right)):                    # the arrows move along the row
        page.keyboard.press("ArrowRight")
    expect(main.get_by_role("radio", name=right, exact=True)).to_be_focused()
    with run_ends(page):
        page.keyboard.press("Space")                         # and Space picks
    expect(main.get_by_role("radio", name=right, exact=True)).to_be_checked()
    page.keyboard.press("Tab")                               # on to "Check my answer"
    expect(main.get_by_role("button", name="Check my answer")).to_be_focused()
    with run_ends(page):
        page.keyboard.press("Enter")
    expect(page.get_by_test_id("stAlertContentSuccess")).to_contain_text(f"Right: {right}")
    assert page.locator("[data-testid='stException']").count() == 0
    context.close()


def test_the_lesson_works_by_touch_on_a_phone_and_nothing_is_wider_than_the_screen(server, browser):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                                  reduced_motion="reduce")
    page = context.new_page()
    load(page, f"{server}/lesson?text=banana", timeout=180_000)
    main = page.get_by_test_id("stMain")
    for number in range(1, LAST + 1):
        if number > 1:                                       # step 1: load waited for its run
            with run_ends(page, timeout=120_000):
                page.locator(".st-key-lesson_next button >> visible=true").tap()
        step_shown(page, number)
        page.wait_for_timeout(300)                           # a canvas takes its width once laid out
        assert page.evaluate(SPILLING) == [], number
        assert page.evaluate("document.documentElement.scrollWidth") <= 390, number
    with run_ends(page, timeout=120_000):
        page.locator(".st-key-lesson_next button >> visible=true").tap()     # "Start again"
    step_shown(page, 1)
    for _ in range(5):
        with run_ends(page):
            page.locator(".st-key-lesson_next button >> visible=true").tap()
    step_shown(page, 6)
    right, _ = right_answer(6, "banana")
    with run_ends(page):
        main.get_by_role("radiogroup").get_by_text(right, exact=True).tap()
    with run_ends(page):
        main.get_by_role("button", name="Check my answer").tap()
    expect(page.get_by_test_id("stAlertContentSuccess")).to_contain_text(f"Right: {right}")
    expect(page.locator(".heatmap canvas")).to_have_count(1)   # the cross-attention, revealed
    assert page.evaluate(SPILLING) == []
    context.close()


def test_projected_in_a_hall_each_step_shows_its_numbers_on_the_first_screen_in_28_px_type(server, browser):
    context = browser.new_context(viewport={"width": 1280, "height": 720}, reduced_motion="reduce")
    page = context.new_page()
    for number in range(1, LAST + 1):
        load(page, f"{server}/lesson?text=banana&projector=true&lesson_step={number}", timeout=180_000)
        step_shown(page, number)
        page.evaluate("document.fonts.ready.then(() => true)")     # measured in the page's own fonts
        assert min(page.evaluate(BODY_TEXT)) >= 28, number         # the step's text (captions are 24.5 px)
        expect(page.get_by_test_id("stSidebar")).to_have_attribute("data-collapsed", "true")     # folded away,
        expect(page.get_by_role("button", name="Expand sidebar", exact=True)).to_have_attribute(  # and said so
            "aria-expanded", "false")
        first = page.evaluate(FIRST_NUMBERS)
        if not shown_before_the_answer(number, "banana"):                 # its numbers wait for the answer
            assert first is None, number
            continue
        top, height = first
        assert top + min(height, 150) <= 720, (number, top, height)        # at least 150 px of it in view
    page.set_viewport_size({"width": 1024, "height": 768})
    load(page, f"{server}/lesson?text=banana&projector=true&lesson_step=4", timeout=180_000)
    for key in ("lesson_previous", "lesson_next"):                         # whole words, not "P…" and "N…"
        label = page.locator(f".st-key-{key} button >> visible=true").get_by_test_id("stMarkdownContainer")
        assert label.evaluate("m => m.scrollWidth <= m.clientWidth && m.clientWidth > 0"), key   # not cut
        assert label.evaluate("m => parseFloat(getComputedStyle(m.firstElementChild).fontSize)") >= 24, key  # 24.5
    context.close()
