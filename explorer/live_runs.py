"""Live training runs on a shared server: one per session, a cap on how many at once, none outliving
the session that started it. The run and the model it trains are this session's alone: they sit on the
session's shelf (explorer.own_models), in memory, and go when the session disconnects."""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass, field

import streamlit as st
from streamlit.runtime import Runtime
from streamlit.runtime.scriptrunner import get_script_run_ctx

from transformer.checkpoint import to_zip
from explorer.live_training import LiveSettings, LiveTraining

from .own_models import add, session_token, shelf

MAX_CONCURRENT_RUNS = 2   # the server has two cores; a third run would slow every page for everyone


class TrainingCapReached(RuntimeError):
    pass


class AlreadyTraining(RuntimeError):
    pass


@dataclass
class _Registry:
    lock: threading.Lock = field(default_factory=threading.Lock)
    running: dict[str, LiveTraining] = field(default_factory=dict)   # session id -> its unfinished run


@st.cache_resource
def _registry() -> _Registry:
    return _Registry()


def _session_id() -> str:
    """The server's id of this browser session (what Runtime knows as alive or gone)."""
    ctx = get_script_run_ctx()
    return ctx.session_id if ctx else "no-session"


def _session_alive(session_id: str) -> bool:
    """False once the browser tab that started a run has gone, so its run stops too."""
    if not Runtime.exists():
        return True  # AppTest: no server, the test itself is the session
    return Runtime.instance().is_active_session(session_id)


def running_count() -> int:
    registry = _registry()
    with registry.lock:
        return sum(not run.progress.done for run in registry.running.values())


def current() -> LiveTraining | None:
    return shelf().live_run


def start(settings: LiveSettings) -> LiveTraining:
    """Start a run for this session in a background thread, or say why not."""
    session, token = _session_id(), session_token()
    registry = _registry()
    with registry.lock:
        mine = registry.running.get(token)
        if mine is not None and not mine.progress.done:
            raise AlreadyTraining("Your model is still training: stop it or wait for it to finish first.")
        busy = sum(not run.progress.done for run in registry.running.values())
        if busy >= MAX_CONCURRENT_RUNS:
            raise TrainingCapReached(
                f"{busy} models are training on this server right now, the most it allows at once. "
                "Try again in a minute.")
        run = LiveTraining(settings)
        registry.running[token] = run
    shelf().live_run = run
    threading.Thread(target=_train, args=(run, session, token, registry), daemon=True, name=f"live-{token}").start()
    return run


def _train(run: LiveTraining, session: str, token: str, registry: _Registry) -> None:
    run.run(keep_going=lambda: _session_alive(session))
    with registry.lock:
        if registry.running.get(token) is run:
            del registry.running[token]


def keep_result(label: str) -> None:
    """on_click of "Look at it on every page": the finished run's model becomes this session's own model."""
    run = current()
    if run is not None and run.result is not None:
        add(label, run.result)


def result_zip(run: weakref.ref) -> bytes:
    """The finished run's model as a zip, built when the learner clicks download. The download button keeps
    this callable as long as Streamlit keeps the session's files, so it holds the run only weakly."""
    alive = run()
    return to_zip(alive.result) if alive is not None and alive.result is not None else b""


def stop() -> None:
    run = current()
    if run is not None:
        run.stop.set()
