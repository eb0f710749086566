"""Showing a learner's text safely: Streamlit renders markdown, so user text is escaped first."""

from __future__ import annotations

import re

from analysis.labels import visible
from analysis.run import Run
from analysis.tasks import words

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>$~&:=^\"'])")


# Streamlit's markdown turns web and mail addresses into links after escapes are read, so a backslash cannot stop
# it: a word joiner (U+2060, invisible) after the "www" of "www.", the ":" of "://" or an "@" breaks the pattern.
_LINK_START = re.compile(r"(?i)(www(?=\.)|:(?=//)|@)")
WORD_JOINER = "\u2060"


def escape_markdown(text: str) -> str:
    """Backslash every character markdown, LaTeX or HTML could act on, so text shows exactly as typed, and keep
    an address typed into it (a nickname holding a URL) from becoming a live link."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", _LINK_START.sub(r"\1" + WORD_JOINER, text))


SHORT = 16   # characters a metric shows whole; a longer text is also shown in full, wrapped, below it


def in_full(container, text: str) -> None:
    """A text too long for a metric (which cuts it off with '…'), shown whole and wrapped."""
    if len(text) > SHORT:
        container.code(visible(text), language=None, wrap_lines=True)


def answer_metric(container, label: str, run: Run, right: str = "still exactly {output}",
                  wrong: str = "no longer exactly {output}") -> None:
    """A metric of what the run wrote, marked green when it is exactly its task's target (the reversal, the copy,
    the sorted text), red when not. {output} in right and wrong names that target."""
    exact = run.output == run.target
    delta = (right if exact else wrong).format(output=words(run.task).output)
    container.metric(label, visible(run.output) or "(nothing)", delta=delta,
                     delta_color="normal" if exact else "inverse", delta_arrow="off")
