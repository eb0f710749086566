"""Live training runs on a shared server: one per session, a cap on how many at once, none outliving
the session that started it. The trained model is this session's alone: it lives in a private folder
whose path only this session's state holds."""

from __future__ import annotations

import shutil
import tempfile
import threading
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import streamlit as st
from streamlit.runtime import Runtime
from streamlit.runtime.scriptrunner import get_script_run_ctx

from transformer.live import LiveSettings, LiveTraining

MAX_CONCURRENT_RUNS = 2   # the server has two cores; a third run would slow every page for everyone
RUN_KEY = "_live_run"     # this session's LiveTraining, in st.session_state


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


def _session_token() -> str:
    """A key for this session's run in the registry, unique per session state (AppTest reuses one session id)."""
    return st.session_state.setdefault("_session_token", uuid.uuid4().hex)


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
    return st.session_state.get(RUN_KEY)


def start(settings: LiveSettings) -> LiveTraining:
    """Start a run for this session in a background thread, or say why not."""
    session, token = _session_id(), _session_token()
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
        run = LiveTraining(settings, Path(tempfile.mkdtemp(prefix="attention-explorer-run-")))
        registry.running[token] = run
    st.session_state[RUN_KEY] = run
    threading.Thread(target=_train, args=(run, session, token, registry), daemon=True, name=f"live-{token}").start()
    return run


def _train(run: LiveTraining, session: str, token: str, registry: _Registry) -> None:
    run.run(keep_going=lambda: _session_alive(session))
    with registry.lock:
        if registry.running.get(token) is run:
            del registry.running[token]
    if not _session_alive(session):
        shutil.rmtree(run.out, ignore_errors=True)  # nobody is left to use it


def stop() -> None:
    run = current()
    if run is not None:
        run.stop.set()
