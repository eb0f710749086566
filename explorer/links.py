"""Links between pages."""

from __future__ import annotations

import streamlit as st
from streamlit.errors import StreamlitPageNotFoundError

from .pages import page


def page_link(page_id: str, label: str, icon: str, query: dict[str, str] | None = None) -> None:
    """st.page_link to a page of the registry within the session, the other page's view set by `query` (its URL
    parameters, as its bound widgets write them). A page run on its own, outside the app's navigation (as page tests do), has no such
    page to link to, and names it instead."""
    try:
        st.page_link(page(page_id).script, label=label, icon=icon, query_params=query)
    except StreamlitPageNotFoundError:
        st.caption(f"{icon} {label} (in the app's sidebar)")
