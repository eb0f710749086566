"""A checkpoint zip uploaded by a learner: validated by the library in memory, then this session's own model.

The uploaded bytes do not stay behind: once read, the file leaves Streamlit's upload store and the uploader
is replaced by a fresh one, so an upload costs memory only while it is this session's model."""

from __future__ import annotations

import streamlit as st
from streamlit.runtime import Runtime
from streamlit.runtime.scriptrunner import get_script_run_ctx

from transformer.checkpoint import CheckpointError, from_zip

from .own_models import add

ERROR_KEY = "upload_error"
DONE_KEY = "upload_done"
ROUND_KEY = "_upload_round"   # part of the uploader's key: a new round is a new, empty uploader
MAX_NAME = 40                 # characters of a file's name kept in the model's label


def uploader_key() -> str:
    return f"upload_{st.session_state.get(ROUND_KEY, 0)}"


def take_upload() -> None:
    """on_change of the uploader: check the zip, and on success look at it on every page."""
    upload = st.session_state.get(uploader_key())
    st.session_state[ERROR_KEY] = st.session_state[DONE_KEY] = None
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
    c = loaded.model.config
    label = f"Uploaded: {name} ({c.n_encoder_layers}+{c.n_decoder_layers} layers, {c.n_heads} heads)"
    add(label, loaded)
    st.session_state[DONE_KEY] = label


def _forget(upload) -> None:
    """Drop the uploaded bytes from Streamlit's upload store (which keeps them until the session is shut down,
    and a session that merely expires is never shut down) and start a fresh uploader."""
    ctx = get_script_run_ctx()
    if Runtime.exists() and ctx is not None:
        Runtime.instance().uploaded_file_mgr.remove_file(ctx.session_id, upload.file_id)
    st.session_state[ROUND_KEY] = st.session_state.get(ROUND_KEY, 0) + 1
