"""Every read and write of class mode: one short transaction each, so a replica can die between any two and
lose nothing it reported as stored. The students' screens poll `snapshot`, one cheap query that runs no model.

Under a flood the database stays bounded by what one address may start (explorer.classes, on each replica: 10
classes at once, then one every 6 minutes, so at most 10 + 10 × 24 × 7 = 1,690 within RETENTION_S) times what
one class can hold from that address: SEATS_PER_ADDRESS seats take 0.10 MB of SQLite (measured: 20 classes,
2.1 MB), and 0.65 MB once each of them has voted in both rounds of every one of the 13 steps and answered both
quizzes (2 classes, 1.2 MB), and a predict-then-train run adds at most TRAINING_CHARS (20 kB) to its row. So one
address can make the database grow by at most 1.2 GB in a week, 0.17 GB with seats alone (it was 3 GB a day)."""

from __future__ import annotations

import secrets
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from sqlalchemy import Connection, case, delete, exists, func, insert, literal, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError

from . import codes
from .errors import (
    NO_SUCH_CODE, BadOption, BadStep, ClassExpired, ClassFull, NetworkFull, NicknameTaken,
    QuizClosed, StoreUnavailable, UnknownClass, UnknownSeat, VotingClosed, WrongSecret,
)
from .schema import classes, quiz_answers, seats, votes

LIFETIME_S = 24 * 3600       # a class can be joined and voted in for a day
MAX_SEATS = 500              # seats one class may have at once (a lecture hall)
SEATS_PER_ADDRESS = 200      # of them, from one address: a lecture hall behind one school router shares an
                             # address, and a script at one address minting a browser for each seat still
                             # leaves 300 seats to everyone else
COOKIELESS_SEATS_PER_ADDRESS = 5   # of those, for clients without the browser's cookie: each such join is a new
                                   # seat (nothing tells two of them apart), and a real browser has the cookie
                                   # unless it blocks it, so a few are room enough
LIVE_IDLE_S = 3600           # a class its teacher has not moved for an hour no longer holds answers back
STEPS = 13                   # the lesson's steps (teaching.steps.STEPS; a test holds the two equal)
PREDICT_STEP = STEPS + 1     # after the lesson: predict, then train, on a task the teacher sets (never held back)
TASK_CHARS, TRAINING_CHARS = 400, 20_000   # the longest task and run a class row keeps (teaching.predict_train)
RETENTION_S = 7 * 24 * 3600  # then everything about it is deleted a week after it started
ROUNDS = (1, 2)
QUIZ_STAGES = ("no quiz yet", "the before quiz is open", "the before quiz is closed", "the after quiz is open",
               "the after quiz is closed")
OPEN_FORM = {1: "before", 3: "after"}     # the stage in which each form takes answers
FORM_STAGE = {form: stage for stage, form in OPEN_FORM.items()}
RESULTS_STAGE = 4                         # students see their scores and the answers once the after quiz closed


@dataclass(frozen=True)
class NewClass:
    code: str      # what students type
    secret: str    # the teacher's link: shown once, stored only as a digest


@dataclass(frozen=True)
class ClassState:
    code: str
    text: str
    step: int
    round: int
    voting: bool
    spread_shown: bool
    revealed: bool
    expires_at: float
    changed_at: float
    quiz_stage: int = 0
    quiz_seed: int = 0
    task: str | None = None       # predict, then train: the task asked about (JSON, teaching.predict_train)
    training: str | None = None   # the run of its model, as the screens draw it (JSON)
    revealed_steps: int = 0       # bit n set: step n's answer is out

    @property
    def task_revealed(self) -> bool:
        return bool(self.revealed_steps >> PREDICT_STEP & 1)

    @property
    def open_form(self) -> str | None:
        """The quiz form taking answers now, if any."""
        return OPEN_FORM.get(self.quiz_stage)


@dataclass(frozen=True)
class Seat:
    token: str | None   # the seat's link token (only when just joined: the store keeps its digest)
    number: int
    nickname: str


@dataclass(frozen=True)
class Snapshot:
    """What a screen polls every second or two: the class's state, who has joined, who has voted now."""
    state: ClassState
    joined: int
    voted: int
    handed_in: int = 0   # seats with an answer in the quiz open now


@dataclass(frozen=True)
class QuizAnswerRow:
    form: str
    number: int
    nickname: str
    item: int
    option: str


@dataclass(frozen=True)
class VoteRow:
    step: int
    round: int
    number: int
    nickname: str
    option: str


class ClassStore:
    def __init__(self, engine: Engine, clock: Callable[[], float] = time.time,
                 lifetime_s: float = LIFETIME_S, retention_s: float = RETENTION_S, key: bytes | None = None) -> None:
        """`key`: what browsers' keys and addresses are digested with, and seat tokens derived from; replicas
        sharing a database share it (server.identity.secret()). Without one (tests, scripts), a key of this
        store's own: a browser then gets its seat back from this store only."""
        self.engine, self.clock = engine, clock
        self.lifetime_s, self.retention_s = lifetime_s, retention_s
        self.key = key or secrets.token_bytes(32)

    @contextmanager
    def _begin(self) -> Iterator[Connection]:
        try:
            with self.engine.begin() as connection:
                yield connection
        except (OperationalError, DBAPIError) as error:
            if isinstance(error, IntegrityError):
                raise
            raise StoreUnavailable("The class database cannot be reached just now; the lesson and every other "
                                   "page still work.") from error

    # --- the teacher ----------------------------------------------------------------------------------

    def create_class(self, text: str, browser: str | None = None) -> NewClass:
        """A new class. `browser`: the key of the browser that starts it (server.identity), whose tabs then get
        it back with taught_by; None for a client without the browser's cookie, which has the private link only."""
        now = self.clock()
        self.purge()
        for _ in range(20):   # 31^6 ≈ 887 million codes: a collision is rare, and retried
            code = codes.new_join_code()
            secret = codes.teacher_secret_of(self.key, code, browser) if browser else codes.new_secret()
            try:
                with self._begin() as c:
                    c.execute(insert(classes).values(
                        code=code, secret_digest=codes.digest(secret), text=text, step=1, round=1, voting=False,
                        spread_shown=False, revealed=False, created_at=now, expires_at=now + self.lifetime_s,
                        changed_at=now, seats_given=0, quiz_stage=0, quiz_seed=secrets.randbelow(2 ** 31),
                        teacher_digest=codes.keyed_digest(self.key, "teacher", browser) if browser else None))
                return NewClass(code, secret)
            except IntegrityError:
                continue
        raise StoreUnavailable("No free join code was found; try again.")

    def taught_by(self, browser: str, code: str | None = None) -> NewClass | None:
        """The live class this browser started last (the one of `code`, if given), with its secret, so that a
        reload, a sleep or a replica's death does not lock its teacher out; None when there is none."""
        mine = [classes.c.teacher_digest == codes.keyed_digest(self.key, "teacher", browser),
                classes.c.expires_at > self.clock()]
        if code is not None:
            mine.append(classes.c.code == code)
        with self._begin() as c:
            rows = c.execute(select(classes.c.code, classes.c.secret_digest).where(*mine)
                             .order_by(classes.c.created_at.desc(), classes.c.id.desc())).all()
        for code, stored in rows:      # a class started under another server key is not this browser's here
            secret = codes.teacher_secret_of(self.key, code, browser)
            if codes.matches(secret, stored):
                return NewClass(code, secret)
        return None

    def _teacher_row(self, c: Connection, code: str, secret: str):
        row = c.execute(select(classes).where(classes.c.code == code)).first()
        # The digest is compared even when the class is missing, so both cases take the same time.
        if not codes.matches(secret, row.secret_digest if row else "0" * 64) or row is None:
            raise WrongSecret("This teacher link does not open any class: check that it was copied whole.")
        return row

    def teacher_state(self, code: str, secret: str) -> ClassState:
        with self._begin() as c:
            return _state(self._teacher_row(c, code, secret))

    def _change(self, code: str, secret: str, **values) -> ClassState:
        with self._begin() as c:
            self._teacher_row(c, code, secret)
            changed = c.execute(update(classes).where(classes.c.code == code)
                                .values(changed_at=self.clock(), **values).returning(*classes.c)).first()
        if changed is None:   # ended by another of the teacher's tabs in between
            raise UnknownClass("This class has ended.")
        return _state(changed)

    def go_to_step(self, code: str, secret: str, step: int) -> ClassState:
        """A new question: round 1, voting closed, nothing shown. PREDICT_STEP keeps its task, its run and
        whether it was revealed: going back to it shows where the class left it."""
        if not 1 <= step <= PREDICT_STEP:
            raise BadStep(f"The lesson has steps 1 to {STEPS}, then {PREDICT_STEP} (predict, then train); there "
                          f"is no step {step}.")
        if step == PREDICT_STEP:
            was = self.teacher_state(code, secret).task_revealed
            return self._change(code, secret, step=step, round=1, voting=False, spread_shown=was, revealed=was)
        return self._change(code, secret, step=step, round=1, voting=False, spread_shown=False, revealed=False)

    def set_task(self, code: str, secret: str, task: str) -> ClassState:
        """Predict, then train, on a new task: on screen, round 1, voting closed, its earlier votes and run gone,
        in one transaction."""
        if not 0 < len(task) <= TASK_CHARS:
            raise BadOption(f"A task is kept in at most {TASK_CHARS} characters.")
        with self._begin() as c:
            row = self._teacher_row(c, code, secret)
            c.execute(delete(votes).where(votes.c.class_id == row.id, votes.c.step == PREDICT_STEP))
            changed = c.execute(update(classes).where(classes.c.id == row.id).values(
                changed_at=self.clock(), task=task, training=None, step=PREDICT_STEP, round=1, voting=False,
                spread_shown=False, revealed=False, revealed_steps=row.revealed_steps & ~(1 << PREDICT_STEP))
                .returning(*classes.c)).first()
        return _state(changed)

    def record_training(self, code: str, secret: str, training: str) -> ClassState:
        """The run of the class's model as it goes (the teacher's session trains it; every screen reads it)."""
        if len(training) > TRAINING_CHARS:
            raise BadOption(f"A run is kept in at most {TRAINING_CHARS} characters.")
        return self._change(code, secret, training=training)

    def open_voting(self, code: str, secret: str) -> ClassState:
        return self._change(code, secret, voting=True)

    def close_voting(self, code: str, secret: str) -> ClassState:
        return self._change(code, secret, voting=False)

    def show_spread(self, code: str, secret: str) -> ClassState:
        return self._change(code, secret, voting=False, spread_shown=True)

    def second_round(self, code: str, secret: str) -> ClassState:
        """After discussion: everyone votes again, the first round's spread hidden."""
        return self._change(code, secret, round=2, voting=True, spread_shown=False)

    def reveal(self, code: str, secret: str) -> ClassState:
        """The model's answer to this step, out: for the students, and from now on on the Lesson page too."""
        out = classes.c.revealed_steps.op("|")(literal(1).op("<<")(classes.c.step))
        return self._change(code, secret, voting=False, spread_shown=True, revealed=True, revealed_steps=out)

    def set_quiz_stage(self, code: str, secret: str, stage: int) -> ClassState:
        """Open or close the before or after quiz (QUIZ_STAGES); voting on a step closes while a quiz is open."""
        if not 0 <= stage < len(QUIZ_STAGES):
            raise BadStep(f"There is no quiz stage {stage}.")
        extra = {"voting": False} if stage in OPEN_FORM else {}
        return self._change(code, secret, quiz_stage=stage, **extra)

    def end_class(self, code: str, secret: str) -> None:
        """The class, its seats, its votes and its quiz answers, deleted at once."""
        with self._begin() as c:
            row = self._teacher_row(c, code, secret)
            c.execute(delete(quiz_answers).where(quiz_answers.c.class_id == row.id))
            c.execute(delete(votes).where(votes.c.class_id == row.id))
            c.execute(delete(seats).where(seats.c.class_id == row.id))
            c.execute(delete(classes).where(classes.c.id == row.id))

    def participants(self, code: str, secret: str) -> list[Seat]:
        """Every seat of the class, by number (the store keeps no seat's token)."""
        with self._begin() as c:
            row = self._teacher_row(c, code, secret)
            found = c.execute(select(seats.c.number, seats.c.nickname).where(seats.c.class_id == row.id)
                              .order_by(seats.c.number))
            return [Seat(None, *r) for r in found]

    def roster(self, code: str, secret: str) -> list[tuple[int, str, float]]:
        """(seat number, nickname, joined at) of every seat, by number: the gradebook's rows."""
        with self._begin() as c:
            row = self._teacher_row(c, code, secret)
            return [tuple(r) for r in c.execute(select(seats.c.number, seats.c.nickname, seats.c.joined_at)
                                                .where(seats.c.class_id == row.id).order_by(seats.c.number))]

    def remove_seat(self, code: str, secret: str, number: int) -> Seat:
        """Take a seat away with its votes and quiz answers: it leaves every count, and the class has room for one
        more (its number is not given again). Whoever held it can join again with the code, as someone new."""
        with self._begin() as c:
            row = self._teacher_row(c, code, secret)
            seat = c.execute(select(seats.c.id, seats.c.number, seats.c.nickname)
                             .where(seats.c.class_id == row.id, seats.c.number == number)).first()
            if seat is None:
                raise UnknownSeat(f"Seat {number} is not in this class: it may have been removed already.")
            c.execute(delete(quiz_answers).where(quiz_answers.c.seat_id == seat.id))
            c.execute(delete(votes).where(votes.c.seat_id == seat.id))
            c.execute(delete(seats).where(seats.c.id == seat.id))
        return Seat(None, seat.number, seat.nickname)

    def all_votes(self, code: str, secret: str) -> list[VoteRow]:
        """Every vote of the class, by seat number (for the teacher's CSV)."""
        with self._begin() as c:
            row = self._teacher_row(c, code, secret)
            found = c.execute(
                select(votes.c.step, votes.c.round, seats.c.number, seats.c.nickname, votes.c.option)
                .join(seats, seats.c.id == votes.c.seat_id).where(votes.c.class_id == row.id)
                .order_by(votes.c.step, votes.c.round, seats.c.number))
            return [VoteRow(*r) for r in found]

    def all_quiz_answers(self, code: str, secret: str) -> list[QuizAnswerRow]:
        """Every quiz answer of the class, by form, seat number and item (for the teacher's results and CSV)."""
        with self._begin() as c:
            row = self._teacher_row(c, code, secret)
            found = c.execute(
                select(quiz_answers.c.form, seats.c.number, seats.c.nickname, quiz_answers.c.item,
                       quiz_answers.c.option)
                .join(seats, seats.c.id == quiz_answers.c.seat_id).where(quiz_answers.c.class_id == row.id)
                .order_by(quiz_answers.c.form, seats.c.number, quiz_answers.c.item))
            return [QuizAnswerRow(*r) for r in found]

    def purge(self) -> int:
        """Delete every class started more than the retention period ago; how many."""
        old = select(classes.c.id).where(classes.c.created_at < self.clock() - self.retention_s)
        with self._begin() as c:
            c.execute(delete(quiz_answers).where(quiz_answers.c.class_id.in_(old)))
            c.execute(delete(votes).where(votes.c.class_id.in_(old)))
            c.execute(delete(seats).where(seats.c.class_id.in_(old)))
            return c.execute(delete(classes).where(classes.c.id.in_(old))).rowcount

    # --- everyone --------------------------------------------------------------------------------------

    def snapshot(self, code: str) -> Snapshot:
        """The state, the seats taken, the votes in this step and round, the quiz handed in: one query."""
        joined = select(func.count()).select_from(seats).where(seats.c.class_id == classes.c.id).scalar_subquery()
        voted = (select(func.count()).select_from(votes)
                 .where(votes.c.class_id == classes.c.id, votes.c.step == classes.c.step,
                        votes.c.round == classes.c.round).scalar_subquery())
        open_form = case({stage: literal(form) for stage, form in OPEN_FORM.items()}, value=classes.c.quiz_stage,
                         else_=literal(""))
        handed = (select(func.count(func.distinct(quiz_answers.c.seat_id))).select_from(quiz_answers)
                  .where(quiz_answers.c.class_id == classes.c.id, quiz_answers.c.form == open_form)
                  .scalar_subquery())
        with self._begin() as c:
            row = c.execute(select(classes, joined.label("joined"), voted.label("voted"), handed.label("handed"))
                            .where(classes.c.code == code)).first()
        if row is None:
            raise UnknownClass(f"{NO_SUCH_CODE} A class that ended is gone.")
        return Snapshot(_state(row), row.joined, row.voted, row.handed)

    def held_steps(self, text: str, browser: str | None = None, address: str | None = None) -> frozenset[int]:
        """The steps whose answer on this text a live class has not revealed yet, which the Lesson page and the
        teacher's sheet hold back from one of that class's students: a client whose browser (`browser`, its key)
        or whose address holds a seat in it. Anyone else on the text (a learner alone, another school) sees the
        lesson whole: a class on the default text would otherwise hide its answers from everyone for its whole
        run. A class is live until it expires or its teacher leaves it unmoved for LIVE_IDLE_S."""
        owners = ([seats.c.browser_digest == codes.keyed_digest(self.key, "browser", browser)] if browser else []) \
            + ([seats.c.address_digest == codes.keyed_digest(self.key, "address", address)] if address else [])
        if not owners:
            return frozenset()
        now = self.clock()
        seated = exists().where(seats.c.class_id == classes.c.id, or_(*owners))
        with self._begin() as c:
            masks = c.execute(select(classes.c.revealed_steps).where(
                classes.c.text == text, classes.c.expires_at > now, classes.c.changed_at > now - LIVE_IDLE_S,
                seated)).scalars().all()
        return frozenset(step for step in range(1, STEPS + 1) for mask in masks if not mask >> step & 1)

    def counts(self, code: str, step: int, round_: int) -> Counter:
        """Votes per option in one step and round."""
        with self._begin() as c:
            found = c.execute(select(votes.c.option, func.count()).join(classes, classes.c.id == votes.c.class_id)
                              .where(classes.c.code == code, votes.c.step == step, votes.c.round == round_)
                              .group_by(votes.c.option))
            return Counter(dict(found.all()))

    # --- a student --------------------------------------------------------------------------------------

    def join(self, code: str, nickname: str, browser: str | None = None, address: str | None = None) -> Seat:
        """This browser's seat in the class: the one it holds already, whichever tab or link asks (the nickname
        typed then is not used), or a new one. `browser` is the asking browser's key (server.identity; None for
        a client without the browser's cookie: a new seat each time, capped by address), `address` its address
        (None: counted nowhere, for tests and scripts)."""
        name = codes.clean_nickname(nickname)              # refused before a number is spent on it
        if browser is None:
            return self._new_seat(code, name, None, address)
        for _ in range(2):   # a second look finds the seat another tab of this browser took a moment before
            held = self.held_seat(code, browser)
            if held is not None:
                return held
            try:
                return self._new_seat(code, name, browser, address)
            except IntegrityError:
                continue
            except NicknameTaken:        # by another tab of this browser, a moment before: its seat, then
                if (held := self.held_seat(code, browser)) is not None:
                    return held
                raise
        raise StoreUnavailable("Your seat could not be taken just now; try again.")

    def held_seat(self, code: str, browser: str) -> Seat | None:
        """The seat this browser holds in the class, with its token (derived again, as it was made), or None."""
        with self._begin() as c:
            row = c.execute(select(seats.c.number, seats.c.nickname).join(classes, classes.c.id == seats.c.class_id)
                            .where(classes.c.code == code,
                                   seats.c.browser_digest == codes.keyed_digest(self.key, "browser", browser))).first()
        return None if row is None else Seat(codes.seat_token_of(self.key, code, browser), row.number, row.nickname)

    def _new_seat(self, code: str, name: str, browser: str | None, address: str | None) -> Seat:
        """A seat's number comes from the class's counter, taken and raised in one statement that also locks the
        class's row, so students joining at once never race for a number or for the last seat."""
        token = codes.new_secret() if browser is None else codes.seat_token_of(self.key, code, browser)
        owner = None if browser is None else codes.keyed_digest(self.key, "browser", browser)
        where = None if address is None else codes.keyed_digest(self.key, "address", address)
        now = self.clock()
        with self._begin() as c:
            given = c.execute(update(classes).where(classes.c.code == code, classes.c.expires_at > now)
                              .values(seats_given=classes.c.seats_given + 1)
                              .returning(classes.c.id, classes.c.seats_given)).first()
            if given is None:
                self._why_no_seat(c, code)
            self._check_room(c, given.id, where, cookieless=browser is None)
            if name:
                self._check_name_free(c, given.id, name)
            number = given.seats_given
            c.execute(insert(seats).values(class_id=given.id, number=number, token_digest=codes.digest(token),
                                           nickname=name or codes.given_name(number), joined_at=now,
                                           browser_digest=owner, address_digest=where))
        return Seat(token, number, name or codes.given_name(number))

    @staticmethod
    def _check_name_free(c: Connection, class_id: int, name: str, number: int | None = None) -> None:
        """Refuses a typed name the store gives, or one another seat (not `number`) has, but for case: checked
        with the class's row locked, so two students typing one name at once do not both get it."""
        if codes.is_given_name(name):
            raise NicknameTaken(f"“{name}” is a name the class gives to students who type none: pick another "
                                "nickname, or leave it empty.")
        others = c.execute(select(seats.c.nickname).where(seats.c.class_id == class_id,
                                                          *([] if number is None else [seats.c.number != number])))
        if any(codes.same_name(name, other) for (other,) in others):
            raise NicknameTaken(f"Someone in this class is already called “{name}”: pick another nickname.")

    def rename_seat(self, code: str, secret: str, number: int, nickname: str) -> Seat:
        """The teacher renames a seat (an offensive or a mistaken name); an empty name gives it back its
        "Student N". Its votes and answers stay."""
        name = codes.clean_nickname(nickname)
        with self._begin() as c:
            row = self._teacher_row(c, code, secret)
            c.execute(update(classes).where(classes.c.id == row.id).values(changed_at=row.changed_at))  # locks it
            if name:
                self._check_name_free(c, row.id, name, number)
            renamed = c.execute(update(seats).where(seats.c.class_id == row.id, seats.c.number == number)
                                .values(nickname=name or codes.given_name(number))
                                .returning(seats.c.number, seats.c.nickname)).first()
            if renamed is None:
                raise UnknownSeat(f"Seat {number} is not in this class: it may have been removed already.")
        return Seat(None, renamed.number, renamed.nickname)

    @staticmethod
    def _why_no_seat(c: Connection, code: str) -> None:
        if c.execute(select(classes.c.id).where(classes.c.code == code)).first() is None:
            raise UnknownClass(NO_SUCH_CODE)
        raise ClassExpired("This class has ended: its time is over.")

    @staticmethod
    def _check_room(c: Connection, class_id: int, where: str | None, cookieless: bool) -> None:
        """Refuses a seat past the class's cap, its address's, or its address's cap for clients without the
        browser's cookie: counted once the class's row is locked, so the caps hold with joins at once."""
        def taken(*where_) -> int:
            return c.execute(select(func.count()).select_from(seats)
                             .where(seats.c.class_id == class_id, *where_)).scalar_one()

        if taken() >= MAX_SEATS:
            raise ClassFull(f"This class is full: it has {MAX_SEATS} students. The teacher can free a seat by "
                            "removing someone who has left.")
        if where is None:
            return
        if taken(seats.c.address_digest == where) >= SEATS_PER_ADDRESS:
            raise NetworkFull(f"This class already has {SEATS_PER_ADDRESS} students from your network, as many as "
                              "one network may seat in a class. Ask the teacher to free a seat.")
        if cookieless and taken(seats.c.address_digest == where,
                                seats.c.browser_digest.is_(None)) >= COOKIELESS_SEATS_PER_ADDRESS:
            raise NetworkFull(f"This browser sent no cookie from the app (the cookie keeps your seat across tabs), "
                              f"and {COOKIELESS_SEATS_PER_ADDRESS} browsers without it on your network already have "
                              "a seat in this class, as many as may. Allow cookies for this site, reload the page "
                              "and join again.")

    def seat(self, code: str, token: str) -> Seat:
        with self._begin() as c:
            row = c.execute(select(seats.c.number, seats.c.nickname).join(classes, classes.c.id == seats.c.class_id)
                            .where(classes.c.code == code, seats.c.token_digest == codes.digest(token))).first()
        if row is None:
            raise UnknownSeat("This seat link belongs to no seat of this class (the teacher may have removed it): "
                              "join again with the code.")
        return Seat(None, row.number, row.nickname)

    def vote(self, code: str, token: str, step: int, round_: int, option: str, options: tuple[str, ...]) -> None:
        """Store (or replace) this seat's vote in this step and round, in one statement that also checks the
        teacher has voting open on exactly that step and round. Returns only once it is committed."""
        if option not in options:
            raise BadOption("That answer is not one of the question's options.")
        now = self.clock()
        source = (select(classes.c.id, literal(step), literal(round_), seats.c.id, literal(option), literal(now))
                  .join(seats, seats.c.class_id == classes.c.id)
                  .where(classes.c.code == code, classes.c.voting.is_(True), classes.c.step == step,
                         classes.c.round == round_, classes.c.expires_at > now,
                         seats.c.token_digest == codes.digest(token))
                  # PostgreSQL: the class row is share-locked, so a teacher's close waits for a vote already
                  # under way and a vote after it sees voting closed (SQLite writes one at a time anyway)
                  .with_for_update(read=True, of=classes))
        dialect = {"sqlite": sqlite, "postgresql": postgresql}[self.engine.dialect.name]
        statement = (dialect.insert(votes)
                     .from_select(["class_id", "step", "round", "seat_id", "option", "voted_at"], source)
                     .on_conflict_do_update(index_elements=["class_id", "step", "round", "seat_id"],
                                            set_={"option": option, "voted_at": now})
                     .returning(votes.c.seat_id))   # an upsert's rowcount is not 1 on psycopg: count what it returns
        with self._begin() as c:
            stored = len(c.execute(statement).all())
        if stored != 1:
            self._why_not_stored(code, token, step, round_)

    def _why_not_stored(self, code: str, token: str, step: int, round_: int) -> None:
        state = self.snapshot(code).state            # UnknownClass if it is gone
        self.seat(code, token)                       # UnknownSeat if the token is not a seat here
        if state.expires_at <= self.clock():
            raise ClassExpired("This class has ended: its time is over.")
        if (state.step, state.round) != (step, round_):
            raise VotingClosed("The teacher has moved on: your screen now shows the current question.")
        raise VotingClosed("Voting is closed for this question.")

    def hand_in(self, code: str, token: str, form: str, answers: Sequence[str | None],
                options: Sequence[tuple[str, ...]]) -> int:
        """Store this seat's answers to one form of the quiz (an unanswered item is left out; handing in again
        replaces), all in one transaction that first checks the teacher has that form open. Returns how many
        answers were stored, once they are committed."""
        if form not in FORM_STAGE:
            raise BadOption(f"There is no '{form}' quiz.")
        if len(answers) != len(options) or any(a is not None and a not in o for a, o in zip(answers, options)):
            raise BadOption("An answer is not one of its item's options.")
        now = self.clock()
        with self._begin() as c:
            found = c.execute(
                select(classes.c.id, seats.c.id.label("seat_id")).join(seats, seats.c.class_id == classes.c.id)
                .where(classes.c.code == code, classes.c.quiz_stage == FORM_STAGE[form], classes.c.expires_at > now,
                       seats.c.token_digest == codes.digest(token))
                .with_for_update(read=True, of=classes)).first()   # PostgreSQL: a close waits for a hand-in
            if found is not None:
                dialect = {"sqlite": sqlite, "postgresql": postgresql}[self.engine.dialect.name]
                for item, answer in enumerate(answers):
                    if answer is None:
                        continue
                    c.execute(dialect.insert(quiz_answers)
                              .values(class_id=found.id, form=form, seat_id=found.seat_id, item=item, option=answer,
                                      answered_at=now)
                              .on_conflict_do_update(index_elements=["class_id", "form", "seat_id", "item"],
                                                     set_={"option": answer, "answered_at": now}))
        if found is None:
            self._why_not_handed_in(code, token, form)
        return sum(a is not None for a in answers)

    def _why_not_handed_in(self, code: str, token: str, form: str) -> None:
        state = self.snapshot(code).state
        self.seat(code, token)
        if state.expires_at <= self.clock():
            raise ClassExpired("This class has ended: its time is over.")
        raise QuizClosed(f"The {form} quiz is not open: the teacher has closed it or not opened it yet.")

    def my_answers(self, code: str, token: str, form: str) -> dict[int, str]:
        """This seat's stored answers to one form, by item."""
        with self._begin() as c:
            found = c.execute(
                select(quiz_answers.c.item, quiz_answers.c.option).join(seats, seats.c.id == quiz_answers.c.seat_id)
                .join(classes, classes.c.id == quiz_answers.c.class_id)
                .where(classes.c.code == code, seats.c.token_digest == codes.digest(token),
                       quiz_answers.c.form == form))
            return dict(found.all())

    def my_vote(self, code: str, token: str, step: int, round_: int) -> str | None:
        with self._begin() as c:
            return c.execute(
                select(votes.c.option).join(seats, seats.c.id == votes.c.seat_id)
                .join(classes, classes.c.id == votes.c.class_id)
                .where(classes.c.code == code, seats.c.token_digest == codes.digest(token), votes.c.step == step,
                       votes.c.round == round_)).scalar_one_or_none()


def _state(row) -> ClassState:
    return ClassState(row.code, row.text, row.step, row.round, bool(row.voting), bool(row.spread_shown),
                      bool(row.revealed), row.expires_at, row.changed_at, row.quiz_stage, row.quiz_seed, row.task,
                      row.training, row.revealed_steps)


