"""Class mode's Streamlit glue: the store (one engine per process, its schema migrated once), a class's links,
its QR code, seats by browser, the limits on guessing codes and starting classes, the answers held back while
a class votes, and the polling that redraws a screen only when the class changed. Nothing about a class is kept
in the session but what its links hold (the teacher's code and secret, which leave the projected page's URL,
and the seats a client without the browser's cookie took).

Who asks is a browser, all its tabs together, or its address without the browser's cookie (server.identity).
The limits below are token buckets in this process: with several replicas, each counts on its own, so an
address may do as much on each."""

from __future__ import annotations

import io
import math
import os
from urllib.parse import urlencode

import segno
import streamlit as st
from sqlalchemy.exc import ArgumentError, SQLAlchemyError

from classroom import public_link
from classroom.database import database_url, make_engine, migrate
from classroom.errors import ClassError, StoreUnavailable, TooManyClasses, TooManyTries
from classroom.public_link import JoinBase
from classroom.store import ClassState, ClassStore
from server import identity
from server.limits import Buckets
from teaching.predict_train import run_status

from .cache import BUNDLED_CHECKPOINT
from .pages import page

TEACHER_POLL_SECONDS = 1.5         # the teacher's count follows the votes within this (asked: 2 s)
STUDENT_POLL_SECONDS = 3.0         # a student's screen follows the teacher's move within this: each poll is a
                                   # fragment run (about 4 ms of the server's CPU), and a hall has many students
CLASS_PARAM, TEACHER_PARAM, SEAT_PARAM = "class", "teacher", "seat"
TEACHING_KEY = "_class_teaching"       # (code, secret) of the class this session controls: never in the URL
SEATS_KEY = "_class_seats"             # {code: seat token} taken by this session without the browser's cookie
SEEN_KEY = "_class_seen"               # the class state this screen last drew
CLASS_MODEL_KEY = str(BUNDLED_CHECKPOINT)   # every screen of a class shows the bundled reverser's numbers
# The text a new class starts with: five distinct letters on which the lesson's rules hold at the predict-first
# steps (step 6: 3 of the 4 last-layer heads on n − 1 − i; step 8: what most held-out words do). "hello", the
# app's default, is an exception at both, so a class could only guess them (tests/app/test_class_mode.py).
CLASS_TEXT = "world"
HELD_CHECK_SECONDS = 2.0               # the Lesson page learns that a class revealed an answer within this

# Wrong join codes, by address: 10 at once (a class mistyping behind one router hardly waits), then one every
# 3 s, whatever the sessions or right codes in between. 1,200 guesses an hour against 31^6 codes: one address
# finds one of 60 open classes within their 24 hours with a chance of 0.2 %.
WRONG_CODES = Buckets(10, 3.0)
# Classes started: 5 at once per browser, then one every 12 minutes; 10 per address (a school's teachers behind
# one router), then one every 6 minutes, which bounds the database under a flood (classroom.store).
NEW_CLASSES_BY_BROWSER = Buckets(5, 720.0)
NEW_CLASSES_BY_ADDRESS = Buckets(10, 360.0)
STORE_ERRORS = (ClassError, SQLAlchemyError, ArgumentError, OSError)


@st.cache_resource(show_spinner=False)
def _store(url: str) -> ClassStore:
    engine = make_engine(url)
    migrate(engine)
    store = ClassStore(engine, key=identity.secret())   # the key every replica's cookies are signed with
    store.purge()   # besides each new class: a server that starts deletes what is past its retention too
    return store


def class_store() -> ClassStore | None:
    """The store, or None with a plain message when the database cannot be reached (the rest of the app works:
    only the two class pages call this)."""
    try:
        return _store(database_url())
    except STORE_ERRORS as error:
        message = str(error) if isinstance(error, StoreUnavailable) else (
            "The class database cannot be reached just now, so classes cannot be run or joined. The lesson and "
            "every other page still work.")
        st.error(message, icon="🛑")
        return None


def join_base() -> JoinBase:
    """Where a phone reaches the app (classroom.public_link): EXPLORER_PUBLIC_URL, else the browser's address,
    else this computer's network address when the browser's is loopback and the server listens there too."""
    return public_link.join_base(st.context.url or "", os.environ.get(public_link.PUBLIC_URL_ENV),
                                 st.get_option("server.address"))


def base_url() -> str:
    """The base of the links a teacher hands out: join_base's."""
    return join_base().url


def join_link(code: str) -> str:
    return f"{base_url()}/{page('join').url_path}?{urlencode({CLASS_PARAM: code})}"


def teacher_link(code: str, secret: str) -> str:
    return f"{base_url()}/{page('run_a_class').url_path}?{urlencode({CLASS_PARAM: code, TEACHER_PARAM: secret})}"


def projector_link(code: str) -> str:
    """The projector view of a class (Run a class in projector mode, with its code and nothing secret)."""
    return f"/{page('run_a_class').url_path}?{urlencode({CLASS_PARAM: code, 'projector': 'true'})}"


def qr_png(link: str) -> bytes:
    buffer = io.BytesIO()
    segno.make(link, error="m").save(buffer, kind="png", scale=10, border=2)
    return buffer.getvalue()


def param(name: str) -> str:
    """One value of the page's link ('' when absent); a repeated key keeps its last value."""
    return str(st.query_params.get(name, ""))[:200]


def _wait_words(seconds: float) -> str:
    return f"{math.ceil(seconds)} s" if seconds < 90 else f"{math.ceil(seconds / 60)} min"


def check_code_tries() -> None:
    """Raises TooManyTries, at once and without asking the store, while this address must wait after its wrong
    join codes."""
    wait = WRONG_CODES.wait_for(identity.current().address)
    if wait > 0:
        raise TooManyTries(f"Too many wrong codes from your network: try again in {_wait_words(wait)}.")


def count_wrong_code() -> None:
    """A wrong code spends one of its address's tries; a right one spends none, and resets nothing."""
    WRONG_CODES.take(identity.current().address)


def count_new_class() -> None:
    """Counts a class about to start against its browser's and its address's allowance; past either, raises
    TooManyClasses and counts nothing."""
    who = identity.current()
    for buckets, key, asker in ((NEW_CLASSES_BY_BROWSER, who.key, "This browser"),
                                (NEW_CLASSES_BY_ADDRESS, who.address, "Your network")):
        wait = buckets.wait_for(key)
        if wait > 0:
            raise TooManyClasses(f"{asker} has started as many classes as it may for now ({buckets.burst:.0f} at "
                                 f"once, then one every {buckets.every / 60:.0f} minutes): the next can start in "
                                 f"{_wait_words(wait)}.")
    NEW_CLASSES_BY_BROWSER.take(who.key)
    NEW_CLASSES_BY_ADDRESS.take(who.address)


def _owner(who: identity.Browser) -> str | None:
    """The key a seat is kept for: the browser's, shared by its tabs, or None for a client without the browser's
    cookie, which server.identity knows only by an address that many share (or, under AppTest, by a session id
    every test session shares)."""
    return who.key if who.has_cookie else None


def held_seat_token(store: ClassStore, code: str) -> str | None:
    """The token of the seat this browser holds in the class, whichever tab or link asks; without the browser's
    cookie, of the seat this session took."""
    owner = _owner(identity.current())
    if owner is None:
        return st.session_state.get(SEATS_KEY, {}).get(code)
    held = store.held_seat(code, owner)
    return held.token if held else None


def take_seat(store: ClassStore, code: str, nickname: str) -> str:
    """This browser's seat in the class, the one it holds or a new one (classroom.store caps them per browser
    and per address): its token."""
    who = identity.current()
    owner, kept = _owner(who), st.session_state.get(SEATS_KEY, {})
    if owner is None and code in kept:
        return kept[code]
    token = store.join(code, nickname, owner, who.address).token
    if owner is None:
        st.session_state[SEATS_KEY] = {**kept, code: token}
    return token


def start_class(store: ClassStore, text: str):
    """A new class, kept for this browser (any of its tabs gets it back: taught_here) when it has the cookie."""
    return store.create_class(text, _owner(identity.current()))


def taught_here(store: ClassStore, code: str | None = None):
    """The live class this browser started (the one of `code`, if given), with its secret, or None: a reload, a
    sleep or the teacher's replica dying then loses nothing. A client without the browser's cookie has none."""
    owner = _owner(identity.current())
    return None if owner is None else store.taught_by(owner, code)


def forget_seat(code: str) -> None:
    """A seat the store no longer has (removed, or its class ended): joining again takes a new one."""
    st.session_state.get(SEATS_KEY, {}).pop(code, None)


def held_steps(text: str) -> frozenset[int]:
    """The steps whose answer on this text a live class this browser or its address has a seat in has not
    revealed (classroom.store.ClassStore.held_steps), asked at most once per HELD_CHECK_SECONDS for each."""
    who = identity.current()
    return _held_steps(database_url(), text, _owner(who), who.address)


@st.cache_data(ttl=HELD_CHECK_SECONDS, show_spinner=False, max_entries=1024)
def _held_steps(url: str, text: str, browser: str | None, address: str) -> frozenset[int]:
    """A database that cannot be reached holds nothing back: no class can run without it."""
    try:
        return _store(url).held_steps(text, browser, address)
    except STORE_ERRORS:
        return frozenset()


def drawn_state(s: ClassState) -> tuple:
    """What a screen's full redraw depends on: a change of any of it reruns the page."""
    return (s.step, s.round, s.voting, s.spread_shown, s.revealed, s.quiz_stage, s.task, run_status(s.training))


def rerun_when_changed(store: ClassStore, code: str, show_counts) -> None:
    """Polled in a fragment every few seconds: one cheap query; the page reruns only when the class moved on,
    otherwise `show_counts(snapshot)` redraws the fragment's own few lines."""
    try:
        snapshot = store.snapshot(code)
    except ClassError as error:
        st.warning(str(error), icon="⚠️")
        return
    if drawn_state(snapshot.state) != st.session_state.get(SEEN_KEY):
        st.rerun(scope="app")
    show_counts(snapshot)


def _store_act(change, code: str, secret: str, error_key: str) -> None:
    """on_click of a teacher's button: the store's change, its ClassError kept for the next run to show."""
    try:
        change(code, secret)
    except ClassError as error:
        st.session_state[error_key] = str(error)


def teacher_controls(store: ClassStore, code: str, secret: str, state: ClassState, error_key: str, key: str = "",
                     train=None, reveal_ready: bool = True, reveal_help: str | None = None) -> None:
    """The teacher's row for a question: Open voting, Close voting, Show the spread, Round 2, then Train where
    `train` (a function that draws its button in the column it is given), then Reveal, held until `reveal_ready`.
    `key`: a prefix for the buttons' keys, where a page draws two rows in its life."""
    buttons = st.columns(6 if train else 5)

    def button(column, label: str, change, disabled: bool, name: str, **more) -> None:
        column.button(label, disabled=disabled, width="stretch", key=f"{key}{name}" if key else None,
                      on_click=_store_act, args=(change, code, secret, error_key), **more)

    button(buttons[0], "Open voting", store.open_voting, state.voting or state.revealed, "open", type="primary")
    button(buttons[1], "Close voting", store.close_voting, not state.voting, "close")
    button(buttons[2], "Show the spread", store.show_spread, state.spread_shown, "spread")
    button(buttons[3], "Round 2", store.second_round, state.round == 2 or state.revealed, "round",
           help="After neighbours discuss: vote again")
    if train:
        train(buttons[4])
    button(buttons[-1], "Reveal", store.reveal, state.revealed or not reveal_ready, "reveal", help=reveal_help)


def share_right(place, result) -> None:
    """One round's share right, as the teacher's reveal shows it beside the others (a teaching.class_mode
    round_result)."""
    place.metric(f"Round {result.round}: share right",
                 "no votes" if result.share_right is None else f"{result.share_right:.0%}",
                 f"{result.right} of {result.votes} votes", delta_color="off", delta_arrow="off")
