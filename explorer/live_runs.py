"""Live training runs on a shared server: in the server's heavy lane (server.heavy_lane: one job at a time,
first come first served, one ticket per learner, all their tabs), none outliving the session that started it.
The run and the model it trains are this session's alone: they sit on the session's shelf (explorer.own_models),
in memory, and go when the session disconnects."""

from __future__ import annotations

import threading
import weakref

import streamlit as st

from analysis.page_models.own_task import sample_texts
from transformer.checkpoint import Checkpoint, to_zip
from transformer.task_rules import TaskSpec
from transformer.vocab import InputError
from explorer.live_training import LiveSettings, LiveTraining

from server.gate import learner, server_gate
from server.heavy_lane import AlreadyInLine, HeavyLane, Ticket
from server.memory import return_freed_memory
from server.session import session_alive, session_id
from . import task_models
from .own_models import add, session_token, shelf
from .state import DEFAULT_TEXT, TEXT_KEY

TRAINING = "training a model"   # what the lane says this job is


class AlreadyTraining(RuntimeError):
    pass


def current() -> LiveTraining | None:
    return shelf().live_run


def start(settings: LiveSettings) -> LiveTraining:
    """Put a run for this session in the heavy lane, trained in a background thread once its turn comes, or say
    why not (this learner has a job in the lane already, in this tab or another)."""
    run = LiveTraining(settings)          # checks the settings first
    lane = server_gate().lane
    try:
        ticket = lane.enter(learner(), TRAINING)
    except AlreadyInLine as other:
        raise AlreadyTraining(f"Your browser has a job in the server's line already ({other}), in this tab or "
                              "another: one at a time for each learner. Stop it or wait for it to end first.") from None
    shelf().live_run = run
    threading.Thread(target=_train, args=(run, session_id(), lane, ticket), daemon=True,
                     name=f"live-{session_token()}").start()
    return run


class _Gone(Exception):
    """The run's tab closed, or Stop was pressed, while it waited for its turn."""


def _train(run: LiveTraining, session: str, lane: HeavyLane, ticket: Ticket) -> None:
    alive = lambda: not run.stop.is_set() and session_alive(session)   # noqa: E731

    def waiting(ahead: int) -> None:
        run.waiting(ahead)
        if not alive():
            raise _Gone

    try:
        lane.wait(ticket, waiting)
        run.run(keep_going=alive)
        if run.result is not None and run.progress.reached and run.settings == LiveSettings.for_task(
                run.settings.spec, run.settings.seconds):
            task_models.keep(run.settings.spec, run.result)   # the quick recipe's, for the next learner
    except _Gone:
        run.stopped_in_line()
    finally:
        lane.leave(ticket)
        return_freed_memory()


def keep_result(label: str) -> None:
    """on_click of "Look at it on every page": the finished run's model becomes this session's own model."""
    run = current()
    if run is not None and run.result is not None:
        add(label, run.result)
        fit_text_to(run.result, run.settings.spec)


def fit_text_to(model: Checkpoint, spec: TaskSpec) -> None:
    """If the learner's text is not one the new model can read (another alphabet, too long), put one of its own
    task's texts in its place and say so, rather than open every page on an error."""
    text = str(st.session_state.get(TEXT_KEY, DEFAULT_TEXT))
    try:
        model.vocab.check(text, model.model.config.max_len)
    except InputError:
        st.session_state[TEXT_KEY] = sample_texts(spec, 2)[1]
        st.toast(f"Your text was not one this model reads; it now reads {st.session_state[TEXT_KEY]}.", icon="ℹ️")


def result_zip(run: weakref.ref) -> bytes:
    """The finished run's model as a zip, built when the learner clicks download. The download button keeps
    this callable as long as Streamlit keeps the session's files, so it holds the run only weakly."""
    alive = run()
    return to_zip(alive.result) if alive is not None and alive.result is not None else b""


def stop() -> None:
    run = current()
    if run is not None:
        run.stop.set()
