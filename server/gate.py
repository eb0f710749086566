"""Who may compute on the server, and when: at most two places at once, one per learner, for script runs and
for downloads alike; one heavy lane beside them (server.heavy_lane) for work that takes seconds or tens of MB;
and a readiness route that fails while every place has been held too long.

A learner is a browser, all its tabs together, or, for a client that sends no browser cookie, its address
(server.identity): counted per session, one person with ten tabs was ten learners (issue 63). Below, "session"
is a learner in that sense.

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

Heavy work (the lab's tables of a learner's own model, two of which held both places for minutes; integrated
gradients at every step; occlusion with every letter) leaves its place while it waits in and works in the heavy
lane, so at most one such job runs at a time, and never in a place the other learners need.
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

from server.identity import browser_of_session

from server.heavy_lane import HeavyLane
from server.memory import return_freed_memory

PLACES = 2
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
    """A place taken: whose it is (a browser, server.identity), its turn (the lock its tabs take in turn), and how
    long it was set aside for the heavy lane (not counted in its rest)."""
    who: str
    turn: threading.Lock
    aside: float = 0.0


class Gate:
    """PLACES places; a learner (a browser, all its tabs) holds at most one at a time, and waits for its own turn
    before taking a place."""

    def __init__(self, places: int = PLACES, clock: Callable[[], float] = time.monotonic,
                 connected: Callable[[], Iterable[str]] = tuple) -> None:
        """`connected`: who is connected to the server now, a key per tab (none: the default, for a gate of
        its own in a test; server_gate asks Streamlit's runtime)."""
        self.places = places
        self._free = threading.Semaphore(places)
        self.lane = HeavyLane()
        self._mine = threading.local()          # .held: the place this thread holds, if any
        self._clock = clock
        self._lock = threading.Lock()
        self._learners: dict[str, list] = {}   # who -> [its lock, how many of its runs want a place]
        self._held: dict[int, float] = {}      # id of a place taken -> when it was taken
        self._spent: dict[str, tuple[float, float]] = {}   # who -> (allowance left, when it was counted)
        self._downloads: set[str] = set()      # learners with a download waiting or being built
        self._connected = connected

    @contextlib.contextmanager
    def place(self, who: str, wait: float | None = None) -> Iterator[None]:
        """A place for this learner's work; re-entered freely by the thread that holds one (a fragment drawn
        inside its page's run). With `wait`, gives up (GateBusy) if the learner's turn does not come in time."""
        held = getattr(self._mine, "held", None)
        if held is not None and held.who == who:
            yield
            return
        with self._own_turn(who, wait) as turn:
            self._rest(who)
            with self._free:
                mine, started = _Held(who, turn), self._clock()
                self._take(mine)
                self._mine.held = mine
                try:
                    yield
                finally:
                    self._mine.held = held
                    self._give_back(mine)
                    self._spend(who, self._clock() - started - mine.aside + RUN_OVERHEAD)

    def _allowance(self, who: str, now: float) -> float:
        """What the learner may spend now (negative: its debt); call with self._lock held."""
        left, at = self._spent.get(who, (ALLOWANCE, now))
        return min(ALLOWANCE, left + (now - at) * SHARE)

    def _rest(self, who: str) -> None:
        with self._lock:
            debt = -self._allowance(who, self._clock())
        if debt > 0 and self._alone(who):
            debt = 0.0              # still spent and owed: it rests once someone else comes
        if debt > 0:
            time.sleep(debt / SHARE)

    def _alone(self, who: str) -> bool:
        """No other learner is connected, or waits for or holds a place (a download of a tab that has gone)."""
        if any(other != who for other in self._connected()):
            return False
        with self._lock:
            return all(other == who for other in self._learners)

    def _spend(self, who: str, seconds: float) -> None:
        now = self._clock()
        with self._lock:
            left = max(self._allowance(who, now) - seconds, -MAX_REST * SHARE)
            if len(self._spent) > 1024:   # learners whose allowance has refilled are as good as new
                self._spent = {s: (a, t) for s, (a, t) in self._spent.items() if a + (now - t) * SHARE < ALLOWANCE}
            self._spent[who] = (left, now)

    def _take(self, holder: object) -> None:
        with self._lock:
            self._held[id(holder)] = self._clock()

    def _give_back(self, holder: object) -> None:
        with self._lock:
            del self._held[id(holder)]

    @contextlib.contextmanager
    def heavy_lane(self, who: str, what: str, waiting: Callable[[int], None]) -> Iterator[None]:
        """Inside a place (or outside any): give the place and the learner's turn back, take a ticket in the heavy
        lane (AlreadyInLine if this browser holds one), wait for its turn (calling waiting(jobs ahead) every half second, which may
        raise to give up), work, then take a place again. The memory the work freed is given back."""
        ticket = self.lane.enter(who, what)
        mine = getattr(self._mine, "held", None)
        aside_since = self._clock()
        if mine is not None:        # the learner's other tabs may run meanwhile (their own heavy job is refused)
            self._give_back(mine)
            self._free.release()
            mine.turn.release()
        try:
            self.lane.wait(ticket, waiting)
            yield
        finally:
            self.lane.leave(ticket)
            return_freed_memory()
            if mine is not None:
                mine.turn.acquire()
                self._free.acquire()
                self._take(mine)
                mine.aside += self._clock() - aside_since

    @contextlib.contextmanager
    def _own_turn(self, who: str, wait: float | None = None) -> Iterator[threading.Lock]:
        with self._lock:
            entry = self._learners.setdefault(who, [threading.Lock(), 0])
            entry[1] += 1
        try:
            if not entry[0].acquire(timeout=-1 if wait is None else wait):
                raise GateBusy("this learner's turn did not come in time")
            try:
                yield entry[0]
            finally:
                entry[0].release()
        finally:
            with self._lock:
                entry[1] -= 1
                if not entry[1]:
                    del self._learners[who]

    @contextlib.contextmanager
    def waiting_download(self, who: str) -> Iterator[None]:
        with self._lock:
            if who in self._downloads:
                raise GateBusy("this learner has a download on the way already")
            self._downloads.add(who)
        try:
            yield
        finally:
            with self._lock:
                self._downloads.discard(who)

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
    watch(gate)
    return gate


def _connected_sessions() -> list[str]:
    """The browsers whose tabs are connected now. None under AppTest, which runs no server: its Runtime is a mock
    of the class, without a session manager."""
    manager = getattr(Runtime.instance(), "_session_mgr", None) if Runtime.exists() else None
    return [] if manager is None else [browser_of_session(info.session.id).key
                                       for info in manager.list_active_sessions()]


def learner() -> str:
    """Who the gate counts: the browser of the session whose script runs (all its tabs are one learner), or its
    address when it sent no cookie (server.identity)."""
    ctx = get_script_run_ctx()
    return browser_of_session(ctx.session_id if ctx is not None else "no session").key


def script_place() -> contextlib.AbstractContextManager:
    """The place app.py runs a page in."""
    return server_gate().place(learner())


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
    return functools.partial(_in_place, server_gate(), learner(), _Once(functools.partial(make, *args)))


class _Once:
    def __init__(self, make: Callable[[], T]) -> None:
        self._make, self._built = make, None

    def __call__(self) -> T:
        if self._built is None:
            self._built = (self._make(),)
            self._make = None
        return self._built[0]


DOWNLOAD_WAIT = 10.0   # seconds a download waits for its session's turn before it fails


def _in_place(gate: Gate, who: str, make: Callable[[], T]) -> T:
    """One download of a session at a time waits for its turn, and not for ever: Streamlit builds downloads in
    the event loop's small pool of worker threads, which a tab's pile of requests must not fill."""
    with gate.waiting_download(who):
        with gate.place(who, wait=DOWNLOAD_WAIT):
            return make()


_WATCHED: list[Gate] = []   # the gate the readiness route reads (the server's; a test's own while it runs)


def watch(gate: Gate) -> None:
    _WATCHED[:] = [gate]


def readiness(streamlit_ready: tuple[bool, str]) -> tuple[bool, str]:
    """Ready unless Streamlit is not, or every place has been held by the same runs for STUCK_AFTER seconds, so
    that a load balancer sends new learners to another replica instead of one that cannot answer them. Cheap: it
    reads two numbers and runs no model."""
    ok, message = streamlit_ready
    stuck = _WATCHED[0].stuck_for() if _WATCHED else 0.0
    if ok and stuck > STUCK_AFTER:
        return False, f"every place has been busy with the same runs for {stuck:.0f} s"
    return ok, message


async def ready_route(_request):
    """GET /api/ready, the route HAProxy checks (scripts/serve.sh): 200 "ok", or 503 and the reason."""
    from starlette.responses import PlainTextResponse
    streamlit_ready = (await Runtime.instance().is_ready_for_browser_connection if Runtime.exists()
                       else (False, "no runtime"))
    ok, message = readiness(streamlit_ready)
    return PlainTextResponse(message, status_code=200 if ok else 503)
