"""The one shared model (st.cache_resource) and the cached runs each page draws from (server.run_cache).

Cached runs are keyed by plain values (text, settings) and hold read-only numpy arrays, never tensors. They
are handed out without a copy: a run holds every activation, and copying it out of st.cache_data on every
rerun cost a page more than the run's own figures. Their caches are bounded in bytes, not entries: a run at
48 characters weighs 1.5 MB, and 256 of them per cache let one learner fill a server (issue 24).
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import os
from collections import Counter
from pathlib import Path
from typing import Callable, TypeVar

import streamlit as st
import torch

from analysis import table_store
from analysis.circuits import SplitUnavailable
from analysis.functional_split import PositionMeans, StreamMeans, stream_means
from analysis.run import Decoding, Run, make_batch_runs, make_run
from analysis.tasks import words
from transformer.decoding import drafted_greedy, writes_draft
from transformer.checkpoint import (
    Checkpoint, CheckpointError, bundled_checkpoint, load, load_snapshot, snapshot_index,
)
from transformer.data import TASKS, correct_tokens, target
from transformer.intervention import SIDES, intervention  # intervention: pages build one from plain values

from server.session import in_script_run

from server.run_cache import SHARED_RUN_BYTES, SHARED_TABLE_BYTES, RunCache

from .link_guard import stop_page
from .own_models import CHOICE, OWN_MODEL_KEY, SERVER_MODEL, held, is_own, shelf
from .text import escape_markdown

BUNDLED_CHECKPOINT = bundled_checkpoint("reverse")
CHECKPOINT_ENV = "ATTENTION_EXPLORER_CHECKPOINT"  # another checkpoint directory, if set: the only one shown
TASK_KEY = "task"                                 # the sidebar's task selector, bound to ?task=
T = TypeVar("T")
HeadKey = tuple[str, int, int]  # (kind, layer, head): a head as plain values, for cache keys

# One intra-op thread per computation: the models are tiny, and on a shared 2-core server a second thread
# competes with the other sessions' runs (docs/developers-guide.md, the server's pieces).
torch.set_num_threads(1)


def pointed_checkpoint() -> Path | None:
    """The one checkpoint the server was pointed at (CHECKPOINT_ENV), if any: then no task can be chosen."""
    directory = os.environ.get(CHECKPOINT_ENV)
    return Path(directory) if directory else None


def chosen_task() -> str:
    """The task picked in the sidebar (reverse unless the URL or the selector says otherwise)."""
    task = st.session_state.get(TASK_KEY) if in_script_run() else None
    return task if task in TASKS else "reverse"


def server_checkpoint_dir() -> Path:
    """The server model this session looks at: the bundled checkpoint of the chosen task, or the one the server
    was pointed at."""
    return pointed_checkpoint() or bundled_checkpoint(chosen_task())


def model_key() -> str:
    """What names the model this session is looking at: the id of its own model (which only its own state
    holds, never the URL), else the server checkpoint's folder."""
    own = st.session_state.get(OWN_MODEL_KEY) if in_script_run() else None
    return own or str(server_checkpoint_dir())


@st.cache_resource(max_entries=16, show_spinner="Loading the model…")
def _load(directory: str) -> Checkpoint:
    """A server checkpoint, loaded once per server, read-only (eval mode, no gradients), shared by every
    session. Only server folders come here: a session's own models stay on its own shelf."""
    return load(directory)


def checkpoint_for(key: str) -> Checkpoint:
    return held(key) if is_own(key) else _load(key)


def shared_checkpoint() -> Checkpoint:
    return checkpoint_for(model_key())


def checkpoint_or_stop() -> Checkpoint:
    try:
        return shared_checkpoint()
    except CheckpointError as err:
        st.error(escape_markdown(f"The model could not be loaded, so nothing can be shown. {err}"), icon="⚠️")
        stop_page()


SHARED_RUNS = RunCache(SHARED_RUN_BYTES)  # every session's runs of the server's models, one budget together
SHARED_TABLES = RunCache(SHARED_TABLE_BYTES)  # the lab's tables of the server's models, apart from the runs
TABLES_COMPUTED: Counter[str] = Counter()     # tables a server model computed for want of a fresh stored one


def model_run(max_entries: int, show_spinner: bool | str = False, shared: RunCache = SHARED_RUNS,
              stored: bool = False) -> Callable[[Callable[..., T]], Callable[..., T]]:
    """Cache run(key, *args), which reads its model with checkpoint_for(key); the caller passes the key
    (model_key() for the model this session looks at), so the cache's key is the call's own arguments.

    For a server checkpoint the result is cached for every session in `shared` (keyed by plain values). For
    this session's own model it is cached on the session's shelf, which Streamlit drops with the session, so
    nothing computed about an upload outlives it or reaches another session. Both are bounded in bytes; at most
    `max_entries` results of this function are kept in each. Results are shared, not copied: they must not be
    changed (a run's arrays are read-only). With `stored`, a server checkpoint's result is first looked up in
    the tables stored beside its weights (analysis.table_store), and computed only when none is there fresh."""

    def wrap(run: Callable[..., T]) -> Callable[..., T]:
        cached = _cached(run, max_entries, show_spinner, stored)

        @functools.wraps(run)
        def call(key: str, *args, **kwargs):
            return cached(_cache_of(key, shared), key, *args, **kwargs)

        def is_cached(key: str, *args, **kwargs) -> bool:
            """Whether the result is kept now (explorer.on_request skips its queue then)."""
            return cached.holds(_cache_of(key, shared), key, *args, **kwargs)

        def is_ready(key: str, *args, **kwargs) -> bool:
            """Kept now, or stored fresh beside a server checkpoint's weights: no work to queue for."""
            return is_cached(key, *args, **kwargs) or cached.stored(key, *args, **kwargs)

        call.is_cached, call.is_ready = is_cached, is_ready
        return call

    return wrap


def _cache_of(key: str, shared: RunCache) -> RunCache:
    """Where a model's results are kept: the session's shelf for its own model, else the server's `shared`."""
    return shelf().runs if is_own(key) else shared


def _cached(run: Callable[..., T], max_entries: int, show_spinner: bool | str,
            stored: bool = False) -> Callable[..., T]:
    """run(*args) through a RunCache passed first, keyed by the function and its arguments with defaults
    filled in (text_run(key, t) and text_run(key, t, None) are one entry), behind a spinner while it is computed.
    Arguments named with a leading underscore (a progress callback) are left out of the key, as
    st.cache_resource leaves them."""
    signature = inspect.signature(run)
    name = f"{run.__module__}.{run.__qualname__}"
    message = f"Running `{run.__name__}(...)`." if show_spinner is True else show_spinner or None

    def spinner() -> contextlib.AbstractContextManager:
        return st.spinner(message) if message and in_script_run() else contextlib.nullcontext()

    def bind(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return bound, tuple(value for arg, value in bound.arguments.items() if not arg.startswith("_"))

    def compute(bound, key: tuple) -> T:
        if stored and not is_own(key[0]):    # key[0]: the model's key, a server checkpoint's folder
            found, table = table_store.lookup(key[0], name, key[1:])
            if found:
                return table
            TABLES_COMPUTED[name] += 1
        return run(*bound.args, **bound.kwargs)

    def cached(cache: RunCache, *args, **kwargs) -> T:
        bound, key = bind(*args, **kwargs)
        return cache.get(name, key, lambda: compute(bound, key), max_entries, spinner)

    def in_store(*args, **kwargs) -> bool:
        key = bind(*args, **kwargs)[1]
        return stored and not is_own(key[0]) and table_store.lookup(key[0], name, key[1:])[0]

    cached.holds = lambda cache, *args, **kwargs: (name, bind(*args, **kwargs)[1]) in cache
    cached.stored = in_store
    return cached


def clear_runs() -> None:
    """Empty the shared runs and tables and keep the models (benchmarks.page_rerun's cold reruns)."""
    SHARED_RUNS.clear()
    SHARED_TABLES.clear()


@model_run(max_entries=256)
def text_run(key: str, text: str, temperature: float | None = None, top_k: int | None = None, seed: int = 0,
             forced: tuple[tuple[int, int], ...] = (), teacher: bool = False, ablated: tuple[HeadKey, ...] = (),
             positions: str = "normal", sides: tuple[str, ...] = SIDES, shuffle_seed: int = 0,
             max_len: int | None = None) -> Run:
    """The one run of (model, text, decoding, intervention) every page showing one text reads; arguments are
    plain values so the cache can key on them. A run holds every activation (0.65 MB at 24 characters, 1.5 MB
    at 48), so the shared cache is bounded in bytes (server.run_cache)."""
    ckpt = checkpoint_for(key)
    how = Decoding(temperature, top_k, seed, forced, teacher)
    return make_run(ckpt.model, ckpt.vocab, text, how, intervention(ablated, positions, sides, shuffle_seed), max_len,
                    ckpt.task)


@model_run(max_entries=256)
def batch_runs(key: str, texts: tuple[str, ...]) -> list[Run]:
    ckpt = checkpoint_for(key)
    return make_batch_runs(ckpt.model, ckpt.vocab, list(texts), ckpt.task)


@st.cache_resource(max_entries=32, show_spinner="Loading a snapshot…")
def _snapshot(directory: str, step: int):
    """A snapshot's model, loaded once per server and shared read-only like the final one."""
    return load_snapshot(directory, step)


@st.cache_data(max_entries=8, show_spinner=False)
def _snapshot_index(directory: str) -> list[dict]:
    return snapshot_index(directory)


def snapshots(key: str) -> list[dict]:
    """The snapshots of the model named by `key`: a server checkpoint's, none for an own model."""
    return [] if is_own(key) else _snapshot_index(key)


def snapshot_run(key: str, text: str, step: int) -> Run:
    """A server checkpoint's snapshot (key: its folder) on the text."""
    return _snapshot_run(SHARED_RUNS, key, text, step)


def _make_snapshot_run(directory: str, text: str, step: int) -> Run:
    final = _load(directory)
    return make_run(_snapshot(directory, step), final.vocab, text, task=final.task)


_snapshot_run = _cached(_make_snapshot_run, max_entries=64, show_spinner=False)


def snapshot_writes_answer(key: str, text: str, step: int) -> bool:
    """Whether a server checkpoint's snapshot writes the task's answer for the text: one pass checking the answer
    as a draft (transformer.decoding.writes_draft), not a decoding. The Training page asks it of nine snapshots
    for every new word."""
    return _snapshot_writes_answer(key, text, step)


@st.cache_data(max_entries=512, show_spinner=False)
def _snapshot_writes_answer(directory: str, text: str, step: int) -> bool:
    final = _load(directory)
    model = _snapshot(directory, step)
    src = final.vocab.encode(text, model.config.max_len)
    answer = correct_tokens(final.vocab, text, model.config.max_len, final.task)
    return final.vocab.decode(answer[:-1]) == target(text, final.task, final.vocab.letters) and writes_draft(model, src, answer)


def snapshot_output(key: str, text: str, step: int) -> str:
    """What a server checkpoint's snapshot writes for the text, without a trace (the lesson asks nine of them
    per word)."""
    return _snapshot_output(key, text, step)


@st.cache_data(max_entries=512, show_spinner=False)
def _snapshot_output(directory: str, text: str, step: int) -> str:
    """Greedy decoding checked against the task's answer as a draft, as make_run decides its tokens: a snapshot
    that writes the answer costs one pass, not a step per character (27 → 6 ms at 48 characters)."""
    final = _load(directory)
    model = _snapshot(directory, step)
    src = final.vocab.encode(text, model.config.max_len)
    decided, _ = drafted_greedy(model, src, correct_tokens(final.vocab, text, model.config.max_len, final.task))
    return final.vocab.decode(list(decided.tokens))


def reversal_only(what: str) -> None:
    """On a page built around the reversal model: if the chosen model does another task, say so, offer to switch
    back to reversing, and stop the page."""
    task = checkpoint_or_stop().task
    if task == "reverse":
        return
    st.info(escape_markdown(f"{what} is built on the reversal model: its questions and evidence are about finding "
                            f"the mirrored position. The model chosen now was trained to {words(task).verb} "
                            f"({task})."),
            icon="🔁")
    st.button("Switch the task to Reverse", key="back_to_reverse", type="primary",
              on_click=lambda: st.session_state.update({TASK_KEY: "reverse", CHOICE: SERVER_MODEL}))
    stop_page()


def task_run(task: str, text: str) -> Run:
    """The bundled model of `task` on the text, greedy: Compare tasks sets the three side by side. The chosen
    task's run is the one every other page reads (one cache)."""
    return text_run(str(bundled_checkpoint(task)), text)


def beside_the_bundled(key: str) -> bool:
    """Whether the model `key` names is none of the three bundled ones (a learner's own, a trained spec's, or a
    checkpoint the server was pointed at): Compare tasks then sets it beside them."""
    return key not in {str(bundled_checkpoint(task)) for task in TASKS}


def task_checkpoint(task: str) -> Checkpoint:
    return _load(str(bundled_checkpoint(task)))


@st.cache_data(max_entries=48, show_spinner="Averaging random texts of this length…")   # 0.35 MB each
def _stream_means(directory: str, task: str, length: int, steps: int) -> StreamMeans:
    ckpt = _load(directory)
    return stream_means(ckpt.model, ckpt.vocab, task, length, steps)


OWN_HAS_NO_ROLES = ("For a model of your own the split by role is not computed: it averages the streams of random "
                    "texts of the task a model was trained on, which the server knows for its own models only.")


def position_means_for(key: str, run: Run, kind: str = "cross", layer: int = 0) -> PositionMeans | str:
    """The position-like parts of one sublayer's streams for texts of the run's length (the split by role of
    Compare tasks and Inside one head), or why there are none. One traced pass over the random texts gives every
    sublayer's; they depend on the model, the length and the steps alone, so every learner shares them
    (the last 48 asked for). A learner's own model has none (OWN_HAS_NO_ROLES)."""
    if is_own(key):
        return OWN_HAS_NO_ROLES
    try:
        return _stream_means(key, _load(key).task, len(run.text), len(run.fed_ids)).of(kind, layer)
    except SplitUnavailable as err:
        return str(err)


def task_position_means(task: str, run: Run) -> PositionMeans | str:
    """The bundled `task` model's, for its layer-0 cross heads (Compare tasks)."""
    return position_means_for(str(bundled_checkpoint(task)), run)
