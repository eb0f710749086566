"""Projector mode: the learner's switch, read by every chart builder (the canvas takes larger type and a
colour-blind-safe scale; the SVG and HTML charts follow the page's type, which the switch enlarges)."""

from __future__ import annotations

import streamlit as st

PROJECTOR_KEY = "projector"
# display formulas at the body's size: at KaTeX's 1.21 em they ran past a 1280-px projector's column and scrolled
PROJECTOR_CSS = "<style>html { font-size: 125%; } .katex-display > .katex { font-size: 1em; }</style>"


def projector_on() -> bool:
    return bool(st.session_state.get(PROJECTOR_KEY, False))
