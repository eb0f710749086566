"""Bringing a page back to its top once, when something the student waits for arrives above where they are."""

import streamlit as st

from .components import mount_with_data

# Once per mark in this tab (sessionStorage): the polls that rerun the page later leave the student where they
# scrolled to. Streamlit's main area scrolls inside stMain, not the window.
_TO_TOP_JS = """export default function (component) {
  const mark = "scrolled-to-top:" + JSON.parse(new TextDecoder().decode(component.data)).mark;
  if (sessionStorage.getItem(mark)) return;
  sessionStorage.setItem(mark, "1");
  const main = document.querySelector("[data-testid='stMain']");
  if (main) main.scrollTo({top: 0});
  window.scrollTo({top: 0});
}"""


def to_top_once(mark: str) -> None:
    """Scroll this tab's page to its top the first time a run draws `mark`."""
    mount_with_data(st.components.v2.component("to_top_once", js=_TO_TOP_JS, html="<span hidden></span>"),
           {"mark": mark}, f"to_top_{mark}", None)
