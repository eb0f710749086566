"""Run a class and Join a class through AppTest, on a real SQLite file (EXPLORER_DATABASE_URL): a teacher starts
a class and steps it, students join, vote, change their vote, see the spread and the reveal; every bad input
gets its own message and changes nothing; one browser holds one seat, guessing codes and starting classes are
limited by address, and the Lesson page holds back what the class has not been shown."""

from __future__ import annotations

import csv
import io
import re

import pytest

from classroom.database import make_engine
from classroom.errors import QuizClosed, UnknownClass
from classroom.store import ClassStore
from explorer import classes
from server import identity
from server.identity import UNKNOWN
from explorer.classes import CLASS_MODEL_KEY, TEACHING_KEY
from analysis.run import Decoding, make_run
from explorer.cache import shared_checkpoint
from explorer.lesson import question
from server.limits import Buckets
from teaching.class_mode import HELD_BACK
from teaching.gradebook import table_csv

from .helpers import no_exception, open_page, row_bars


@pytest.fixture
def store(tmp_path, monkeypatch):
    url = f"sqlite:///{tmp_path / 'classes.db'}"
    monkeypatch.setenv("EXPLORER_DATABASE_URL", url)
    store = ClassStore(make_engine(url))
    from classroom.database import migrate
    migrate(store.engine)
    return store


@pytest.fixture(autouse=True)
def fresh_limits(monkeypatch):
    """Every AppTest session has the same address ("unknown"): each test starts with the limits untouched."""
    for name in ("WRONG_CODES", "NEW_CLASSES_BY_BROWSER", "NEW_CLASSES_BY_ADDRESS"):
        old = getattr(classes, name)
        monkeypatch.setattr(classes, name, Buckets(old.burst, old.every))


def texts(at) -> str:
    return " ".join(str(e.value) for kind in ("markdown", "caption", "info", "success", "warning", "error")
                    for e in getattr(at, kind))


def teacher(new) -> object:
    return open_page("run_a_class", None, query={"class": new.code, "teacher": new.secret})


def student(code: str, token: str | None = None):
    return open_page("join", None, query={"class": code, **({"seat": token} if token else {})})


def test_a_teacher_starts_a_class_and_gets_a_code_a_qr_code_and_a_private_link(store):
    at = open_page("run_a_class", None)
    no_exception(at)
    at.text_input[0].set_value("hello")
    at.button[0].click().run()
    no_exception(at)
    code, secret = at.session_state[TEACHING_KEY]
    assert dict(at.query_params) == {"class": code}                          # the secret is not projected
    assert store.teacher_state(code, secret).text == "hello"
    # first, once: the recovery link to keep, before any control (AppTest has no browser cookie: the link is
    # this session's only way back, and the box says so)
    assert [c.value.split("/")[-1] for c in at.code if secret in c.value] == [f"run-a-class?class={code}&teacher={secret}"]
    assert "the link is the only way back" in texts(at)
    assert not [b for b in at.button if b.label == "Open voting"]
    at.button(key="link_kept").click().run()
    no_exception(at)
    assert any(code in str(h.proto.body) for h in at.get("html"))          # shown large
    qr = [h for h in at.get("html") if "class='class-qr'" in str(h.proto.body)]
    assert len(qr) == 1 and "alt='QR code of the join link http" in str(qr[0].proto.body)   # the QR code, named
    assert any(secret in c.value for c in at.code)                           # the private link, in an expander
    assert "0 students joined" in texts(at) and "Step 1 of 13" in " ".join(s.value for s in at.header)


def test_in_projector_mode_the_page_is_the_projector_view_and_holds_no_secret(store):
    """Issue 65: the projected page is what the room sees, from the code alone: the code, the question and the
    count; no control, no private link, even opened with the secret in its link (the secret moves into the
    session for the presenter's tab, and out of the address)."""
    new = store.create_class("hello")
    for query in ({"class": new.code, "teacher": new.secret}, {"class": new.code}):
        at = open_page("run_a_class", None, query=query, state={"projector": True})
        no_exception(at)
        assert dict(at.query_params) == {"class": new.code}
        assert not [b for b in at.button if b.label == "Open voting"]
        assert not any(new.secret in c.value for c in at.code)
        assert any(new.code in str(h.proto.body) for h in at.get("html"))
        assert any("Step 1 of 13" in s.value for s in at.subheader)
        assert "the controls are on the presenter view" in texts(at)
    store.open_voting(new.code, new.secret)
    assert "0 of 0 voted · round 1" in " ".join(str(h.proto.body) for h in at.run().get("html"))


def test_a_projector_view_of_no_class_says_so_and_counts_as_a_wrong_code(store):
    for code in ("ZZZZZZ", "not-a-code", "<b>x</b>"):
        at = open_page("run_a_class", None, query={"class": code}, state={"projector": True})
        no_exception(at)
        assert "No class has this code" in " ".join(e.value for e in at.error), code
    assert classes.WRONG_CODES.wait_for(UNKNOWN) == 0                  # three of its ten at once spent
    for _ in range(7):
        classes.count_wrong_code()
    at = open_page("run_a_class", None, query={"class": "ZZZZZZ"}, state={"projector": True})
    assert "Too many wrong codes" in " ".join(e.value for e in at.error)


def test_a_new_class_starts_on_a_text_where_the_lessons_predictions_follow_its_rules(store):
    """Review finding N9: on "hello" steps 6 and 8 land on the exception, so a class could only guess them. The
    start form's text is one where step 6's last layer keeps to n − 1 − i and step 8's text does what most
    held-out words do; the reveal's own words say so."""
    at = open_page("run_a_class", None)
    text = at.text_input[0].value
    ckpt = shared_checkpoint()
    run = make_run(ckpt.model, ckpt.vocab, text)
    n, last = len(text), ckpt.model.config.n_decoder_layers - 1
    for step in range(1, n):                       # whichever step 6 asks: the last layer keeps to n − 1 − i
        tops = run.trace["cross", last][:, step].argmax(-1)                                  # (H,)
        assert (tops == n - 1 - step).sum() >= 3, (text, step, tops)
    assert "only in part" not in question(6, CLASS_MODEL_KEY, text).why
    forced = make_run(ckpt.model, ckpt.vocab, text, Decoding(forced=((0, ckpt.vocab.encode("z", 1)[0]),)))
    assert forced.output == "z" + text[::-1]                          # it starts again, as most held-out words do
    eight = question(8, CLASS_MODEL_KEY, text)
    tally = {said: int(count) for count, said in re.findall(       # the held-out tally the step shows
        r"(\d+) (wrote 'z' and then the whole reversal|wrote the reversal without|wrote something else)", eight.why)}
    assert len(tally) == 3, eight.why
    assert max(tally, key=tally.get).startswith("wrote 'z' and then"), tally


def test_a_text_the_model_cannot_read_starts_no_class(store):
    at = open_page("run_a_class", None)
    at.text_input[0].set_value("héllo ☃")
    at.button[0].click().run()
    no_exception(at)
    assert at.error and "class" not in at.query_params


@pytest.mark.parametrize("secret", ["", "x", "wrong-secret-of-the-right-length-xxxxxx"])
def test_a_wrong_teacher_link_opens_nothing(store, secret):
    new = store.create_class("hello")
    at = open_page("run_a_class", None, query={"class": new.code, "teacher": secret})
    no_exception(at)
    if secret:
        assert any("does not open any class" in e.value for e in at.error)
    else:
        assert any("private teacher link" in w.value for w in at.warning)
    assert not [b for b in at.button if b.label == "Open voting"]
    assert [b.label for b in at.button] == ["Start a class"]                 # a new class can be started
    assert "teacher" not in at.query_params and TEACHING_KEY not in at.session_state
    assert not store.snapshot(new.code).state.voting


def test_the_teachers_buttons_drive_the_class(store):
    new = store.create_class("hello")
    at = teacher(new)
    assert dict(at.query_params) == {"class": new.code}           # the private link's secret left the URL
    button = {b.label: b for b in at.button}
    assert button["Close voting"].disabled and not button["Open voting"].disabled
    button["Open voting"].click().run()
    no_exception(at)
    assert store.snapshot(new.code).state.voting
    {b.label: b for b in at.button}["Round 2"].click().run()
    assert store.snapshot(new.code).state.round == 2
    {b.label: b for b in at.button}["Reveal"].click().run()
    no_exception(at)
    state = store.snapshot(new.code).state
    assert state.revealed and not state.voting
    q = question(1, CLASS_MODEL_KEY, "hello")
    assert any(s.value.replace("\\", "").startswith(f"The model's answer: {q.answer}") for s in at.success)


def test_a_student_joins_votes_changes_the_vote_and_sees_the_reveal(store):
    new = store.create_class("hello")
    at = student(new.code)
    no_exception(at)
    at.text_input[1].set_value("<b>Ann</b>")
    at.button[0].click().run()
    no_exception(at)
    token = at.query_params["seat"]
    assert "<b>Ann</b>" in texts(at).replace("\\", "") and not [h for h in at.get("html") if "<b>Ann" in
                                                                 str(h.proto.body)]
    assert any("Voting is not open" in i.value for i in at.info)
    store.open_voting(new.code, new.secret)
    at = student(new.code, token)
    q = question(1, CLASS_MODEL_KEY, "hello")
    options = [b for b in at.button if b.key and b.key.startswith("vote_1_1_")]
    assert len(options) == len(q.options)
    options[0].click().run()
    no_exception(at)
    assert any(f"Your vote is in (round 1): {q.options[0]}" in s.value.replace("\\", "") for s in at.success)
    [b for b in at.button if b.key == "vote_1_1_1"][0].click().run()
    assert store.counts(new.code, 1, 1) == {q.options[1]: 1}              # replaced, not added
    store.show_spread(new.code, new.secret)
    at = student(new.code, token)                                          # a reload: the same seat, its vote
    assert store.snapshot(new.code).joined == 1
    assert any(q.options[1] in s.value.replace("\\", "") for s in at.success)
    [spread] = row_bars(at)
    assert spread == [("votes", o, float(o == q.options[1])) for o in q.options]   # one vote, the changed one
    store.reveal(new.code, new.secret)
    at = student(new.code, token)
    no_exception(at)
    assert any(s.value.replace("\\", "").startswith(f"The model's answer: {q.answer}") for s in at.success)


def wrong_code(at) -> str:
    at.text_input[0].set_value("ZZZZZZ")
    at.button[0].click().run()
    no_exception(at)
    return " ".join(e.value for e in at.error)


def test_wrong_join_codes_slow_the_address_down_whatever_the_sessions_or_right_codes(store, monkeypatch):
    """Issue 63: a fresh session every few guesses, or a right code in between, reset the wait per session (80.9
    guesses a second, never slowed). The wait is the address's, and a guess refused asks nothing of the store."""
    monkeypatch.setattr(classes, "WRONG_CODES", Buckets(3, 60.0, clock=lambda: 1000.0))   # time stands still
    new = store.create_class("hello")
    at = open_page("join", None)
    assert "No class has this code" in wrong_code(at)
    at = open_page("join", None)                                        # a fresh session
    assert "No class has this code" in wrong_code(at)
    at = student(new.code)                                              # a right code: a seat, and no reset
    at.button[0].click().run()
    assert "seat" in at.query_params
    at = open_page("join", None)
    assert "No class has this code" in wrong_code(at)
    asked = []
    monkeypatch.setattr(ClassStore, "join", lambda self, *a: asked.append(a))
    for fresh in range(2):
        at = open_page("join", None)
        assert "Too many wrong codes from your network: try again in 60 s." in wrong_code(at)
    assert asked == []


def test_a_nickname_too_long_or_a_class_gone_is_said_plainly(store):
    new = store.create_class("hello")
    at = student(new.code)
    at.text_input[1].set_value("x" * 40)       # past max_chars: Streamlit keeps the first 24 (the store refuses
    at.button[0].click().run()                 # a longer one: tests/unit/test_classroom.py)
    no_exception(at)
    token = at.query_params["seat"]
    assert store.seat(new.code, token).nickname == "x" * 24
    store.end_class(new.code, new.secret)
    at = student(new.code, token)
    no_exception(at)
    assert any("join again" in w.value for w in at.warning) and at.button[0].label == "Join"


def test_an_unreachable_database_is_a_message_on_the_class_pages_only(monkeypatch):
    monkeypatch.setenv("EXPLORER_DATABASE_URL", "postgresql+psycopg://nobody@127.0.0.1:1/none")
    for page in ("run_a_class", "join"):
        at = open_page(page, None)
        no_exception(at)
        assert any("cannot be reached" in e.value for e in at.error)
    at = open_page("lesson", "hello")
    no_exception(at)
    assert not at.error


ODD = ["", "x" * 5000, "ÄÖÜ€", "abc def", "<script>", "%00", "ZZZZZZ"]


@pytest.mark.parametrize("value", ODD)
def test_odd_links_to_the_class_pages_get_a_message_never_a_crash(store, value):
    new = store.create_class("hello")
    seat = store.join(new.code, "Ann")
    for page, query in [("run_a_class", {"class": value}), ("run_a_class", {"class": new.code, "teacher": value}),
                        ("run_a_class", {"class": value, "teacher": new.secret}),
                        ("join", {"class": value}), ("join", {"class": new.code, "seat": value}),
                        ("join", {"class": value, "seat": seat.token}),
                        ("join", {"class": [new.code, value], "seat": [value, seat.token]})]:
        at = open_page(page, None, query=query)
        no_exception(at)
        assert not [b for b in at.button if b.label == "Open voting"]        # nothing opens without the secret
    assert not store.snapshot(new.code).state.voting and store.snapshot(new.code).joined == 1


def test_joining_again_from_the_same_session_keeps_the_seat(store):
    new = store.create_class("hello")
    at = student(new.code)
    at.text_input[1].set_value("Ann")
    at.button[0].click().run()
    token = at.query_params["seat"]
    at.query_params.pop("seat")           # the join link opened again in the same browser session
    at.run()
    no_exception(at)
    assert at.query_params["seat"] == token and store.snapshot(new.code).joined == 1
    assert any("You are Ann" in c.value for c in at.caption)


def test_the_code_typed_again_on_a_plain_join_page_gives_the_same_seat(store):
    """Issue 63: back on /join with no link, the code submitted again gave a new seat each time (5 from one
    session)."""
    new = store.create_class("hello")
    at = student(new.code)
    at.text_input[1].set_value("Ann")
    at.button[0].click().run()
    token = at.query_params["seat"]
    for again in range(3):
        at.query_params.clear()
        at.run()
        at.text_input[0].set_value(new.code.lower())
        at.text_input[1].set_value(f"Ann {again}")
        at.button[0].click().run()
        no_exception(at)
        assert at.query_params["seat"] == token
    assert store.snapshot(new.code).joined == 1 and any("You are Ann in" in c.value for c in at.caption)


def test_the_teacher_removes_a_seat_and_its_student_is_told_to_join_again(store):
    new = store.create_class("hello")
    seated = {}
    for name in ("Ann", "Bob"):
        at = student(new.code)
        at.text_input[1].set_value(name)
        at.button[0].click().run()
        seated[name] = at.query_params["seat"]
    at = teacher(new)
    assert any(e.label.startswith("Students who joined (2)") for e in at.expander)
    picker = at.selectbox(key="_seat_to_remove")
    assert picker.options == ["1 · Ann", "2 · Bob"]
    picker.set_value(next(s for s in store.participants(new.code, new.secret) if s.nickname == "Bob")).run()
    at.button(key="remove_seat").click().run()
    no_exception(at)
    assert any(s.value.replace("\\", "").startswith("Bob (seat 2) is removed") for s in at.success)
    assert [s.nickname for s in store.participants(new.code, new.secret)] == ["Ann"]
    assert any(e.label.startswith("Students who joined (1)") for e in at.expander)
    assert at.selectbox(key="_seat_to_remove").options == ["1 · Ann"]
    bob = student(new.code, seated["Bob"])
    no_exception(bob)
    assert any("teacher may have removed it" in w.value for w in bob.warning) and bob.button[0].label == "Join"


def test_nicknames_are_one_per_person_and_the_teacher_renames_a_seat(store):
    """Issue 65, problem 5: nicknames repeated and impersonated ("Student 1"). A taken name (but for case) and a
    name the class gives are refused with a message and no seat; the teacher renames a seat, and its student's
    screen follows."""
    new = store.create_class("hello")
    ann = student(new.code)
    ann.text_input[1].set_value("Ann")
    ann.button[0].click().run()
    for typed, said in (("ann", "already called “ann”"), ("Student 1", "a name the class gives")):
        other = student(new.code)
        other.text_input[1].set_value(typed)
        other.button[0].click().run()
        no_exception(other)
        assert said in " ".join(e.value for e in other.error), typed
        assert "seat" not in other.query_params
    assert [s.nickname for s in store.participants(new.code, new.secret)] == ["Ann"]
    bob = student(new.code)
    bob.button[0].click().run()                                          # no name: "Student 2"
    at = teacher(new)
    picker = at.selectbox(key="_seat_to_remove")
    assert picker.options == ["1 · Ann", "2 · Student 2"]
    picker.set_value(store.participants(new.code, new.secret)[1]).run()
    at.text_input(key="_seat_new_name").set_value("ANN").run()
    at.button(key="rename_seat").click().run()
    assert "already called “ANN”" in " ".join(e.value for e in at.error)
    at.text_input(key="_seat_new_name").set_value("Bo").run()
    at.button(key="rename_seat").click().run()
    no_exception(at)
    assert "Seat 2 is now called Bo." in " ".join(s.value.replace("\\", "") for s in at.success)
    assert [s.nickname for s in store.participants(new.code, new.secret)] == ["Ann", "Bo"]
    bob.run()
    assert "You are Bo" in texts(bob)


def test_a_browser_starts_only_so_many_classes_and_so_does_its_network(store, monkeypatch):
    """Issue 63: one client made 5.7 classes a second. AppTest's sessions are all one browser at one address, so
    each limit is tried in turn, the other made roomy, with time standing still."""
    def start(at):
        at.text_input[0].set_value("hello")
        next(b for b in at.button if b.label == "Start a class").click().run()
        no_exception(at)
        if [b for b in at.button if b.key == "link_kept"]:     # started: the recovery link is kept first
            at.button(key="link_kept").click().run()
        return at

    def twice() -> str:
        at = start(open_page("run_a_class", None))
        assert TEACHING_KEY in at.session_state
        at.button(key="end_class").click().run()
        start(at)
        assert TEACHING_KEY not in at.session_state
        return " ".join(e.value for e in at.error)

    for browser, address, said in ((1, 10, "This browser has started as many classes as it may for now (1 at "
                                            "once, then one every 12 minutes): the next can start in 12 min."),
                                   (5, 1, "Your network has started as many classes as it may for now (1 at once, "
                                          "then one every 6 minutes): the next can start in 6 min.")):
        monkeypatch.setattr(classes, "NEW_CLASSES_BY_BROWSER", Buckets(browser, 720.0, clock=lambda: 1000.0))
        monkeypatch.setattr(classes, "NEW_CLASSES_BY_ADDRESS", Buckets(address, 360.0, clock=lambda: 1000.0))
        assert twice() == said


def test_a_full_width_formula_nickname_reaches_the_csv_neutralised(store):
    """Issue 63: formula starts were checked before normalising, so a full-width ＝1+1 reached the CSV as it is."""
    new = store.create_class("hello")
    q = question(1, CLASS_MODEL_KEY, "hello")
    store.open_voting(new.code, new.secret)
    for name in ("＝1+1", "=1+1", "﹢SUM(A1)"):
        at = student(new.code)
        at.text_input[1].set_value(name)
        at.button[0].click().run()
        store.vote(new.code, at.query_params["seat"], 1, 1, q.options[0], q.options)
    at = teacher(new)
    next(b for b in at.button if b.label == "Prepare the gradebook").click().run()
    no_exception(at)
    book = at.session_state["_class_csv"][1]
    rows = table_csv(book.votes).splitlines()
    assert {row.split(",")[3] for row in rows if row.startswith("1,1,")} == {"'＝1+1", "'=1+1", "'﹢SUM(A1)"}
    # the gradebook itself: a row per seat, under the class's code and text, each vote right or wrong
    graded = list(csv.reader(io.StringIO(table_csv(book.students, book.header))))
    assert graded[0] == ["class code", new.code] and ["text", "hello"] in graded
    right = "right" if q.grade(q.options[0]) else "wrong"
    assert [r[1:2] + r[3:4] for r in graded[graded.index(book.students.columns) + 1:]] == [
        ["'＝1+1", right], ["'=1+1", right], ["'﹢SUM(A1)", right]]
    labels = [b.label for b in at.get("download_button")]
    assert any(label.startswith("Gradebook as of") for label in labels) and "All three as a spreadsheet (.xlsx)" in labels


def lesson_step(step: int, text: str = "hello"):
    classes._held_steps.clear()          # asked afresh, not from the last few seconds' answer
    return open_page("lesson", text, state={"lesson_step": step})


def seated_here(store, code: str) -> None:
    """A seat taken from this client's address: AppTest's sessions have no connection, so server.identity knows
    each by the same unknown address, as the phones of one classroom behind its router."""
    ClassStore(store.engine, key=identity.secret()).join(code, "Ann", address=UNKNOWN)   # keyed as the app keys


def test_a_live_class_holds_back_the_lesson_pages_answers_on_its_text_until_the_teacher_reveals(store):
    """Issue 63: while a class voted, the Lesson page on the class's text offered the answer to check and to show.
    Until the teacher reveals it, no check, hint or answer; the teacher's own screen has it; then it is back."""
    new = store.create_class("hello")
    assert not any(i.value == HELD_BACK for i in lesson_step(1).info)   # no seat here: a learner elsewhere
    seated_here(store, new.code)
    store.open_voting(new.code, new.secret)
    q = question(1, CLASS_MODEL_KEY, "hello")
    for step in (1, 2):                                      # the step voted on, and one not reached yet
        at = lesson_step(step)
        no_exception(at)
        assert any(i.value == HELD_BACK for i in at.info)
        assert not [b for b in at.button if b.key and b.key.startswith("lesson_answer_")]
        assert not at.radio and not at.pills
    other = lesson_step(1, "world")                          # another text: the lesson as ever
    assert [b for b in other.button if b.label == "Check my answer"]
    at = teacher(new)
    {b.label: b for b in at.button}["Reveal"].click().run()   # the presenter's screen has it
    assert any(s.value.replace("\\", "").startswith(f"The model's answer: {q.answer}") for s in at.success)
    at = lesson_step(1)
    assert not any(i.value == HELD_BACK for i in at.info) and [b for b in at.button if b.label == "Check my answer"]
    assert any(i.value == HELD_BACK for i in lesson_step(2).info)


def test_the_teachers_sheet_on_a_live_classs_text_holds_back_what_it_has_not_revealed(store, monkeypatch):
    from .test_lesson import expected_in_sheet, prepared_sheets
    new = store.create_class("hello")
    seated_here(store, new.code)
    store.reveal(new.code, new.secret)                       # step 1's answer is out
    sheets = prepared_sheets(lesson_step(1), monkeypatch)
    q1, q2 = question(1, CLASS_MODEL_KEY, "hello"), question(2, CLASS_MODEL_KEY, "hello")
    assert expected_in_sheet(sheets["md"], 1) == sorted(q1.answers)
    assert expected_in_sheet(sheets["md"], 2) == [] and "← expected" not in sheets["md"].split("## Step 2 ")[1]
    step_2 = sheets["md"].split("## Step 2 ")[1].split("## Step 3")[0]
    assert f"**Answer held back.** {HELD_BACK}" in step_2 and q2.prompt in step_2 and q2.why not in step_2
    html_2 = sheets["html"].split("Step 2 ·")[1].split("Step 3 ·")[0]
    assert "held back" in html_2 and "expected" not in html_2 and q2.why.split(".")[0] not in html_2
    store.end_class(new.code, new.secret)
    sheets = prepared_sheets(lesson_step(1), monkeypatch)
    assert expected_in_sheet(sheets["md"], 2) == sorted(q2.answers) and "held back" not in sheets["md"]


def test_before_anyone_took_the_after_quiz_the_gain_says_so_and_three_students_get_no_discrimination(store):
    """Issue 65 (P7): the gain read 'no interval under 5 students' while 60 had taken the before quiz and none
    the after one; three students' item correlations (-0.87) were shown as if they meant something."""
    from explorer import quiz as class_quiz
    new = store.create_class("hello")
    state = store.teacher_state(new.code, new.secret)
    before = class_quiz.class_quizzes(state.quiz_seed, state.text)["before"]
    store.set_quiz_stage(new.code, new.secret, 1)
    for n, name in enumerate(("Ann", "Bo", "Cy")):
        seat = store.join(new.code, name)
        picked = [item.question.options[(i + n) % len(item.question.options)] for i, item in enumerate(before.items)]
        store.hand_in(new.code, seat.token, "before", picked, [item.question.options for item in before.items])
    store.set_quiz_stage(new.code, new.secret, 2)
    at = teacher(new)
    no_exception(at)
    gain = next(m for m in at.metric if m.label == "Class gain (normalised)")
    assert gain.value == "—" and "no student has taken both quizzes yet" in str(gain.proto.delta)
    table = next(d.value for d in at.dataframe if "before: discrimination" in d.value.columns)
    assert table["before: discrimination"].isna().all() and table["before: share right"].notna().all()
