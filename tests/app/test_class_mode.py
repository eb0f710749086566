"""Run a class and Join a class through AppTest, on a real SQLite file (EXPLORER_DATABASE_URL): a teacher starts
a class and steps it, students join, vote, change their vote, see the spread and the reveal; every bad input
gets its own message and changes nothing."""

from __future__ import annotations

import pytest

from classroom.database import make_engine
from classroom.errors import QuizClosed, UnknownClass
from classroom.store import ClassStore
from explorer.classes import CLASS_MODEL_KEY, TEACHING_KEY
from explorer.lesson import question

from .helpers import no_exception, open_page, row_bars


@pytest.fixture
def store(tmp_path, monkeypatch):
    url = f"sqlite:///{tmp_path / 'classes.db'}"
    monkeypatch.setenv("EXPLORER_DATABASE_URL", url)
    store = ClassStore(make_engine(url))
    from classroom.database import migrate
    migrate(store.engine)
    return store


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
    assert any(code in str(h.proto.body) for h in at.get("html"))          # shown large
    assert len(at.get("image")) == 1                                         # the QR code
    assert any(secret in c.value for c in at.code)                           # the private link, in an expander
    assert "0 students joined" in texts(at) and "Step 1 of 11" in " ".join(s.value for s in at.header)


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


def test_wrong_join_codes_get_a_message_and_slow_the_session_down(store):
    store.create_class("hello")
    at = open_page("join", None)
    for attempt in range(7):
        at.text_input[0].set_value("ZZZZZZ")
        at.button[0].click().run()
        no_exception(at)
        message = " ".join(e.value for e in at.error)
        assert ("No class has this code" in message) if attempt < 5 else ("Too many wrong codes" in message)


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


def test_a_code_of_the_wrong_shape_counts_as_wrong_without_asking_the_store(store, monkeypatch):
    store.create_class("hello")
    asked = []
    monkeypatch.setattr(ClassStore, "join", lambda self, *a: asked.append(a))
    at = open_page("join", None)
    at.text_input[0].set_value("0O1IL!")
    at.button[0].click().run()
    no_exception(at)
    assert any("No class has this code" in e.value for e in at.error) and asked == []


def test_an_expired_class_takes_no_seat_and_says_so_while_its_teacher_still_sees_it(store):
    new = store.create_class("hello")
    with store.engine.begin() as c:
        c.exec_driver_sql("UPDATE classes SET expires_at = 0")
    at = student(new.code)
    at.text_input[1].set_value("Ann")
    at.button[0].click().run()
    no_exception(at)
    assert any("has ended" in e.value for e in at.error) and "seat" not in at.query_params
    at = teacher(new)
    no_exception(at)
    assert "Step 1 of 11" in " ".join(s.value for s in at.header)


def test_the_teacher_prepares_the_csv_then_ends_the_class_and_its_answers_are_gone(store):
    new = store.create_class("hello")
    seat = store.join(new.code, "=cmd()")
    store.open_voting(new.code, new.secret)
    q = question(1, CLASS_MODEL_KEY, "hello")
    store.vote(new.code, seat.token, 1, 1, q.options[0], q.options)
    at = teacher(new)
    [b for b in at.button if b.label == "Prepare the class's answers (CSV)"][0].click().run()
    no_exception(at)
    assert [d for d in at.get("download_button") if "Download the answers as of" in d.proto.label]
    at.button(key="end_class").click().run()
    no_exception(at)
    with pytest.raises(UnknownClass):
        store.snapshot(new.code)
    assert [b.label for b in at.button] == ["Start a class"]


def test_a_class_takes_both_quizzes_and_the_teacher_sees_the_gain_and_the_items(store):
    """The teacher opens the before quiz; two students hand in (one changes an answer); the teacher closes it,
    opens and closes the after quiz; each student sees both scores and the gain, and the teacher's page and CSV
    hold the class's gain, its interval and every item's difficulty and discrimination."""
    from explorer.quiz import class_quizzes
    new = store.create_class("hello")
    at = teacher(new)
    {b.label: b for b in at.button}["Open the before quiz"].click().run()
    no_exception(at)
    state = store.snapshot(new.code).state
    assert state.open_form == "before" and "The before quiz is open" in [s.value for s in at.header]
    quizzes = class_quizzes(state.quiz_seed, state.text)
    assert "hello" not in {i.text for q in quizzes.values() for i in q.items}

    def hand_in(at, form, picks):
        """Pick each answer: each is stored as it is picked (a run per pick)."""
        radios = [r for r in at.radio if r.key and r.key.startswith(f"class_quiz_{form}_")]
        assert [tuple(r.options) for r in radios] == [i.question.options for i in quizzes[form].items]
        for i, pick in enumerate(picks):
            at.radio(key=f"class_quiz_{form}_{i}").set_value(pick).run()
            no_exception(at)

    right = {f: [i.question.answer for i in quizzes[f].items] for f in quizzes}
    wrong = {f: [next(o for o in i.question.options if o not in i.question.answers) for i in quizzes[f].items]
             for f in quizzes}
    students = {}
    for name in ("Ann", "Bob"):
        s = student(new.code)
        s.text_input[1].set_value(name)
        s.button[0].click().run()
        students[name] = s.query_params["seat"]
    ann, bob = (student(new.code, students[n]) for n in ("Ann", "Bob"))
    assert [s.value for s in ann.header] == ["The before quiz"]
    hand_in(ann, "before", wrong["before"][:6] + right["before"][6:])           # 2 of 8
    assert any("Your answers are in: 8 of 8" in s.value for s in ann.success)
    hand_in(ann, "before", wrong["before"][:4] + right["before"][4:])           # changed her mind: 4 of 8
    hand_in(bob, "before", wrong["before"])                                      # 0 of 8
    at.run()
    assert "2 of 2 handed in the before quiz" in texts(at)
    assert not at.dataframe and not row_bars(at)               # no share right while answers can still change
    {b.label: b for b in at.button}["Close the quiz"].click().run()
    {b.label: b for b in at.button}["Open the after quiz"].click().run()
    no_exception(at)
    ann, bob = (student(new.code, students[n]) for n in ("Ann", "Bob"))
    hand_in(ann, "after", right["after"])                                        # 8 of 8
    hand_in(bob, "after", right["after"][:4] + wrong["after"][4:])               # 4 of 8
    with pytest.raises(QuizClosed):    # the before quiz is closed: the store refuses it
        store.hand_in(new.code, students["Bob"], "before", right["before"],
                      [i.question.options for i in quizzes["before"].items])
    at.run()
    {b.label: b for b in at.button}["Close the quiz"].click().run()
    no_exception(at)
    assert store.snapshot(new.code).state.quiz_stage == 4
    # the class: before 4/16 right, after 12/16: g = (0.75 − 0.25) / 0.75
    metrics = {m.label: m for m in at.metric}
    assert metrics["Class gain (normalised)"].value == f"{(0.75 - 0.25) / 0.75:.2f}"
    assert "no interval under 5 students" in str(metrics["Class gain (normalised)"].proto.delta)
    buttons = {b.label: b for b in at.button}
    assert buttons["Open the after quiz"].disabled and buttons["Open the before quiz"].disabled   # answers out
    assert metrics["Before: mean right"].value == "25%" and metrics["After: mean right"].value == "75%"
    table = at.dataframe[-1].value
    assert list(table["after: share right"]) == [1.0] * 4 + [0.5] * 4
    scores, items = row_bars(at)
    assert [(series, row) for series, row, n in scores if n] == [("before", "0 right"), ("before", "4 right"),
                                                                 ("after", "4 right"), ("after", "8 right")]
    assert [v for series, _, v in items if series == "after"] == [1.0] * 4 + [0.5] * 4
    ann = student(new.code, students["Ann"])
    no_exception(ann)
    mine = {m.label: m.value for m in ann.metric}
    assert mine == {"Before": "4 of 8", "After": "8 of 8", "Normalised gain": "1.00"}
    bob = student(new.code, students["Bob"])
    assert {m.label: m.value for m in bob.metric}["Normalised gain"] == "0.50"
    assert quizzes["after"].items[4].concept in texts(bob).replace("\\", "")   # a missed item, named
    next(b for b in at.button if b.label.startswith("Prepare the class")).click().run()
    csv = at.session_state["_class_csv"][1].decode()
    assert "normalised gain" in csv and f"{(0.75 - 0.25) / 0.75:.3f}" in csv and "discrimination" in csv
    assert csv.count("\nafter,") == 8 + 16 and csv.count("\nbefore,") == 8 + 16   # items, then answers


def test_the_optional_eleventh_step_runs_in_class_a_student_votes_and_sees_the_models_answer(store):
    new = store.create_class("attention is all you need")
    store.go_to_step(new.code, new.secret, 11)
    store.open_voting(new.code, new.secret)
    at = teacher(new)
    no_exception(at)
    assert "Step 11 of 11" in " ".join(s.value for s in at.header)
    at = student(new.code)
    at.text_input[1].set_value("Bo")
    at.button[0].click().run()
    token = at.query_params["seat"]
    q = question(11, CLASS_MODEL_KEY, "attention is all you need")
    wrong = next(i for i, o in enumerate(q.options) if not q.grade(o))
    [b for b in at.button if b.key == f"vote_11_1_{wrong}"][0].click().run()
    no_exception(at)
    assert store.counts(new.code, 11, 1) == {q.options[wrong]: 1}
    store.reveal(new.code, new.secret)
    at = student(new.code, token)
    no_exception(at)
    assert any(s.value.replace("\\", "").startswith(f"The model's answer: {q.answer}") for s in at.success)
