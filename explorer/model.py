"""The one shared model (st.cache_resource) and the cached runs each page draws from (st.cache_data).

Cached runs are keyed by plain values (text, settings) and hold numpy arrays, never tensors.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from transformer import lesson
from transformer.checkpoint import Checkpoint, CheckpointError, load

from .exports import trace_json

ROOT = Path(__file__).resolve().parent.parent
CHECKPOINT_DIR = ROOT / "checkpoints" / "word_reversal"


@st.cache_resource(show_spinner="Loading the model…")
def shared_checkpoint() -> Checkpoint:
    """Loaded once per server, read-only (eval mode, no gradients), shared by every session."""
    return load(CHECKPOINT_DIR)


def checkpoint_or_stop() -> Checkpoint:
    try:
        return shared_checkpoint()
    except CheckpointError as err:
        st.error(f"The model could not be loaded, so nothing can be shown. {err}")
        st.stop()


@st.cache_data(max_entries=512, show_spinner=False)
def decoding_run(text: str, temperature: float | None, top_k: int | None, seed: int) -> lesson.DecodingRun:
    ckpt = shared_checkpoint()
    return lesson.run_decoding(ckpt.model, ckpt.vocab, text, temperature, top_k, seed)


@st.cache_data(max_entries=512, show_spinner=False)
def attention_run(text: str) -> lesson.AttentionRun:
    ckpt = shared_checkpoint()
    return lesson.run_attention(ckpt.model, ckpt.vocab, text)


@st.cache_data(max_entries=128, show_spinner=False)
def trace_download(text: str) -> str:
    """The whole trace of `text` as JSON, built once per text rather than on every rerun."""
    return trace_json(text, attention_run(text))


@st.cache_data(max_entries=256, show_spinner=False)
def batch_run(texts: tuple[str, ...]) -> lesson.BatchRun:
    ckpt = shared_checkpoint()
    return lesson.run_batch(ckpt.model, ckpt.vocab, list(texts))


@st.cache_data(max_entries=512, show_spinner=False)
def input_vectors(text: str) -> lesson.InputVectors:
    ckpt = shared_checkpoint()
    return lesson.run_input_vectors(ckpt.model, ckpt.vocab, text)
