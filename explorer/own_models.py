"""This session's own models, trained live or uploaded, and the choice of which model every page shows.

The models, and the runs cached about them, live on a shelf in a session-scoped st.cache_resource: Streamlit
releases it when the session's browser tab disconnects, so an upload's memory goes with its session, and no other
session can reach it.
Session state holds only strings (labels and model ids). What all of a browser's tabs keep, and what everyone
keeps together, is bounded by explorer.own_ledger.
"""

from __future__ import annotations

import uuid
import weakref
from dataclasses import dataclass, field

import streamlit as st

from transformer.checkpoint import Checkpoint, CheckpointError
from explorer.live_training import LiveTraining

from server.gate import learner
from server.memory import return_freed_memory
from server.run_cache import OWN_RUN_BYTES, RunCache

from .own_ledger import settle, touch

OWN_MODELS = "_own_models"       # label -> model id, oldest first
OWN_MODEL_KEY = "own_model"      # the id of the own model every page shows, when one is chosen
CHOICE = "model_choice"          # the sidebar selectbox
LOST_KEY = "_own_models_lost"    # (label, why) of models gone since this session last drew the sidebar
GONE_KEY = "_own_model_gone"     # the URL says an own model was shown, and this session never held one
OWN_IN_URL = "model"             # ?model=own while an own model is shown (it is never in the URL itself)
SERVER_MODEL = "The bundled model of the task"
RELEASED = "your connection to the server dropped, which released it"
OWN_PREFIX = "own:"              # own model ids start with it; a server checkpoint is named by its folder


@dataclass(eq=False)
class Shelf:
    who: str = "no one"                                           # the browser it belongs to (gate.learner)
    models: dict[str, Checkpoint] = field(default_factory=dict)   # model id -> checkpoint
    used: dict[str, float] = field(default_factory=dict)          # model id -> when a page last read it
    dropped: dict[str, str] = field(default_factory=dict)         # model id -> why the ledger dropped it
    live_run: LiveTraining | None = None                          # this session's latest live run
    runs: RunCache = field(default_factory=lambda: RunCache(OWN_RUN_BYTES))  # its models' runs (model_run)


def _release(shelf: Shelf) -> None:
    """Called by Streamlit when the session disconnects: stop its live run, let go of its models and their runs,
    and give the memory they held back to the operating system."""
    if shelf.live_run is not None:
        shelf.live_run.stop.set()
    shelf.live_run = None
    shelf.models.clear()
    shelf.runs.clear()
    return_freed_memory()


_shelves: weakref.WeakValueDictionary[str, Shelf] = weakref.WeakValueDictionary()  # token -> shelf, while held


@st.cache_resource(scope="session", on_release=_release, show_spinner=False)
def _shelf(token: str) -> Shelf:
    who = learner()
    shelf = _shelves[token] = Shelf(who)
    shelf.runs.on_store = lambda: settle(list(_shelves.values()), who)
    return shelf


def session_token() -> str:
    """A key unique to this session's state (AppTest runs every test under one session id)."""
    return st.session_state.setdefault("_session_token", uuid.uuid4().hex)


def shelf() -> Shelf:
    return _shelf(session_token())


def shelf_of(token: str) -> Shelf | None:
    """A session's shelf from outside its script runs (tests, background threads), while Streamlit holds it.
    Weakly referenced: it never keeps a released shelf alive."""
    return _shelves.get(token)


def is_own(key: str) -> bool:
    return key.startswith(OWN_PREFIX)


class OwnModelReleasedError(CheckpointError):
    pass


def held(model_id: str) -> Checkpoint:
    """This session's own model by its id, if this session's shelf still holds it."""
    mine = shelf()
    try:
        found = mine.models[model_id]
        touch(mine, model_id)
        return found
    except KeyError:
        why = mine.dropped.get(model_id, RELEASED)        # the ledger's reason, for a model it dropped for room
        raise OwnModelReleasedError(
            f"Your own model is gone: {why}. Reload the page to go back to the bundled model, then train or upload "
            "yours again.") from None


def own_models() -> dict[str, str]:
    return st.session_state.setdefault(OWN_MODELS, {})


def add(label: str, loaded: Checkpoint) -> None:
    """Keep a model for this session and look at it on every page from now on."""
    mine = shelf()
    models, kept = own_models(), mine.models
    if label in models:
        kept.pop(models.pop(label), None)
    model_id = f"{OWN_PREFIX}{uuid.uuid4().hex}"
    kept[model_id] = loaded
    touch(mine, model_id)
    models[label] = model_id
    settle(list(_shelves.values()), mine.who)   # the oldest of this browser's, or the server's, may go
    st.session_state[CHOICE] = label
    st.session_state[OWN_MODEL_KEY] = model_id


def forget_released() -> None:
    """Before the sidebar draws its selectbox: forget models the shelf no longer holds (released when this
    session's connection dropped, or dropped by explorer.own_ledger), and name them in LOST_KEY with the reason
    so the sidebar can say so."""
    models, mine = own_models(), shelf()
    lost = [(label, mine.dropped.pop(model_id, RELEASED)) for label, model_id in models.items()
            if model_id not in mine.models]
    for label, _ in lost:
        del models[label]
    if lost:
        st.session_state[LOST_KEY] = lost
    elif not models and st.query_params.get(OWN_IN_URL) == "own":
        # A new session on a page that showed an own model: the server process that held it stopped and the
        # browser reconnected to another (scripts/serve.sh), or the link was opened in another browser.
        st.session_state[GONE_KEY] = True
    if st.session_state.get(CHOICE) not in models:
        st.session_state[CHOICE] = SERVER_MODEL


def back_to_bundled() -> None:
    """When the learner picks another task: show that task's bundled model, not an own model of another task."""
    st.session_state[CHOICE] = SERVER_MODEL


def apply_choice() -> None:
    """After the sidebar's selectbox: point this session's pages at the chosen model, and say in the URL whether
    it is an own model, so that a session that finds the URL but not the model can tell the learner."""
    model_id = own_models().get(st.session_state.get(CHOICE))
    st.session_state[OWN_MODEL_KEY] = model_id
    if model_id:
        if st.query_params.get(OWN_IN_URL) != "own":   # written once: each write sends the whole query string
            st.query_params[OWN_IN_URL] = "own"
    elif OWN_IN_URL in st.query_params:
        del st.query_params[OWN_IN_URL]
