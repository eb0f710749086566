"""The one shared model (st.cache_resource) and the cached runs each page draws from (st.cache_data).

Cached runs are keyed by plain values (text, settings) and hold numpy arrays, never tensors.
"""

from __future__ import annotations

import functools
import os
import threading
from pathlib import Path
from typing import Callable, TypeVar

import streamlit as st
import torch
from streamlit.runtime.scriptrunner import get_script_run_ctx

from transformer import lesson
from transformer.checkpoint import Checkpoint, CheckpointError, load, load_snapshot, snapshot_index

from .text import escape_markdown

ROOT = Path(__file__).resolve().parent.parent
BUNDLED_CHECKPOINT = ROOT / "checkpoints" / "word_reversal"
CHECKPOINT_ENV = "ATTENTION_EXPLORER_CHECKPOINT"  # another checkpoint directory, if set
OWN_MODEL_KEY = "own_model_dir"  # a folder of this session's own (trained or uploaded) model, when it chose one
T = TypeVar("T")

# One intra-op thread per computation. The models are tiny (d_model 64): a second thread saves ~20 % of a
# run's wall time alone but doubles its CPU time, and on a 2-core server it competes with the other sessions
# (and in a class, with everything else). Measured with benchmarks.browser_ab and benchmarks.classroom.
torch.set_num_threads(1)


def server_checkpoint_dir() -> Path:
    """The model every session starts with: the bundled one, or the one the server was pointed at."""
    return Path(os.environ.get(CHECKPOINT_ENV) or BUNDLED_CHECKPOINT)


def checkpoint_dir() -> Path:
    """The model this session is looking at. A session's own model is known only to its own state, so
    no other session can reach it (a folder path never comes from the URL)."""
    own = st.session_state.get(OWN_MODEL_KEY) if get_script_run_ctx() else None
    return Path(own) if own else server_checkpoint_dir()


MAX_CONCURRENT_SCRIPTS = 2


@st.cache_resource
def script_gate() -> threading.BoundedSemaphore:
    """At most two script runs execute at once on the server; the others wait their turn.

    Streamlit gives every session's run its own thread. Thirty of them at once fought over the GIL and
    Streamlit's locks: one run cost 0.28 s of CPU under that load against 0.06 s alone (classroom benchmark),
    so letting runs through two at a time finishes more of them sooner. Two, not one, so that a long run
    (a lab table built for the first time) does not hold up everyone."""
    return threading.BoundedSemaphore(MAX_CONCURRENT_SCRIPTS)


@st.cache_resource(max_entries=16, show_spinner="Loading the model…")
def _load(directory: str) -> Checkpoint:
    """Loaded once per server, read-only (eval mode, no gradients), shared by every session."""
    return load(directory)


def shared_checkpoint() -> Checkpoint:
    return _load(str(checkpoint_dir()))


def checkpoint_or_stop() -> Checkpoint:
    try:
        return shared_checkpoint()
    except CheckpointError as err:
        st.error(escape_markdown(f"The model could not be loaded, so nothing can be shown. {err}"), icon="⚠️")
        st.stop()


def for_current_checkpoint(cached: Callable[..., T]) -> Callable[..., T]:
    """Call a cached run with the current checkpoint directory as its first argument, so the cache
    key names the model as well as the text."""

    @functools.wraps(cached)
    def call(*args):
        return cached(str(checkpoint_dir()), *args)

    return call


@for_current_checkpoint
@st.cache_data(max_entries=512, show_spinner=False)
def decoding_run(directory: str, text: str, temperature: float | None, top_k: int | None,
                 seed: int) -> lesson.DecodingRun:
    ckpt = _load(directory)
    return lesson.run_decoding(ckpt.model, ckpt.vocab, text, temperature, top_k, seed)


@for_current_checkpoint
@st.cache_data(max_entries=512, show_spinner=False)
def attention_run(directory: str, text: str) -> lesson.AttentionRun:
    ckpt = _load(directory)
    return lesson.run_attention(ckpt.model, ckpt.vocab, text)


@for_current_checkpoint
@st.cache_data(max_entries=256, show_spinner=False)
def batch_run(directory: str, texts: tuple[str, ...]) -> lesson.BatchRun:
    ckpt = _load(directory)
    return lesson.run_batch(ckpt.model, ckpt.vocab, list(texts))


@for_current_checkpoint
@st.cache_data(max_entries=512, show_spinner=False)
def input_vectors(directory: str, text: str) -> lesson.InputVectors:
    ckpt = _load(directory)
    return lesson.run_input_vectors(ckpt.model, ckpt.vocab, text)


@st.cache_resource(max_entries=32, show_spinner="Loading a snapshot…")
def _snapshot(directory: str, step: int):
    """A snapshot's model, loaded once per server and shared read-only like the final one."""
    return load_snapshot(directory, step)


@for_current_checkpoint
@st.cache_data(max_entries=8, show_spinner=False)
def snapshots(directory: str) -> list[dict]:
    return snapshot_index(directory)


@for_current_checkpoint
@st.cache_data(max_entries=256, show_spinner=False)
def snapshot_attention_run(directory: str, text: str, step: int) -> lesson.AttentionRun:
    return lesson.run_attention(_snapshot(directory, step), _load(directory).vocab, text)
