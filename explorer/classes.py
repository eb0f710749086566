"""Class mode's Streamlit glue: the store (one engine per process, its schema migrated once), a class's links,
its QR code, and the polling that redraws a screen only when the class changed. Nothing about a class is kept
in the session but what its links hold (the teacher's code and secret, which leave the projected page's URL,
and the seats this session took) and the wrong-code count."""

from __future__ import annotations

import io
import time
from urllib.parse import urlencode, urlsplit

import segno
import streamlit as st
from sqlalchemy.exc import ArgumentError, SQLAlchemyError

from classroom import codes
from classroom.database import database_url, make_engine, migrate
from classroom.errors import ClassError, StoreUnavailable
from classroom.store import ClassState, ClassStore

from .cache import BUNDLED_CHECKPOINT
from .pages import page

TEACHER_POLL_SECONDS = 1.5         # the teacher's count follows the votes within this (asked: 2 s)
STUDENT_POLL_SECONDS = 3.0         # a student's screen follows the teacher's move within this: each poll is a
                                   # fragment run (about 4 ms of the server's CPU), and a hall has many students
CLASS_PARAM, TEACHER_PARAM, SEAT_PARAM = "class", "teacher", "seat"
WRONG_CODES_KEY = "_wrong_join_codes"   # (wrong codes in a row, time of the last) for this session
TEACHING_KEY = "_class_teaching"       # (code, secret) of the class this session controls: never in the URL
SEATS_KEY = "_class_seats"             # {code: seat token} this session holds: joining again keeps the seat
SEEN_KEY = "_class_seen"               # the class state this screen last drew
CLASS_MODEL_KEY = str(BUNDLED_CHECKPOINT)   # every screen of a class shows the bundled reverser's numbers


@st.cache_resource(show_spinner=False)
def _store(url: str) -> ClassStore:
    engine = make_engine(url)
    migrate(engine)
    store = ClassStore(engine)
    store.purge()   # besides each new class: a server that starts deletes what is past its retention too
    return store


def class_store() -> ClassStore | None:
    """The store, or None with a plain message when the database cannot be reached (the rest of the app works:
    only the two class pages call this)."""
    try:
        return _store(database_url())
    except (ClassError, SQLAlchemyError, ArgumentError, OSError) as error:
        message = str(error) if isinstance(error, StoreUnavailable) else (
            "The class database cannot be reached just now, so classes cannot be run or joined. The lesson and "
            "every other page still work.")
        st.error(message, icon="🛑")
        return None


def base_url() -> str:
    """The app's address as the browser sees it (scheme, host, port), for the links a teacher hands out."""
    parts = urlsplit(st.context.url or "http://localhost:8501/")
    return f"{parts.scheme}://{parts.netloc}"


def join_link(code: str) -> str:
    return f"{base_url()}/{page('join').url_path}?{urlencode({CLASS_PARAM: code})}"


def teacher_link(code: str, secret: str) -> str:
    return f"{base_url()}/{page('run_a_class').url_path}?{urlencode({CLASS_PARAM: code, TEACHER_PARAM: secret})}"


def qr_png(link: str) -> bytes:
    buffer = io.BytesIO()
    segno.make(link, error="m").save(buffer, kind="png", scale=10, border=2)
    return buffer.getvalue()


def param(name: str) -> str:
    """One value of the page's link ('' when absent); a repeated key keeps its last value."""
    return str(st.query_params.get(name, ""))[:200]


def check_code_tries() -> None:
    """Raises TooManyTries while this session must wait after many wrong join codes."""
    wrong, last = st.session_state.get(WRONG_CODES_KEY, (0, 0.0))
    codes.check_not_waiting(wrong, last, time.time())


def count_wrong_code(wrong: bool) -> None:
    count, _ = st.session_state.get(WRONG_CODES_KEY, (0, 0.0))
    st.session_state[WRONG_CODES_KEY] = (count + 1, time.time()) if wrong else (0, 0.0)


def drawn_state(s: ClassState) -> tuple:
    """What a screen's full redraw depends on: a change of any of it reruns the page."""
    return (s.step, s.round, s.voting, s.spread_shown, s.revealed, s.quiz_stage)


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
