"""Every page turns bad input into a clear message, never a traceback, and shows the text as typed."""

import re
import shutil

import pytest

from explorer.cache import BUNDLED_CHECKPOINT, CHECKPOINT_ENV
from explorer.pages import PAGES as REGISTRY

from .helpers import canvas_charts, figures, no_exception, open_page, svg_charts

PAGES = [p.id for p in REGISTRY if p.reads_text]
BAD = {
    "": "empty",
    "héllo!": "cannot read",
    "a" * 60: "at most 48",
    "<b>x</b>": "cannot read",
    "<script>alert(1)</script>": "cannot read",
}


def unescape(markdown: str) -> str:
    return markdown.replace("\\", "")


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("text", list(BAD), ids=["empty", "accent", "too-long", "html", "script"])
def test_bad_input_gets_its_message_and_no_chart(page, text):
    at = open_page(page, text)
    no_exception(at)
    assert len(at.error) == 1
    assert BAD[text] in unescape(at.error[0].value)
    assert not figures(at) and not canvas_charts(at) and not svg_charts(at)
    shown = [t.value for t in at.text]
    assert (text or "(nothing)") in shown  # exactly as typed, as plain text


def test_unknown_characters_are_named_with_their_positions():
    at = open_page("decode", "héllo!")
    message = unescape(at.error[0].value)
    assert "é" in message and "position 2" in message and "position 6" in message


def test_markup_is_escaped_before_streamlit_renders_markdown():
    at = open_page("home", "**bold** $x$")
    message = at.error[0].value
    assert "\\*" in message and "\\$" in message
    assert re.search(r"(?<!\\)[*$]", message) is None  # no markdown or LaTeX marker left unescaped


@pytest.mark.parametrize("page", PAGES)
def test_uppercase_and_extra_spaces_are_fixed_with_a_visible_notice(page):
    at = open_page(page, "  Hello  World ")
    no_exception(at)
    assert not at.error
    notice = unescape(at.info[0].value)
    assert "lowercased" in notice and "spaces" in notice and "hello world" in notice


@pytest.mark.parametrize("page", PAGES)
def test_a_broken_checkpoint_is_named_on_every_page(page, tmp_path, monkeypatch):
    broken = tmp_path / "broken"
    shutil.copytree(BUNDLED_CHECKPOINT, broken)
    (broken / "model.safetensors").write_bytes(b"\x80\x04not really weights")
    monkeypatch.setenv(CHECKPOINT_ENV, str(broken))
    at = open_page(page, "hello")
    no_exception(at)
    assert len(at.error) == 1
    message = unescape(at.error[0].value)
    assert "could not be loaded" in message and "model.safetensors" in message
    assert not figures(at) and not canvas_charts(at) and not svg_charts(at)
