"""Class mode in a real browser: a teacher at 1280×720 and three students (one on a 390×844 touch phone) run one
question end to end (join, vote, see the spread, vote again, see the reveal), and, behind HAProxy, students on
two replicas are one class and a replica killed with SIGKILL loses no vote a student was told was stored."""

from __future__ import annotations

import io
import os
import re
import signal
import time
import urllib.request
from collections import Counter
from urllib.parse import parse_qs, urlsplit

import pytest
import zxingcpp
from PIL import Image
from playwright.sync_api import expect

from classroom.database import make_engine, migrate
from classroom.public_link import is_loopback
from classroom import store as store_module
from classroom.store import ClassStore
from drivers.axe import described, serious, violations
from drivers.harness import ROOT, load, settle, start_server, stop_server
from drivers.replicas import COOKIE, start_replicas, stop_replicas

from .conftest import picture, screenshot

PHONE = dict(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)


def class_store() -> ClassStore:
    engine = make_engine(os.environ["EXPLORER_DATABASE_URL"])   # the one the servers use
    migrate(engine)                                             # a test run alone comes before any page made it
    return ClassStore(engine)


def start_class(browser, url: str):
    teacher = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
    load(teacher, f"{url}/run-a-class", timeout=120_000)
    teacher.get_by_role("button", name="Start a class").click()
    expect(teacher.get_by_text("Before the class starts: keep your recovery link")).to_be_visible(timeout=60_000)
    assert teacher.locator(".class-code").count() == 0          # the link first, then the class
    teacher.get_by_role("button", name="I have kept it: start the class").click()
    expect(teacher.locator(".class-code")).to_be_visible(timeout=60_000)
    settle(teacher)
    return teacher, teacher.locator(".class-code").inner_text().strip()


def join(browser, url: str, code: str, nickname: str, phone: bool = False, by_typing: bool = False):
    context = browser.new_context(**PHONE) if phone else browser.new_context(viewport={"width": 1000, "height": 900})
    page = context.new_page()
    load(page, f"{url}/join" if by_typing else f"{url}/join?class={code}", timeout=120_000)
    if by_typing:
        page.get_by_label("Class code").fill(code.lower())         # typed in lower case: still the code
    page.get_by_label("Nickname").first.fill(nickname)
    button = page.get_by_role("button", name="Join")
    button.tap() if phone else button.click()
    expect(page.get_by_text(f"You are {nickname}")).to_be_visible(timeout=60_000)
    return page


def vote(page, option: int, round_: int = 1, tap: bool = False, step: int = 1) -> str:
    """Press an option's button of the step in this round, once the page has drawn that round by itself (a
    student's page follows the teacher within its 3-second poll); the option's label."""
    button = page.locator(f".st-key-vote_{step}_{round_}_{option} button")
    expect(button).to_be_visible(timeout=30_000)
    label = button.inner_text().strip()
    button.tap() if tap else button.click()
    expect(page.get_by_text("Your vote is in")).to_contain_text(f"(round {round_}): {label}", timeout=30_000)
    return label


def press(teacher, name: str) -> None:
    teacher.get_by_role("button", name=name).click()
    settle(teacher)


def test_one_question_end_to_end_with_a_teacher_and_three_students(browser, server):
    teacher, code = start_class(browser, server)
    phone = join(browser, server, code, "Ann", phone=True, by_typing=True)
    laptops = [join(browser, server, code, name) for name in ("Bo", "Cy")]
    expect(teacher.get_by_text("3 students joined")).to_be_visible(timeout=10_000)   # polled, not reloaded

    press(teacher, "Open voting")
    picks = [vote(phone, 0, tap=True), vote(laptops[0], 1), vote(laptops[1], 1)]
    expect(teacher.get_by_text("3 of 3 voted in round 1")).to_be_visible(timeout=10_000)
    screenshot(phone, "class-phone-voted")

    press(teacher, "Show the spread")
    for page in (phone, *laptops):
        expect(page.locator("figure[role='img'][aria-label^='The class, round 1']")).to_have_count(1, timeout=10_000)
    assert class_store().counts(code, 1, 1) == Counter(picks)          # each vote stored once
    screenshot(teacher, "class-teacher-spread")

    press(teacher, "Round 2")
    again = [vote(phone, 1, 2, tap=True), vote(laptops[0], 1, 2), vote(laptops[1], 0, 2)]
    expect(teacher.get_by_text("3 of 3 voted in round 2")).to_be_visible(timeout=10_000)
    press(teacher, "Reveal")
    expect(teacher.get_by_text("Round 2: share right")).to_be_visible()
    for page in (phone, *laptops):
        expect(page.get_by_text("The model's answer")).to_be_visible(timeout=10_000)
    store = class_store()
    assert store.counts(code, 1, 1) == Counter(picks) and store.counts(code, 1, 2) == Counter(again)
    screenshot(teacher, "class-teacher-reveal")
    screenshot(phone, "class-phone-reveal")
    for page in (teacher, phone, *laptops):
        assert page.locator("[data-testid='stException']").count() == 0
        page.context.close()


MAIN_TO_BOTTOM = "document.querySelector(\"[data-testid='stMain']\").scrollTo({top: 1e6})"
WORD_JOINER = "\u2060"   # what keeps an address in a nickname from being read as a link; not seen


def test_on_a_phone_the_vote_fills_the_table_fits_and_the_answer_comes_without_scrolling(browser, server):
    """Issue 65, problem 7 (the report's P8), on a 390×844 touch phone: the option just tapped is filled at once;
    the step's table is turned so it fits 390 px with no toolbar over the expander's title; at the reveal, with
    the student scrolled down to the buttons, the model's answer and their own result are in view; a nickname
    holding an address is shown as typed and is not a link."""
    store = class_store()
    new = store.create_class("hello")
    phone = browser.new_context(**PHONE).new_page()
    load(phone, f"{server}/join?class={new.code}", timeout=120_000)
    picture(phone, "join-phone-form")
    phone.get_by_label("Nickname").first.fill("see http://e.x or a@b.co")
    phone.get_by_role("button", name="Join").tap()
    caption = phone.get_by_text("You are see")
    expect(caption).to_be_visible(timeout=60_000)
    assert caption.inner_text().replace(WORD_JOINER, "").startswith("You are see http://e.x or a@b.co in class")
    assert caption.locator("a").count() == 0 and phone.locator("[data-testid='stMain'] a[href*='e.x']").count() == 0

    table = phone.locator("[data-testid='stExpander'] [data-testid='stTable'] table").first
    expect(table).to_be_visible(timeout=30_000)
    box = table.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box                 # every column on the screen
    assert table.locator("tbody tr").count() == len("hello")                     # a row per character
    assert phone.locator("[data-testid='stExpander'] [data-testid='stElementToolbar']").count() == 0

    store.open_voting(new.code, new.secret)
    picked = phone.locator(".st-key-vote_1_1_1 button")
    expect(picked).to_be_visible(timeout=30_000)
    picked.tap()
    expect(phone.get_by_text("Your vote is in")).to_be_visible(timeout=30_000)
    settle(phone)
    assert picked.get_attribute("data-testid") == "stBaseButton-primary"
    others = [phone.locator(f".st-key-vote_1_1_{i} button").get_attribute("data-testid") for i in (0, 2)]
    assert others == ["stBaseButton-secondary"] * 2
    picture(phone, "join-phone-voted")

    phone.evaluate(MAIN_TO_BOTTOM)                                             # down at the buttons
    store.close_voting(new.code, new.secret)
    store.reveal(new.code, new.secret)
    answer = phone.get_by_text("The model's answer")
    expect(answer).to_be_visible(timeout=30_000)                               # polled, not reloaded
    result = phone.get_by_text(re.compile("You were right|Yours was another answer"))
    for shown in (answer, result):
        expect(shown).to_be_in_viewport(timeout=10_000)
        assert shown.bounding_box()["y"] + shown.bounding_box()["height"] <= 844
    picture(phone, "join-phone-reveal")
    assert phone.locator("[data-testid='stException']").count() == 0
    phone.context.close()


def secret_anywhere(page, secret: str) -> list[str]:
    """Where the secret shows on this page: its URL, its DOM (every element, hidden or closed ones too) or the
    text of what it would copy."""
    settle(page)
    return [where for where, text in (("URL", page.url), ("DOM", page.content())) if secret in text]


def test_the_projector_view_follows_the_presenter_and_never_holds_the_secret(browser, server):
    """Issue 65: two screens. The presenter's link opens the projector view in a new tab (projector mode, the
    code alone in its link); it follows every move the presenter makes, holds no control, and the secret is in
    neither its URL nor its DOM, in any state. The private link opened in projector mode (a teacher's natural
    first move) shows the projector view too."""
    teacher, code = start_class(browser, server)
    teacher.get_by_text("Your private teacher link").click()
    private = teacher.locator("[data-testid='stCode']").filter(has_text="teacher=").inner_text().strip()
    secret = private.split("teacher=")[1].split("&")[0]
    assert len(secret) >= 20 and secret in teacher.content()                # on the presenter's screen only
    with teacher.context.expect_page() as opened:
        teacher.get_by_role("link", name="Open the projector view in a new tab ↗").click()
    projected = opened.value
    projected.set_viewport_size({"width": 1280, "height": 720})
    expect(projected.locator(".class-bar-code")).to_have_text(code, timeout=60_000)
    assert "projector=true" in projected.url
    assert secret_anywhere(projected, secret) == [], "opened"
    assert projected.get_by_role("button", name="Open voting").count() == 0
    student = join(browser, server, code, "Ann")
    for button, shows in (("Open voting", "0 of 1 voted · round 1"), ("Show the spread", "Round 1: 1 votes"),
                          ("Round 2", "round 2"), ("Reveal", "The model's answer"),
                          ("Open the before quiz", "The before quiz is open")):
        if button == "Show the spread":
            vote(student, 0)
        press(teacher, button)
        expect(projected.get_by_text(shows).first).to_be_visible(timeout=15_000)    # by itself, polled
        assert secret_anywhere(projected, secret) == [], button
        if button in ("Show the spread", "Reveal"):      # the teacher's guide's pictures of both screens
            picture(projected, f"class-projector-{button.split()[-1].lower()}")
            picture(teacher, f"class-presenter-{button.split()[-1].lower()}")
    screenshot(projected, "class-projected-no-secret")
    found = serious(violations(projected))
    assert not found, described(found)
    linked = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
    load(linked, f"{private}&projector=true", timeout=120_000)
    expect(linked.locator(".class-bar-code")).to_have_text(code, timeout=60_000)
    assert secret_anywhere(linked, secret) == [] and linked.get_by_role("button", name="Open voting").count() == 0
    for page in (projected, student, linked):
        assert page.locator("[data-testid='stException']").count() == 0
    for page in (teacher, student, linked):
        page.context.close()


# The lowest edge of what the main block shows (a closed expander's content is not shown), and where the code is.
SHOWN_BOTTOM = """() => { const b = document.querySelector("[data-testid='stMainBlockContainer']");
  return Math.max(...[...b.querySelectorAll('*')].filter(e => e.checkVisibility()).map(e => e.getBoundingClientRect().bottom)); }"""


def test_the_projector_view_fits_one_1280_by_720_screen_at_every_step(browser, server):
    """Issue 65, problem 4: the projected page was 3.2-4.4 screens tall, the code and QR scrolled away and the
    count was body text. At every step of the class's text, before voting, with the spread shown and at the
    reveal: everything shown ends within 720 px, the code and the QR are in view, the count is large type."""
    store = class_store()
    new = store.create_class("world")
    store.join(new.code, "Ann")
    page = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
    for step in range(1, store_module.STEPS + 1):
        store.go_to_step(new.code, new.secret, step)
        for state, move in (("asked", None), ("spread", store.show_spread), ("revealed", store.reveal)):
            if move:
                move(new.code, new.secret)
            load(page, f"{server}/run-a-class?class={new.code}&projector=true", timeout=120_000)
            expect(page.locator(".class-bar-code")).to_have_text(new.code)
            bottom = page.evaluate(SHOWN_BOTTOM)
            assert bottom <= 720, (step, state, bottom)
            for shown in (page.locator(".class-bar-code"), page.locator("img.class-bar-qr")):
                box = shown.bounding_box()
                assert box and box["y"] >= 0 and box["y"] + box["height"] <= 720, (step, state)
            count = page.locator(".class-count")                    # every step of 'world' asks a question
            expect(count).to_have_count(1)
            size = float(count.evaluate("e => getComputedStyle(e).fontSize").removesuffix("px"))
            assert size >= 33, (step, state, size)          # 1.2 rem of projector mode's 28 px at least
    assert page.locator("[data-testid='stException']").count() == 0
    page.context.close()


def in_control(page, code: str) -> None:
    """The page runs the class of `code`: its code shown large and the teacher's buttons there."""
    expect(page.locator(".class-code")).to_have_text(code, timeout=90_000)
    expect(page.get_by_role("button", name="Open voting")).to_be_visible(timeout=30_000)
    assert page.get_by_text("controls a class only after").count() == 0


def test_a_reload_or_a_new_tab_gives_the_teacher_the_class_back_and_another_browser_does_not(browser, server):
    """Issue 65, problem 1: a reload left 'open that link, or start a new class'. The browser that started the
    class takes it back, without the private link, in the same tab and in a new one; another browser opening
    the same address gets no control."""
    teacher, code = start_class(browser, server)
    assert "teacher=" not in teacher.url
    teacher.reload()
    settle(teacher)
    in_control(teacher, code)
    second_tab = teacher.context.new_page()
    load(second_tab, f"{server}/run-a-class", timeout=120_000)   # no code in the link: this browser's class
    in_control(second_tab, code)
    press(second_tab, "Open voting")                   # either tab runs it
    stranger = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
    load(stranger, f"{server}/run-a-class?class={code}", timeout=120_000)
    expect(stranger.get_by_text("controls a class only after")).to_be_visible()
    assert stranger.get_by_role("button", name="Open voting").count() == 0
    assert class_store().snapshot(code).state.voting
    for page in (teacher, second_tab, stranger):
        assert page.locator("[data-testid='stException']").count() == 0
    teacher.context.close()
    stranger.context.close()


def replica_of(page) -> str:
    return next(c["value"] for c in page.context.cookies() if c["name"] == COOKIE)


@pytest.mark.load
def test_students_on_two_replicas_are_one_class_and_a_killed_replica_loses_no_stored_vote(
        chromium_path, haproxy, browser):
    served = start_replicas(2, ROOT / "artifacts" / "e2e-class-replicas")
    try:
        teacher, code = start_class(browser, served.url)
        students = [join(browser, served.url, code, f"S{i}") for i in range(4)]
        on = {replica_of(p) for p in students}
        assert len(on) == 2, f"every student went to {on}"   # HAProxy balances by least connections
        expect(teacher.get_by_text("4 students joined")).to_be_visible(timeout=10_000)
        press(teacher, "Open voting")
        told = {i: vote(p, i % 2) for i, p in enumerate(students)}
        expect(teacher.get_by_text("4 of 4 voted in round 1")).to_be_visible(timeout=10_000)

        press(teacher, "Round 2")
        victim = next(r for r in on if r != replica_of(teacher))
        first = [i for i, p in enumerate(students) if replica_of(p) == victim][0]
        told_again = {first: vote(students[first], 1 - first % 2, 2)}   # stored, then its replica dies
        pids = {f"replica{number}": pid for number, _, pid in served.table()}
        os.kill(pids[victim], signal.SIGKILL)

        store = class_store()
        assert store.counts(code, 1, 1) == Counter(told.values())
        assert store.counts(code, 1, 2) == Counter(told_again.values())
        moved = students[first]             # its page reconnects by itself: to the live replica, same seat
        deadline = time.monotonic() + 90
        while replica_of(moved) == victim and time.monotonic() < deadline:
            moved.wait_for_timeout(500)
        assert replica_of(moved) != victim, "the student's page never moved to the live replica"
        settle(moved)
        expect(moved.get_by_text("Your vote is in")).to_contain_text(told_again[first], timeout=30_000)
        moved.reload()                      # and a reload, too, finds the seat and the vote
        expect(moved.get_by_text("Your vote is in")).to_contain_text(told_again[first], timeout=60_000)
        others = [i for i in range(4) if i != first]
        for i in others:
            told_again[i] = vote(students[i], 0, 2)
        expect(teacher.get_by_text("4 of 4 voted in round 2")).to_be_visible(timeout=30_000)
        assert store.counts(code, 1, 2) == Counter(told_again.values())
        assert store.snapshot(code).joined == 4                  # nobody seated twice by the move
    finally:
        stop_replicas(served)


@pytest.mark.load
def test_the_teachers_replica_killed_the_teachers_page_comes_back_by_itself(chromium_path, haproxy, browser):
    """Issue 65, problem 1: the teacher's replica dying lost the class's control with its session. The page
    reconnects to the live replica, which hands the class back to the browser that started it; the round goes on
    and the count follows the vote."""
    served = start_replicas(2, ROOT / "artifacts" / "e2e-teacher-replica")
    try:
        teacher, code = start_class(browser, served.url)
        student = join(browser, served.url, code, "Ann")
        expect(teacher.get_by_text("1 student joined")).to_be_visible(timeout=10_000)
        press(teacher, "Open voting")
        victim = replica_of(teacher)
        pids = {f"replica{number}": pid for number, _, pid in served.table()}
        os.kill(pids[victim], signal.SIGKILL)
        deadline = time.monotonic() + 90
        while replica_of(teacher) == victim and time.monotonic() < deadline:
            teacher.wait_for_timeout(500)
        assert replica_of(teacher) != victim, "the teacher's page never moved to the live replica"
        in_control(teacher, code)                       # by itself: no reload, no link
        told = vote(student, 0)
        expect(teacher.get_by_text("1 of 1 voted in round 1")).to_be_visible(timeout=30_000)
        assert class_store().counts(code, 1, 1) == Counter([told])
        press(teacher, "Reveal")                        # and the teacher still controls it
        assert class_store().snapshot(code).state.revealed
    finally:
        stop_replicas(served)


@pytest.fixture(scope="module")
def network_server(chromium_path):
    """A server listening on every interface, as `streamlit run app.py` does by default, opened as 127.0.0.1."""
    process, url = start_server("e2e-network-server.log", address="0.0.0.0")
    yield url
    stop_server(process)


def scanned(page, image: str = "img.class-qr") -> str:
    """What a phone's camera reads off the QR code as the page draws it."""
    png = page.locator(image).first.screenshot()
    found = zxingcpp.read_barcodes(Image.open(io.BytesIO(png)))
    assert len(found) == 1, f"{len(found)} codes read"
    return found[0].text


def test_the_qr_code_opened_on_loopback_points_phones_at_the_servers_network_address(browser, network_server):
    """Issue 65, problem 3: opened as 127.0.0.1, the QR decoded to http://127.0.0.1:…/join, which no phone can
    reach. Now it carries an address of this machine's network, the server answers there, and a phone that opens
    what it scanned joins the class."""
    teacher, code = start_class(browser, network_server)
    assert urlsplit(teacher.url).hostname == "127.0.0.1"
    link = scanned(teacher)
    parts = urlsplit(link)
    assert not is_loopback(parts.hostname), link
    assert (parts.path, parse_qs(parts.query)) == ("/join", {"class": [code]})
    health = f"{parts.scheme}://{parts.netloc}/_stcore/health"
    assert urllib.request.urlopen(health, timeout=30).read() == b"ok"
    assert link in teacher.locator(".class-code-intro").inner_text()       # the words say what the code says
    assert teacher.get_by_text("A phone cannot open").count() == 0
    phone = browser.new_context(**PHONE).new_page()
    load(phone, link, timeout=120_000)
    phone.get_by_label("Nickname").first.fill("Ann")
    phone.get_by_role("button", name="Join").tap()
    expect(phone.get_by_text("You are Ann")).to_be_visible(timeout=60_000)
    expect(teacher.get_by_text("1 student joined")).to_be_visible(timeout=10_000)
    projected = teacher.context.new_page()                  # the projector view's smaller code says the same
    load(projected, f"{network_server}/run-a-class?class={code}&projector=true", timeout=120_000)
    assert scanned(projected, "img.class-bar-qr") == link
    for page in (teacher, phone):
        page.context.close()


def test_a_server_on_this_computer_only_says_that_phones_cannot_join(browser, server):
    """Listening on 127.0.0.1 alone, no address can reach it from a phone: the teacher is told so in words, and
    the QR code carries the address as it is."""
    teacher, code = start_class(browser, server)
    expect(teacher.get_by_text("A phone cannot open")).to_be_visible()
    assert urlsplit(scanned(teacher)).hostname == "127.0.0.1"
    teacher.context.close()
