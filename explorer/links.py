"""Links between pages."""

from __future__ import annotations

from urllib.parse import urlencode

import streamlit as st
from streamlit.errors import StreamlitPageNotFoundError

from .charts import PROJECTOR_KEY
from .classes import SEAT_PARAM, TEACHER_PARAM
from .pages import page


def page_link(page_id: str, label: str, icon: str, query: dict[str, str] | None = None) -> None:
    """st.page_link to a page of the registry within the session, the other page's view set by `query` (its URL
    parameters, as its bound widgets write them). A page run on its own, outside the app's navigation (as page tests do), has no such
    page to link to, and names it instead."""
    try:
        st.page_link(page(page_id).script, label=label, icon=icon, query_params=query)
    except StreamlitPageNotFoundError:
        st.caption(f"{icon} {label} (in the app's sidebar)")


def link_for_students(base: str | None, url_path: str, params: dict[str, str]) -> str:
    """This page's link as a teacher would share it, without projector mode: students who open it get the page,
    the text and the view, at their own screen's size. `base`: the page's address in the browser (st.context.url),
    else the page's path. A teacher's secret and a student's seat never go in it: whoever holds them controls
    the class or takes the seat, and this box is projected."""
    query = urlencode({k: v for k, v in params.items() if k not in (PROJECTOR_KEY, TEACHER_PARAM, SEAT_PARAM)})
    return (base or f"/{url_path}") + (f"?{query}" if query else "")


def show_link_for_students(url_path: str) -> None:
    """In projector mode: the link to share, in a code box whose button copies it."""
    st.caption("Link for students, without projector mode (its copy button shows on hover):")
    st.code(link_for_students(st.context.url, url_path, st.query_params.to_dict()), language=None, wrap_lines=True)
