"""This session's own models, trained live or uploaded: a label -> folder map in its state, and the
choice of which model every page shows. Nothing here is shared between sessions."""

from __future__ import annotations

import streamlit as st

from .model import OWN_MODEL_KEY

OWN_MODELS = "_own_models"   # label -> checkpoint folder
CHOICE = "model_choice"      # the sidebar selectbox
SERVER_MODEL = "The bundled word reverser"


def own_models() -> dict[str, str]:
    return st.session_state.setdefault(OWN_MODELS, {})


def add(label: str, folder: str) -> None:
    """Remember a model and look at it on every page from now on."""
    own_models()[label] = folder
    st.session_state[CHOICE] = label
    st.session_state[OWN_MODEL_KEY] = folder


def apply_choice() -> None:
    """Called by the sidebar after its selectbox: point this session's pages at the chosen model."""
    st.session_state[OWN_MODEL_KEY] = own_models().get(st.session_state.get(CHOICE, SERVER_MODEL))
