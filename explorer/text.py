"""Showing a learner's text safely: Streamlit renders markdown, so user text is escaped first."""

from __future__ import annotations

import re

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>$~&:=^\"'])")


def escape_markdown(text: str) -> str:
    """Backslash every character markdown, LaTeX or HTML could act on, so text shows exactly as typed."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)


def visible(text: str) -> str:
    """Spaces shown as '␣' so a learner can count them."""
    return text.replace(" ", "␣")
