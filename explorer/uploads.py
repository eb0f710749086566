"""A checkpoint zip uploaded by a learner: validated by the library in memory, then this session's own model.

The uploaded bytes do not stay behind: once read, the file leaves Streamlit's upload store and the uploader
is replaced by a fresh one, so an upload costs memory only while it is this session's model."""

from __future__ import annotations

import dataclasses

import streamlit as st
from analysis.tasks import words
from server.session import forget_upload
from transformer.checkpoint import Checkpoint, CheckpointError, from_zip

from .cache import TASK_KEY, chosen_task
from .own_models import add

ERROR_KEY = "upload_error"
DONE_KEY = "upload_done"
NOTE_KEY = "upload_note"          # the task the upload was trained for
MISMATCH_KEY = "upload_mismatch"  # set when it was trained for another task than the one chosen
ROUND_KEY = "_upload_round"   # part of the uploader's key: a new round is a new, empty uploader
MAX_NAME = 40                 # characters of a file's name kept in the model's label
MAX_READ = 48                 # the longest text the app reads with any model: the bundled models' own limit


def bounded(loaded: Checkpoint) -> tuple[Checkpoint, str]:
    """The upload as the app reads it: at most MAX_READ characters, whatever its config.json claims, so the work
    of every page (texts, held-out samples, decodings) is bounded by what the page needs, not by the model (an
    upload claiming 511 characters made every held-out sample 511 long). Its weights and positional table are
    untouched. Returns the model and a sentence for the learner, empty when nothing was bounded."""
    claimed = loaded.model.config.max_len
    if claimed <= MAX_READ:
        return loaded, ""
    loaded.model.config = dataclasses.replace(loaded.model.config, max_len=MAX_READ)
    return loaded, (f" Its config.json says it reads up to {claimed} characters; this app reads at most {MAX_READ} "
                    "with any model, so it is given texts of at most that length (twice that on Longer than trained).")


def uploader_key() -> str:
    return f"upload_{st.session_state.get(ROUND_KEY, 0)}"


def take_upload() -> None:
    """on_change of the uploader: check the zip, and on success look at it on every page."""
    upload = st.session_state.get(uploader_key())
    st.session_state[ERROR_KEY] = st.session_state[DONE_KEY] = st.session_state[MISMATCH_KEY] = None
    st.session_state[NOTE_KEY] = ""
    if upload is None:
        return
    name = upload.name if len(upload.name) <= MAX_NAME else upload.name[:MAX_NAME - 1] + "…"
    try:
        loaded = from_zip(upload.getvalue(), name=name)
    except CheckpointError as err:
        st.session_state[ERROR_KEY] = str(err)
        return
    finally:
        _forget(upload)
    loaded, bound_note = bounded(loaded)
    c = loaded.model.config
    label = f"Uploaded: {name} ({c.n_encoder_layers}+{c.n_decoder_layers} layers, {c.n_heads} heads)"
    chosen = chosen_task()
    add(label, loaded)
    if loaded.task != chosen:
        st.session_state[TASK_KEY] = loaded.task      # the selector shows the task of the model every page shows
    st.session_state[DONE_KEY] = label
    st.session_state[NOTE_KEY] = (f"Its config.json says it was trained to {loaded.task}, so every page "
                                  f"scores it on {words(loaded.task).output}.{bound_note}")
    if loaded.task != chosen:
        st.session_state[MISMATCH_KEY] = (
            f"This model was trained to {loaded.task}, not to {chosen} (the task chosen when it arrived), so it is "
            f"never scored on {chosen}: the sidebar's Task is now {words(loaded.task).label}, and every page speaks "
            f"of {words(loaded.task).output}.")


def _forget(upload) -> None:
    """Drop the uploaded bytes from Streamlit's upload store (which keeps them until the session is shut down,
    and a session that merely expires is never shut down) and start a fresh uploader."""
    forget_upload(upload.file_id)
    st.session_state[ROUND_KEY] = st.session_state.get(ROUND_KEY, 0) + 1
