"""A checkpoint zip uploaded by a learner: validated by the library, then this session's own model."""

from __future__ import annotations

import tempfile
from pathlib import Path

import streamlit as st

from transformer.checkpoint import CheckpointError, from_zip

from .own_models import add

ERROR_KEY = "upload_error"


def take_upload() -> None:
    """on_change of the uploader: check the zip, and on success look at it on every page."""
    upload = st.session_state.get("upload")
    st.session_state[ERROR_KEY] = None
    if upload is None:
        return
    folder = Path(tempfile.mkdtemp(prefix="attention-explorer-upload-"))
    try:
        loaded = from_zip(upload.getvalue(), folder, name=upload.name)
    except CheckpointError as err:
        st.session_state[ERROR_KEY] = str(err)
        return
    c = loaded.model.config
    add(f"Uploaded: {upload.name} ({c.n_encoder_layers}+{c.n_decoder_layers} layers, {c.n_heads} heads)", str(folder))
