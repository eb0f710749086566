"""Class mode's store on a real SQLite file and a real PostgreSQL server (drivers/postgres.py starts one in a
temporary folder): the schema the migrations make, who may change a class, a vote as one replaceable row,
every refusal with its own exception, deletion and expiry, and many students at once."""

from __future__ import annotations

import os
import threading

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine, select

from classroom import codes
from classroom.database import head_revision, make_engine, migrate, current_revision
from classroom import store as store_module
from classroom.errors import (
    BadNickname, BadOption, BadStep, ClassExpired, ClassFull, NetworkFull, NicknameTaken, QuizClosed, StoreUnavailable,
    UnknownClass, UnknownSeat, VotingClosed, WrongSecret,
)
from classroom.schema import classes, metadata, quiz_answers, seats, votes
from classroom.store import ClassStore
from drivers.postgres import postgres_bin, temporary_postgres

OPTIONS = ("a", "b", "c")


@pytest.fixture(scope="module")
def postgres_url():
    if postgres_bin() is None:
        if os.environ.get("CI"):
            pytest.fail("PostgreSQL is missing in CI: scripts/test.sh installs Debian's postgresql")
        pytest.skip("Debian's postgresql is not installed here (scripts/test.sh installs it)")
    with temporary_postgres() as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request, tmp_path):
    url = f"sqlite:///{tmp_path / 'classes.db'}" if request.param == "sqlite" else \
        request.getfixturevalue("postgres_url")
    engine = make_engine(url)
    migrate(engine)
    yield engine
    if request.param == "postgresql":   # one server for the module: each test starts from empty tables
        with engine.begin() as c:
            for table in (quiz_answers, votes, seats, classes):
                c.execute(table.delete())
    engine.dispose()


class Clock:
    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def store(engine):
    return ClassStore(engine, clock=Clock())


def test_the_migrations_make_exactly_the_tables_the_code_reads(engine):
    assert current_revision(engine) == head_revision() == "0006"
    with engine.connect() as connection:
        assert compare_metadata(MigrationContext.configure(connection), metadata) == []
    migrate(engine)                                    # a replica starting later: nothing to do, no error
    assert current_revision(engine) == head_revision()


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_replicas_migrating_an_empty_database_at_once_take_turns(backend, tmp_path, request):
    if backend == "sqlite":
        url = f"sqlite:///{tmp_path / 'fresh.db'}"
    else:   # a fresh database on the module's server
        base = request.getfixturevalue("postgres_url")
        with create_engine(base, isolation_level="AUTOCOMMIT").connect() as c:
            c.exec_driver_sql("DROP DATABASE IF EXISTS fresh")
            c.exec_driver_sql("CREATE DATABASE fresh")
        url = base.rsplit("/", 1)[0] + "/fresh"
    engines = [make_engine(url) for _ in range(4)]
    errors = []

    def start(engine) -> None:
        try:
            migrate(engine)
        except Exception as error:   # noqa: BLE001 (reported below)
            errors.append(repr(error))

    threads = [threading.Thread(target=start, args=(e,)) for e in engines]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert all(current_revision(e) == head_revision() for e in engines)
    store = ClassStore(engines[0])
    assert store.join(store.create_class("hello").code, "Ann").number == 1
    for e in engines:
        e.dispose()


def database_at(tmp_path, revision: str):
    """A SQLite database whose schema stops at an older migration, to hold rows as that version wrote them."""
    from alembic import command
    from classroom.database import _alembic_config
    engine = make_engine(f"sqlite:///{tmp_path / 'old.db'}")
    with engine.begin() as connection:
        command.upgrade(_alembic_config(connection), revision)
    return engine


def test_an_older_database_is_brought_forward_with_its_seat_numbers(tmp_path):
    """A database at the first migration, with seats in it, gets the seat counter from its seats."""
    engine = database_at(tmp_path, "0001")
    with engine.begin() as connection:
        connection.exec_driver_sql(
            "INSERT INTO classes (id, code, secret_digest, text, step, round, voting, spread_shown, revealed, "
            "created_at, expires_at, changed_at) VALUES (1, 'ABCDEF', 'x', 'hello', 1, 1, 0, 0, 0, 0, 1e12, 0)")
        for number in (1, 2, 3):
            connection.exec_driver_sql(f"INSERT INTO seats (class_id, number, token_digest, nickname, joined_at) "
                                       f"VALUES (1, {number}, 'd{number}', 'n', 0)")
    migrate(engine)
    old = ClassStore(engine, clock=lambda: 1.0)
    assert old.join("ABCDEF", "").number == 4
    assert old.snapshot("ABCDEF").state.quiz_stage == 0 and old.snapshot("ABCDEF").handed_in == 0


def test_a_new_class_has_a_readable_code_and_a_long_secret_kept_only_as_a_digest(store, engine):
    new = store.create_class("hello")
    assert len(new.code) == 6 and set(new.code) <= set(codes.CODE_ALPHABET)
    assert not set("0O1IL") & set(codes.CODE_ALPHABET)
    assert len(new.secret) * 6 >= 128                  # URL-safe base64: 6 bits a character
    with engine.connect() as c:
        stored = [str(v) for row in c.execute(select(classes)) for v in row]
    assert new.secret not in stored and codes.digest(new.secret) in stored
    assert store.teacher_state(new.code, new.secret).text == "hello"


def test_a_step_the_lesson_lacks_is_refused_and_the_store_knows_the_lessons_length(store):
    from teaching.steps import STEPS
    assert store_module.STEPS == len(STEPS)
    new = store.create_class("hello")
    for step in (0, -1, len(STEPS) + 2):
        with pytest.raises(BadStep):
            store.go_to_step(new.code, new.secret, step)
    assert store.go_to_step(new.code, new.secret, len(STEPS)).step == len(STEPS)
    assert store_module.PREDICT_STEP == len(STEPS) + 1          # predict, then train: after the lesson
    assert store.go_to_step(new.code, new.secret, len(STEPS) + 1).step == store_module.PREDICT_STEP
    store.end_class(new.code, new.secret)
    with pytest.raises(WrongSecret):                    # a second tab of the teacher's, after the end
        store.open_voting(new.code, new.secret)


def test_a_nickname_is_one_persons_in_a_class_and_the_teacher_renames_seats(store, engine):
    """Issue 65, problem 5. A taken name, but for case, and a name the store gives are refused without spending a
    seat number; names repeat across classes; the teacher renames a seat (empty: its given name again), never to
    another seat's name; a student's own browser gets its seat back whatever it types."""
    new, other = store.create_class("hello"), store.create_class("world")
    assert store.join(new.code, "Ann", browser="browser:ann").number == 1
    for typed in ("ann", "  ANN ", "Student 1", "student 7", "STUDENT 2"):
        with pytest.raises(NicknameTaken):
            store.join(new.code, typed)
    assert store.join(new.code, "", browser="browser:b").nickname == "Student 2"      # no number was spent
    assert store.join(new.code, "ann", browser="browser:ann").number == 1            # its own seat back
    assert store.join(other.code, "Ann").number == 1                                 # another class
    assert store.rename_seat(new.code, new.secret, 2, "Bo").nickname == "Bo"
    for taken in ("ANN", "Student 9"):
        with pytest.raises(NicknameTaken):
            store.rename_seat(new.code, new.secret, 2, taken)
    assert store.rename_seat(new.code, new.secret, 1, "ANN").nickname == "ANN"      # its own name, recased
    assert store.rename_seat(new.code, new.secret, 2, "").nickname == "Student 2"
    with pytest.raises(UnknownSeat):
        store.rename_seat(new.code, new.secret, 9, "Cy")
    with pytest.raises(WrongSecret):
        store.rename_seat(new.code, other.secret, 1, "Cy")
    with pytest.raises(BadNickname):
        store.rename_seat(new.code, new.secret, 1, "x" * 25)
    assert [(s.number, s.nickname) for s in store.participants(new.code, new.secret)] == [(1, "ANN"), (2, "Student 2")]


def test_two_students_typing_one_name_at_once_get_one_seat_between_them(store):
    new = store.create_class("hello")
    results, barrier = [], threading.Barrier(8)

    def take() -> None:
        barrier.wait()
        try:
            results.append(store.join(new.code, "Sam").number)
        except NicknameTaken:
            results.append(None)

    threads = [threading.Thread(target=take) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results, key=str).count(None) == 7
    assert [s.nickname for s in store.participants(new.code, new.secret)] == ["Sam"]


def test_a_full_class_seats_nobody_more(store, monkeypatch):
    monkeypatch.setattr(store_module, "MAX_SEATS", 3)
    new = store.create_class("hello")
    assert [store.join(new.code, "").number for _ in range(3)] == [1, 2, 3]
    with pytest.raises(ClassFull, match="3 students"):
        store.join(new.code, "late")
    with pytest.raises(BadNickname):                    # refused before a seat number is spent on it
        store.join(store.create_class("world").code, "x" * 25)


def test_the_browser_that_started_a_class_gets_it_back_and_no_other_does(store, engine):
    """Issue 65: a reload locked the teacher out. The browser that started a class takes it back (its secret is
    derived from the browser's key, kept as a keyed digest); another browser, another server key, a class that
    ended or expired, and a client without the cookie get nothing."""
    first = store.create_class("hello", browser="browser:teacher")
    assert store.taught_by("browser:teacher") == first
    assert store.teacher_state(first.code, first.secret).text == "hello"
    with engine.connect() as c:
        stored = [str(v) for row in c.execute(select(classes)) for v in row]
    assert "browser:teacher" not in " ".join(stored) and first.secret not in stored
    assert store.taught_by("browser:student") is None
    assert ClassStore(engine, clock=store.clock).taught_by("browser:teacher") is None     # another server key
    second = store.create_class("world", browser="browser:teacher")
    assert second.secret != first.secret
    assert store.taught_by("browser:teacher") == second                         # the newest, unless asked
    assert store.taught_by("browser:teacher", first.code) == first
    assert store.taught_by("browser:teacher", "ZZZZZZ") is None
    store.end_class(first.code, first.secret)
    assert store.taught_by("browser:teacher", first.code) is None
    cookieless = store.create_class("level")
    assert store.teacher_state(cookieless.code, cookieless.secret).text == "level"
    assert store.taught_by("browser:teacher") == second
    store.clock.now += store.lifetime_s + 1
    assert store.taught_by("browser:teacher") is None


def test_only_the_teachers_secret_changes_a_class(store):
    new = store.create_class("hello")
    other = store.create_class("world")
    for wrong in ("", new.code, other.secret, new.secret[:-1], new.secret + "x"):
        with pytest.raises(WrongSecret):
            store.open_voting(new.code, wrong)
    with pytest.raises(WrongSecret):
        store.teacher_state("ZZZZZZ", new.secret)      # a code that is no class: the same message
    assert not store.snapshot(new.code).state.voting
    assert store.open_voting(new.code, new.secret).voting


def test_voting_again_replaces_the_vote_and_counts_follow(store, engine):
    new = store.create_class("hello")
    ann, bob = store.join(new.code, "Ann"), store.join(new.code, "")
    store.open_voting(new.code, new.secret)
    store.vote(new.code, ann.token, 1, 1, "a", OPTIONS)
    store.vote(new.code, ann.token, 1, 1, "b", OPTIONS)
    store.vote(new.code, bob.token, 1, 1, "b", OPTIONS)
    assert store.counts(new.code, 1, 1) == {"b": 2}
    with engine.connect() as c:
        assert len(c.execute(select(votes)).all()) == 2
    snap = store.snapshot(new.code)
    assert (snap.joined, snap.voted) == (2, 2)
    assert store.my_vote(new.code, ann.token, 1, 1) == "b"
    assert (bob.number, bob.nickname) == (2, "Student 2")


def test_a_second_round_keeps_the_first_and_a_new_step_starts_empty(store):
    new = store.create_class("hello")
    ann = store.join(new.code, "Ann")
    store.open_voting(new.code, new.secret)
    store.vote(new.code, ann.token, 1, 1, "a", OPTIONS)
    state = store.second_round(new.code, new.secret)
    assert (state.round, state.voting, state.spread_shown) == (2, True, False)
    assert store.snapshot(new.code).voted == 0
    store.vote(new.code, ann.token, 1, 2, "c", OPTIONS)
    assert store.counts(new.code, 1, 1) == {"a": 1} and store.counts(new.code, 1, 2) == {"c": 1}
    state = store.reveal(new.code, new.secret)
    assert state.revealed and state.spread_shown and not state.voting
    state = store.go_to_step(new.code, new.secret, 5)
    assert (state.step, state.round, state.voting, state.spread_shown, state.revealed) == (5, 1, False, False, False)
    assert [(v.step, v.round, v.option) for v in store.all_votes(new.code, new.secret)] == [(1, 1, "a"), (1, 2, "c")]


def test_every_vote_that_cannot_be_stored_says_why_and_stores_nothing(store):
    new = store.create_class("hello")
    ann = store.join(new.code, "Ann")
    with pytest.raises(VotingClosed, match="closed"):
        store.vote(new.code, ann.token, 1, 1, "a", OPTIONS)
    store.open_voting(new.code, new.secret)
    with pytest.raises(BadOption):
        store.vote(new.code, ann.token, 1, 1, "=1+1", OPTIONS)
    with pytest.raises(VotingClosed, match="moved on"):
        store.vote(new.code, ann.token, 2, 1, "a", OPTIONS)      # a stale screen's step
    with pytest.raises(UnknownSeat):
        store.vote(new.code, "not-a-seat", 1, 1, "a", OPTIONS)
    other = store.create_class("world")
    store.open_voting(other.code, other.secret)
    with pytest.raises(UnknownSeat):
        store.vote(other.code, ann.token, 1, 1, "a", OPTIONS)    # a seat of one class votes in no other
    with pytest.raises(UnknownClass):
        store.vote("ZZZZZZ", ann.token, 1, 1, "a", OPTIONS)
    assert store.counts(new.code, 1, 1) == {} and store.counts(other.code, 1, 1) == {}


def test_nicknames_are_cleaned_limited_and_kept_as_typed_text(store):
    new = store.create_class("hello")
    assert store.join(new.code, "  <b>Ann</b>\u200b\n ").nickname == "<b>Ann</b>"
    assert store.join(new.code, "\x00\x07").nickname == "Student 2"
    with pytest.raises(BadNickname, match="24"):
        store.join(new.code, "x" * 25)
    assert store.snapshot(new.code).joined == 2


def test_a_seat_link_brings_back_the_same_seat_and_its_vote(store):
    new = store.create_class("hello")
    ann = store.join(new.code, "Ann")
    store.open_voting(new.code, new.secret)
    store.vote(new.code, ann.token, 1, 1, "c", OPTIONS)
    again = store.seat(new.code, ann.token)                 # a reload, or another replica
    assert (again.number, again.nickname) == (ann.number, "Ann")
    assert store.my_vote(new.code, ann.token, 1, 1) == "c"
    with pytest.raises(UnknownSeat):
        store.seat(new.code, ann.token[:-2])


def test_a_class_expires_then_is_deleted_after_the_retention(engine):
    clock = Clock()
    store = ClassStore(engine, clock=clock, lifetime_s=100, retention_s=1000)
    new = store.create_class("hello")
    ann = store.join(new.code, "Ann")
    clock.now += 101
    with pytest.raises(ClassExpired):
        store.join(new.code, "Bob")
    store.open_voting(new.code, new.secret)                   # the teacher can still read and change it
    with pytest.raises(ClassExpired):
        store.vote(new.code, ann.token, 1, 1, "a", OPTIONS)
    assert store.purge() == 0
    clock.now += 1000
    assert store.purge() == 1
    with pytest.raises(UnknownClass):
        store.snapshot(new.code)
    with engine.connect() as c:
        assert c.execute(select(seats)).all() == []


def test_ending_a_class_deletes_its_seats_and_votes_and_no_other_class(store, engine):
    new, other = store.create_class("hello"), store.create_class("world")
    for cls in (new, other):
        seat = store.join(cls.code, "Ann")
        store.open_voting(cls.code, cls.secret)
        store.vote(cls.code, seat.token, 1, 1, "a", OPTIONS)
    with pytest.raises(WrongSecret):
        store.end_class(new.code, other.secret)
    store.end_class(new.code, new.secret)
    with pytest.raises(UnknownClass):
        store.snapshot(new.code)
    with engine.connect() as c:
        assert len(c.execute(select(seats)).all()) == 1 and len(c.execute(select(votes)).all()) == 1
    assert store.counts(other.code, 1, 1) == {"a": 1}


def test_forty_students_joining_and_voting_at_once_are_all_seated_and_counted_once(store):
    new = store.create_class("hello")
    store.open_voting(new.code, new.secret)
    seated, errors = [], []

    def student(i: int) -> None:
        try:
            seat = store.join(new.code, f"s{i}")
            for option in ("a", OPTIONS[i % 3]):            # a change of mind: the second vote replaces
                store.vote(new.code, seat.token, 1, 1, option, OPTIONS)
            seated.append(seat.number)
        except Exception as error:   # noqa: BLE001 (reported below, with its type)
            errors.append(repr(error))

    threads = [threading.Thread(target=student, args=(i,)) for i in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert sorted(seated) == list(range(1, 41))
    assert store.counts(new.code, 1, 1) == {o: sum(1 for i in range(40) if OPTIONS[i % 3] == o) for o in OPTIONS}
    assert store.snapshot(new.code).voted == 40


def test_an_unreachable_database_is_a_store_error_not_a_crash(tmp_path, postgres_url):
    port = postgres_url.rsplit(":", 1)[1].split("/")[0]
    dead = ClassStore(create_engine(postgres_url.replace(f":{port}/", ":1/")))
    with pytest.raises(StoreUnavailable, match="lesson"):
        dead.snapshot("ABCDEF")
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("")
    with pytest.raises(StoreUnavailable):
        ClassStore(create_engine(f"sqlite:///{blocked}/classes.db")).create_class("hello")


def test_a_code_is_read_as_typed_without_spaces_dashes_or_lower_case():
    assert codes.normal_code(" abc-def ") == "ABCDEF"


QUIZ_OPTIONS = (("a", "b"), ("c", "d"), ("e", "f"))


def test_quiz_answers_are_taken_only_while_that_form_is_open_and_handing_in_again_replaces(store, engine):
    new = store.create_class("hello")
    ann, bob = store.join(new.code, "Ann"), store.join(new.code, "Bob")
    with pytest.raises(QuizClosed):
        store.hand_in(new.code, ann.token, "before", ["a", "c", "e"], QUIZ_OPTIONS)
    store.open_voting(new.code, new.secret)
    state = store.set_quiz_stage(new.code, new.secret, 1)
    assert state.open_form == "before" and not state.voting          # a quiz closes the step's voting
    assert store.hand_in(new.code, ann.token, "before", ["a", None, "e"], QUIZ_OPTIONS) == 2
    with pytest.raises(QuizClosed):                                   # the other form is not open
        store.hand_in(new.code, ann.token, "after", ["a", "c", "e"], QUIZ_OPTIONS)
    store.hand_in(new.code, ann.token, "before", ["b", "d", None], QUIZ_OPTIONS)   # again: replaces, adds
    assert store.my_answers(new.code, ann.token, "before") == {0: "b", 1: "d", 2: "e"}
    assert store.snapshot(new.code).handed_in == 1
    store.hand_in(new.code, bob.token, "before", ["a", "c", "e"], QUIZ_OPTIONS)
    assert store.snapshot(new.code).handed_in == 2
    store.set_quiz_stage(new.code, new.secret, 2)
    with pytest.raises(QuizClosed):
        store.hand_in(new.code, bob.token, "before", ["b", "c", "e"], QUIZ_OPTIONS)
    store.set_quiz_stage(new.code, new.secret, 3)
    assert store.snapshot(new.code).handed_in == 0                   # nobody has handed in the after quiz yet
    store.hand_in(new.code, bob.token, "after", ["b", "d", "f"], QUIZ_OPTIONS)
    rows = store.all_quiz_answers(new.code, new.secret)
    assert [(r.form, r.nickname, r.item, r.option) for r in rows] == [
        ("after", "Bob", 0, "b"), ("after", "Bob", 1, "d"), ("after", "Bob", 2, "f"),
        ("before", "Ann", 0, "b"), ("before", "Ann", 1, "d"), ("before", "Ann", 2, "e"),
        ("before", "Bob", 0, "a"), ("before", "Bob", 1, "c"), ("before", "Bob", 2, "e")]
    with pytest.raises(WrongSecret):
        store.all_quiz_answers(new.code, "not the secret")
    with pytest.raises(WrongSecret):
        store.set_quiz_stage(new.code, "not the secret", 4)


def test_a_quiz_answer_that_cannot_be_stored_says_why_and_stores_nothing(store, engine):
    new = store.create_class("hello")
    seat = store.join(new.code, "Ann")
    store.set_quiz_stage(new.code, new.secret, 1)
    for answers, error in ((["z", "c", "e"], BadOption), (["a", "c"], BadOption)):
        with pytest.raises(error):
            store.hand_in(new.code, seat.token, "before", answers, QUIZ_OPTIONS)
    with pytest.raises(BadOption):
        store.hand_in(new.code, seat.token, "during", ["a", "c", "e"], QUIZ_OPTIONS)
    with pytest.raises(UnknownSeat):
        store.hand_in(new.code, "no-such-seat", "before", ["a", "c", "e"], QUIZ_OPTIONS)
    with pytest.raises(BadStep):
        store.set_quiz_stage(new.code, new.secret, 5)
    with engine.connect() as c:
        assert c.execute(select(quiz_answers)).all() == []
    store.clock.now += store.lifetime_s + 1
    with pytest.raises(ClassExpired):
        store.hand_in(new.code, seat.token, "before", ["a", "c", "e"], QUIZ_OPTIONS)


def test_ending_a_class_deletes_its_quiz_answers_and_two_classes_get_their_own_seeds(store, engine):
    new, other = store.create_class("hello"), store.create_class("world")
    for cls in (new, other):
        seat = store.join(cls.code, "Ann")
        store.set_quiz_stage(cls.code, cls.secret, 1)
        store.hand_in(cls.code, seat.token, "before", ["a", "c", "e"], QUIZ_OPTIONS)
    assert store.snapshot(new.code).state.quiz_seed != store.snapshot(other.code).state.quiz_seed
    store.end_class(new.code, new.secret)
    with engine.connect() as c:
        assert len(c.execute(select(quiz_answers)).all()) == 3


def test_thirty_students_handing_in_at_once_are_all_stored_once(store):
    new = store.create_class("hello")
    store.set_quiz_stage(new.code, new.secret, 3)
    seats_ = [store.join(new.code, f"s{i}") for i in range(30)]
    errors = []

    def student(i: int) -> None:
        try:
            for answers in (["a", "c", "e"], [QUIZ_OPTIONS[0][i % 2], "d", None]):   # the second replaces
                store.hand_in(new.code, seats_[i].token, "after", answers, QUIZ_OPTIONS)
        except Exception as error:   # noqa: BLE001 (reported below)
            errors.append(repr(error))

    threads = [threading.Thread(target=student, args=(i,)) for i in range(30)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    rows = store.all_quiz_answers(new.code, new.secret)
    assert len(rows) == 90 and store.snapshot(new.code).handed_in == 30
    assert sum(r.option == "b" for r in rows if r.item == 0) == 15


def test_a_browser_gets_its_one_seat_back_whichever_tab_or_link_asks(store):
    """Issue 63: the same browser joining again (a second tab, the code typed again) gets its seat, not another;
    another browser gets its own, and a browser's seat in one class is no seat in another."""
    new, other = store.create_class("hello"), store.create_class("world")
    ann = store.join(new.code, "Ann", browser="browser:ann", address="10.0.0.1")
    again = store.join(new.code, "Ann again", browser="browser:ann", address="10.0.0.1")
    assert again == ann and store.held_seat(new.code, "browser:ann") == ann
    assert store.seat(new.code, ann.token).nickname == "Ann"
    bob = store.join(new.code, "Bob", browser="browser:bob", address="10.0.0.1")
    elsewhere = store.join(other.code, "Ann", browser="browser:ann", address="10.0.0.1")
    assert bob.number == 2 and elsewhere.token != ann.token and store.snapshot(new.code).joined == 2
    assert store.held_seat(new.code, "browser:cy") is None
    with pytest.raises(UnknownSeat):
        store.seat(other.code, ann.token)


def test_tabs_of_one_browser_joining_at_once_take_one_seat(store):
    new = store.create_class("hello")
    taken, errors = [], []

    def tab() -> None:
        try:
            taken.append(store.join(new.code, "Ann", browser="browser:ann", address="10.0.0.1"))
        except Exception as error:   # noqa: BLE001 (reported below)
            errors.append(repr(error))

    threads = [threading.Thread(target=tab) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and len(set(taken)) == 1 and store.snapshot(new.code).joined == 1


def test_seats_from_one_address_are_capped_and_more_tightly_without_the_browsers_cookie(store, engine, monkeypatch):
    monkeypatch.setattr(store_module, "SEATS_PER_ADDRESS", 4)
    monkeypatch.setattr(store_module, "COOKIELESS_SEATS_PER_ADDRESS", 2)
    new = store.create_class("hello")
    for _ in range(2):                                  # no cookie: a new seat each time, two at most
        store.join(new.code, "", address="10.0.0.1")
    with pytest.raises(NetworkFull, match="cookie"):
        store.join(new.code, "", address="10.0.0.1")
    for n in range(2):
        store.join(new.code, "", browser=f"browser:{n}", address="10.0.0.1")
    with pytest.raises(NetworkFull, match="4 students from your network"):
        store.join(new.code, "", browser="browser:late", address="10.0.0.1")
    assert store.join(new.code, "", address="10.0.0.2").number == 5      # another network is seated
    assert store.snapshot(new.code).joined == 5
    with engine.connect() as c:                       # what is kept of a browser and an address: keyed digests
        stored = {str(v) for row in c.execute(select(seats)) for v in row}
    assert not {v for v in stored if "10.0.0" in v or "browser:" in v}


def test_a_removed_seat_frees_its_place_and_its_votes_leave_every_count(store, monkeypatch):
    monkeypatch.setattr(store_module, "MAX_SEATS", 2)
    new = store.create_class("hello")
    ann, bob = (store.join(new.code, name, browser=f"browser:{name}") for name in ("Ann", "Bob"))
    store.open_voting(new.code, new.secret)
    for seat in (ann, bob):
        store.vote(new.code, seat.token, 1, 1, "a", OPTIONS)
    store.set_quiz_stage(new.code, new.secret, 1)
    store.hand_in(new.code, ann.token, "before", ["a", "c", "e"], QUIZ_OPTIONS)
    with pytest.raises(ClassFull):
        store.join(new.code, "Cy")
    with pytest.raises(WrongSecret):
        store.remove_seat(new.code, "not the secret", ann.number)
    assert store.remove_seat(new.code, new.secret, ann.number) == store_module.Seat(None, 1, "Ann")
    assert [s.nickname for s in store.participants(new.code, new.secret)] == ["Bob"]
    assert store.counts(new.code, 1, 1) == {"a": 1} and store.all_quiz_answers(new.code, new.secret) == []
    assert store.snapshot(new.code).joined == 1
    with pytest.raises(UnknownSeat):
        store.seat(new.code, ann.token)
    with pytest.raises(UnknownSeat, match="removed"):
        store.remove_seat(new.code, new.secret, ann.number)
    assert store.join(new.code, "Cy").number == 3                         # the freed place; numbers not reused
    with pytest.raises(ClassFull):
        store.join(new.code, "Ann", browser="browser:Ann")
    store.remove_seat(new.code, new.secret, 3)
    assert store.join(new.code, "Ann", browser="browser:Ann").number == 4    # a removed browser joins anew


def test_a_live_class_holds_back_every_answer_on_its_text_it_has_not_revealed(engine):
    from teaching.steps import STEPS
    clock = Clock()
    store = ClassStore(engine, clock=clock)
    every = frozenset(range(1, len(STEPS) + 1))
    new = store.create_class("hello")
    store.join(new.code, "Ann", browser="browser:ann", address="10.0.0.7")
    ann = {"browser": "browser:ann"}
    assert store.held_steps("hello", **ann) == every and store.held_steps("world", **ann) == frozenset()
    assert store.held_steps("hello", address="10.0.0.7") == every          # her other, cookie-less window
    # anyone not seated in it (a learner alone, another school) sees the lesson whole on the class's text
    assert store.held_steps("hello", browser="browser:bob", address="10.9.9.9") == frozenset()
    assert store.held_steps("hello") == frozenset()
    store.reveal(new.code, new.secret)
    store.go_to_step(new.code, new.secret, 3)
    store.reveal(new.code, new.secret)
    assert store.held_steps("hello", **ann) == every - {1, 3}
    store.go_to_step(new.code, new.secret, 1)          # back to a step revealed before: still out
    assert store.held_steps("hello", **ann) == every - {1, 3}
    other = store.create_class("hello")                 # another class on the text, which Ann also joined
    store.join(other.code, "Ann", browser="browser:ann")
    assert store.held_steps("hello", **ann) == every
    store.end_class(other.code, other.secret)
    clock.now += store_module.LIVE_IDLE_S + 1           # a teacher who has left it: no longer live
    assert store.held_steps("hello", **ann) == frozenset()
    store.go_to_step(new.code, new.secret, 2)
    assert store.held_steps("hello", **ann) == every - {1, 3}
    clock.now += store.lifetime_s                       # expired
    assert store.held_steps("hello", **ann) == frozenset()


def test_a_database_at_the_quizzes_migration_is_brought_forward_with_its_seats(tmp_path):
    """Seats taken before issue 63 have no browser or address: they keep working, and count under no address."""
    engine = database_at(tmp_path, "0003")
    with engine.begin() as connection:
        connection.exec_driver_sql(
            "INSERT INTO classes (id, code, secret_digest, text, step, round, voting, spread_shown, revealed, "
            "created_at, expires_at, changed_at, seats_given) VALUES (1, 'ABCDEF', 'x', 'hello', 1, 1, 0, 0, 0, "
            "0, 1e12, 1e12, 1)")
        connection.exec_driver_sql("INSERT INTO seats (id, class_id, number, token_digest, nickname, joined_at) "
                                   f"VALUES (1, 1, 1, '{codes.digest('old-token')}', 'Ann', 0)")
        connection.exec_driver_sql("INSERT INTO votes (class_id, step, round, seat_id, option, voted_at) "
                                   "VALUES (1, 1, 1, 1, 'yes', 0)")
        connection.exec_driver_sql("INSERT INTO quiz_answers (class_id, form, seat_id, item, option, answered_at) "
                                   "VALUES (1, 'before', 1, 0, 'no', 0)")
    migrate(engine)
    with engine.connect() as connection:        # a rebuilt seats table would cascade their deletion (SQLite)
        assert connection.exec_driver_sql("SELECT count(*) FROM votes").scalar() == 1
        assert connection.exec_driver_sql("SELECT count(*) FROM quiz_answers").scalar() == 1
    old = ClassStore(engine, clock=lambda: 1.0)
    assert old.seat("ABCDEF", "old-token").nickname == "Ann"
    assert old.join("ABCDEF", "", browser="browser:b", address="10.0.0.1").number == 2
    assert old.held_steps("hello", browser="browser:b") == frozenset(range(1, store_module.STEPS + 1))
    assert old.taught_by("browser:b") is None           # a class from before 0005 has no teacher's browser


MOST_MB_PER_FULL_CLASS = 0.65   # classroom.store's docstring: a class's database share under a flood


def test_a_class_full_from_one_address_takes_no_more_of_the_database_than_said(tmp_path):
    """The figure the store's docstring bounds a flood with: a class with SEATS_PER_ADDRESS seats from one address,
    each with a vote in both rounds of every step and both quizzes answered (written straight to the tables, in
    the order the class writes them)."""
    path = tmp_path / "size.db"
    engine = make_engine(f"sqlite:///{path}")
    migrate(engine)
    store = ClassStore(engine)

    def size() -> int:
        with engine.connect() as c:
            c.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        return path.stat().st_size

    start, made = size(), 2
    for k in range(made):
        new = store.create_class("attention is all you need")
        numbers = [store.join(new.code, f"student number {i:03d}", browser=f"browser:{k}-{i:024x}",
                              address="203.0.113.7").number for i in range(store_module.SEATS_PER_ADDRESS)]
        with engine.begin() as c:
            class_id, = c.execute(select(classes.c.id).where(classes.c.code == new.code)).one()
            ids = dict(c.execute(select(seats.c.number, seats.c.id).where(seats.c.class_id == class_id)).all())
            c.execute(votes.insert(), [dict(class_id=class_id, step=step, round=r, seat_id=ids[n],
                                            option="about the same (within 10 %)", voted_at=1e9)
                                       for step in range(1, store_module.STEPS + 1) for r in (1, 2) for n in numbers])
            c.execute(quiz_answers.insert(), [dict(class_id=class_id, form=form, seat_id=ids[n], item=item,
                                                   option=f"option 1 of item {item}", answered_at=1e9)
                                              for form in ("before", "after") for n in numbers for item in range(8)])
    assert (size() - start) / made / 1e6 <= MOST_MB_PER_FULL_CLASS


def test_a_new_task_for_predict_then_train_clears_its_votes_and_run_and_its_reveal_is_kept_as_the_lessons(store):
    P = store_module.PREDICT_STEP
    new = store.create_class("hello")
    store.set_task(new.code, new.secret, '{"rule": "copy"}')
    store.open_voting(new.code, new.secret)
    seat = store.join(new.code, "Ann")
    store.vote(new.code, seat.token, P, 1, "a", OPTIONS)
    store.record_training(new.code, new.secret, '{"status": "finished"}')
    store.reveal(new.code, new.secret)
    store.go_to_step(new.code, new.secret, 1)
    back = store.go_to_step(new.code, new.secret, P)           # where the class left it
    assert back.revealed and back.spread_shown and back.task_revealed and back.training == '{"status": "finished"}'
    assert store.held_steps("hello", browser=None) == frozenset()
    again = store.set_task(new.code, new.secret, '{"rule": "reverse"}')
    assert (again.step, again.round, again.voting, again.revealed, again.task_revealed) == (P, 1, False, False, False)
    assert again.training is None and store.counts(new.code, P, 1) == {}
    assert store.snapshot(new.code).state.task == '{"rule": "reverse"}'
    with pytest.raises(BadOption):
        store.set_task(new.code, new.secret, "x" * (store_module.TASK_CHARS + 1))
    with pytest.raises(BadOption):
        store.record_training(new.code, new.secret, "x" * (store_module.TRAINING_CHARS + 1))
    with pytest.raises(WrongSecret):
        store.set_task(new.code, "not the secret", '{"rule": "copy"}')


def test_a_class_from_before_predict_then_train_is_brought_forward_with_no_task_and_its_votes(tmp_path):
    """Migration 0006 adds the task and its run to a class row: a class started before it has neither, keeps
    its votes, and can be given a task."""
    engine = database_at(tmp_path, "0005")
    with engine.begin() as connection:
        connection.exec_driver_sql(
            "INSERT INTO classes (id, code, secret_digest, text, step, round, voting, spread_shown, revealed, "
            f"created_at, expires_at, changed_at, seats_given) VALUES (1, 'ABCDEF', '{codes.digest('s')}', 'hello', "
            "3, 1, 1, 0, 0, 0, 1e12, 1e12, 1)")
        connection.exec_driver_sql("INSERT INTO seats (id, class_id, number, token_digest, nickname, joined_at) "
                                   f"VALUES (1, 1, 1, '{codes.digest('old-token')}', 'Ann', 0)")
        connection.exec_driver_sql("INSERT INTO votes (class_id, step, round, seat_id, option, voted_at) "
                                   "VALUES (1, 3, 1, 1, 'yes', 0)")
    migrate(engine)
    old = ClassStore(engine, clock=lambda: 1.0)
    state = old.snapshot("ABCDEF").state
    assert (state.task, state.training, state.step, old.counts("ABCDEF", 3, 1)) == (None, None, 3, {"yes": 1})
    assert old.set_task("ABCDEF", "s", '{"rule": "copy"}').step == store_module.PREDICT_STEP
