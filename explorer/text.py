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


def reversal_metric(container, label: str, output: str, text: str, right: str = "still the exact reversal",
                    wrong: str = "no longer the exact reversal") -> None:
    """A metric of what the model wrote, marked green when it is the exact reversal of `text`, red when not."""
    exact = output == text[::-1]
    container.metric(label, visible(output) or "(nothing)", delta=right if exact else wrong,
                     delta_color="normal" if exact else "inverse", delta_arrow="off")
