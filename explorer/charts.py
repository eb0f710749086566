"""Projector mode: the learner's switch, read by every chart builder (the canvas takes larger type and a
colour-blind-safe scale; the SVG and HTML charts follow the page's type, which the switch enlarges)."""

from __future__ import annotations

import streamlit as st

PROJECTOR_KEY = "projector"
PROJECTOR_CSS = "<style>html { font-size: 125%; }</style>"


def projector_on() -> bool:
    return bool(st.session_state.get(PROJECTOR_KEY, False))
