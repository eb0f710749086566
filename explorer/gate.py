"""Who may compute on the server, and when: at most two places at once, one per session, for script runs and
for downloads alike; one lane beside them for work whose cost a learner's own model sets; and a health check
that fails while every place has been held too long.

Streamlit gives every session's run its own thread, and many at once fight over the GIL and Streamlit's locks,
so letting runs through two at a time finishes more of them sooner. One place per session means that a tab
cannot take both: whatever it asks for (reruns, downloads built when the button is pressed, which Streamlit runs
in a worker thread outside any script run), everyone else keeps at least one place. Two places, not one, so
that a long run (a lab table built for the first time) does not hold up everyone. After each run, its session
spends the time it held its place (and a little for Streamlit's work around the run) from an allowance that
refills at 0.15 s per second, up to two seconds: a learner clicking about never waits, and a session in debt
rests (at most a second) before its next run. One tab rerunning as fast as the server answers so gets about a
seventh of the server: at half a place (a rest as long as each run) a rerun flood still made another learner
1.8x slower, as every run also holds the GIL, and at a quarter of a place (not counting the work around each
run, 60 % more) 1.6-1.9x. A rest is for the others, so a session alone on the server does not rest: no other
session is connected, or waits for or holds a place. A learner who opened a lab page (3 s of tables the first
time) and typed at once rested 0.3 s before every answer on an idle server. Connected, not recently run: a
learner reading for a minute is still company, so a tab rerunning flat out meanwhile rests as before.

The lab's tables of a learner's own model cost what its upload makes them cost, and two learners each running
one held both places for minutes. Such work leaves its place while it waits for and holds the one heavy lane,
so at most one of it runs at a time, and never in a place the other learners need.
"""

from __future__ import annotations

import contextlib
import functools
import threading
import time
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, TypeVar

import streamlit as st
from streamlit.runtime import Runtime
from streamlit.runtime.scriptrunner import get_script_run_ctx

PLACES = 2
HEAVY_LANES = 1
SHARE = 0.15         # a session's allowance of place time grows by this many seconds each second...
ALLOWANCE = 2.0      # ...up to this many; each run spends what it held and RUN_OVERHEAD, and a session in
MAX_REST = 1.0       # debt rests first, at most this long (its debt is capped at MAX_REST * SHARE)
RUN_OVERHEAD = 0.015 # seconds of the server's work for a run outside its place (the run's messages, its widget
                     # states): 16 ms a run beside 27 ms in the place, measured over 300 reruns of Home
STUCK_AFTER = 120.0  # seconds every place may stay with the same runs before the health check fails; the
                     # longest legitimate run (a cold lab table of a bundled model on a busy machine) is about 90
T = TypeVar("T")


class GateBusy(Exception):
    """A download that could not have its session's turn now (one is waiting already, or the turn is long)."""


@dataclass(eq=False)
class _Held:
    """A place taken: whose it is, and how long it was set aside for the heavy lane (not counted in its rest)."""
    session: str
    aside: float = 0.0


class Gate:
    """PLACES places; a session holds at most one at a time, and waits for its own before taking a place."""

    def __init__(self, places: int = PLACES, clock: Callable[[], float] = time.monotonic,
                 connected: Callable[[], Iterable[str]] = tuple) -> None:
        """`connected`: the ids of the sessions connected to the server now (none: the default, for a gate of
        its own in a test; server_gate asks Streamlit's runtime)."""
        self.places = places
        self._free = threading.Semaphore(places)
        self._heavy = threading.Semaphore(HEAVY_LANES)
        self._mine = threading.local()          # .held: the place this thread holds, if any
        self._clock = clock
        self._lock = threading.Lock()
        self._sessions: dict[str, list] = {}   # session id -> [its lock, how many of its runs want a place]
        self._held: dict[int, float] = {}      # id of a place taken -> when it was taken
        self._spent: dict[str, tuple[float, float]] = {}   # session id -> (allowance left, when it was counted)
        self._downloads: set[str] = set()      # sessions with a download waiting or being built
        self._connected = connected

    @contextlib.contextmanager
    def place(self, session_id: str, wait: float | None = None) -> Iterator[None]:
        """A place for this session's work; re-entered freely by the thread that holds one (a fragment drawn
        inside its page's run). With `wait`, gives up (GateBusy) if the session's turn does not come in time."""
        held = getattr(self._mine, "held", None)
        if held is not None and held.session == session_id:
            yield
            return
        with self._own_turn(session_id, wait):
            self._rest(session_id)
            with self._free:
                mine, started = _Held(session_id), self._clock()
                self._take(mine)
                self._mine.held = mine
                try:
                    yield
                finally:
                    self._mine.held = held
                    self._give_back(mine)
                    self._spend(session_id, self._clock() - started - mine.aside + RUN_OVERHEAD)

    def _allowance(self, session_id: str, now: float) -> float:
        """What the session may spend now (negative: its debt); call with self._lock held."""
        left, at = self._spent.get(session_id, (ALLOWANCE, now))
        return min(ALLOWANCE, left + (now - at) * SHARE)

    def _rest(self, session_id: str) -> None:
        with self._lock:
            debt = -self._allowance(session_id, self._clock())
        if debt > 0 and self._alone(session_id):
            debt = 0.0              # still spent and owed: it rests once someone else comes
        if debt > 0:
            time.sleep(debt / SHARE)

    def _alone(self, session_id: str) -> bool:
        """No other session is connected, or waits for or holds a place (a download of a tab that has gone)."""
        if any(other != session_id for other in self._connected()):
            return False
        with self._lock:
            return all(other == session_id for other in self._sessions)

    def _spend(self, session_id: str, seconds: float) -> None:
        now = self._clock()
        with self._lock:
            left = max(self._allowance(session_id, now) - seconds, -MAX_REST * SHARE)
            if len(self._spent) > 1024:   # sessions whose allowance has refilled are as good as new
                self._spent = {s: (a, t) for s, (a, t) in self._spent.items() if a + (now - t) * SHARE < ALLOWANCE}
            self._spent[session_id] = (left, now)

    def _take(self, holder: object) -> None:
        with self._lock:
            self._held[id(holder)] = self._clock()

    def _give_back(self, holder: object) -> None:
        with self._lock:
            del self._held[id(holder)]

    @contextlib.contextmanager
    def heavy_lane(self, waiting: Callable[[], None]) -> Iterator[None]:
        """Inside a place (or outside any): give the place back, wait for the heavy lane (calling `waiting`
        every half second, which may raise to give up), work in it, then take a place again."""
        mine = getattr(self._mine, "held", None)
        aside_since = self._clock()
        if mine is not None:
            self._give_back(mine)
            self._free.release()
        try:
            while not self._heavy.acquire(timeout=0.5):
                waiting()
            try:
                yield
            finally:
                self._heavy.release()
        finally:
            if mine is not None:
                self._free.acquire()
                self._take(mine)
                mine.aside += self._clock() - aside_since

    @contextlib.contextmanager
    def _own_turn(self, session_id: str, wait: float | None = None) -> Iterator[None]:
        with self._lock:
            entry = self._sessions.setdefault(session_id, [threading.Lock(), 0])
            entry[1] += 1
        try:
            if not entry[0].acquire(timeout=-1 if wait is None else wait):
                raise GateBusy("this session's turn did not come in time")
            try:
                yield
            finally:
                entry[0].release()
        finally:
            with self._lock:
                entry[1] -= 1
                if not entry[1]:
                    del self._sessions[session_id]

    @contextlib.contextmanager
    def waiting_download(self, session_id: str) -> Iterator[None]:
        with self._lock:
            if session_id in self._downloads:
                raise GateBusy("this session has a download on the way already")
            self._downloads.add(session_id)
        try:
            yield
        finally:
            with self._lock:
                self._downloads.discard(session_id)

    def held(self) -> int:
        with self._lock:
            return len(self._held)

    def stuck_for(self) -> float:
        """Seconds since the newest of the runs holding every place took its place; 0 while a place is free."""
        with self._lock:
            if len(self._held) < self.places:
                return 0.0
            return self._clock() - max(self._held.values())


@st.cache_resource(show_spinner=False)
def server_gate() -> Gate:
    gate = Gate(connected=_connected_sessions)
    _fail_health_while_stuck(gate)
    return gate


def _connected_sessions() -> list[str]:
    """The sessions whose tabs are connected now. None under AppTest, which runs no server: its Runtime is a mock
    of the class, without a session manager."""
    manager = getattr(Runtime.instance(), "_session_mgr", None) if Runtime.exists() else None
    return [] if manager is None else [info.session.id for info in manager.list_active_sessions()]


def _session_id() -> str:
    ctx = get_script_run_ctx()
    return ctx.session_id if ctx is not None else "no session"


def script_place() -> contextlib.AbstractContextManager:
    """The place app.py runs a page in."""
    return server_gate().place(_session_id())


def fragment(**options) -> Callable[[Callable[..., T]], Callable[..., T]]:
    """st.fragment(**options) whose every run takes its session's place: a fragment's own reruns (on a timer, or
    sent by a client as often as it likes) run without app.py, so without its place. Drawn inside the page's
    run, it is already in that place."""
    def wrap(body: Callable[..., T]) -> Callable[..., T]:
        @functools.wraps(body)
        def in_place(*args, **kwargs) -> T:
            with script_place():
                return body(*args, **kwargs)
        return st.fragment(**options)(in_place)
    return wrap


def deferred(make: Callable[..., T], *args) -> Callable[[], T]:
    """A download button's data, built when the button is pressed, in this session's place at the gate, and
    built once: pressing again hands out the same bytes (a tab asking for its trace 200 times made everyone
    else 20x slower when downloads bypassed the gate, and 14x when each built its JSON anew: one json.dumps of
    a trace holds the GIL for tens of ms). Everything the data needs is bound now, in the script run: the
    download runs outside it. Streamlit drops the callable, and what it built, after the session's next run."""
    return functools.partial(_in_place, server_gate(), _session_id(), _Once(functools.partial(make, *args)))


class _Once:
    def __init__(self, make: Callable[[], T]) -> None:
        self._make, self._built = make, None

    def __call__(self) -> T:
        if self._built is None:
            self._built = (self._make(),)
            self._make = None
        return self._built[0]


DOWNLOAD_WAIT = 10.0   # seconds a download waits for its session's turn before it fails


def _in_place(gate: Gate, session_id: str, make: Callable[[], T]) -> T:
    """One download of a session at a time waits for its turn, and not for ever: Streamlit builds downloads in
    the event loop's small pool of worker threads, which a tab's pile of requests must not fill."""
    with gate.waiting_download(session_id):
        with gate.place(session_id, wait=DOWNLOAD_WAIT):
            return make()


_WATCHED: list[Gate] = []   # the gate the health check reads (the server's; a test's own while it runs)


def _fail_health_while_stuck(gate: Gate) -> None:
    """/_stcore/health answers 503 while every place has been held by the same runs for STUCK_AFTER seconds, so
    that a load balancer sends new learners to another replica instead of one that cannot answer them. The
    check stays cheap: it reads two numbers and runs no model."""
    _WATCHED[:] = [gate]
    original = Runtime.is_ready_for_browser_connection
    if getattr(original.fget, "watches_gate", False):
        return

    async def ready(runtime: Runtime) -> tuple[bool, str]:
        ok, message = await original.fget(runtime)
        stuck = _WATCHED[0].stuck_for()
        if ok and stuck > STUCK_AFTER:
            return False, f"every place has been busy with the same runs for {stuck:.0f} s"
        return ok, message

    watched = property(ready)
    watched.fget.watches_gate = True
    Runtime.is_ready_for_browser_connection = watched
