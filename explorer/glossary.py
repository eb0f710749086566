"""The glossary where a learner needs it: the terms of the current page in a popover."""

from __future__ import annotations

import streamlit as st

from teaching.glossary import GLOSSARY

from .pages import Page


def glossary_popover(page: Page) -> None:
    if not page.terms:
        return
    with st.popover(f"📖 Terms on this page ({len(page.terms)})", width="stretch"):
        st.markdown("\n\n".join(f"**{term}** — {GLOSSARY[term]}" for term in page.terms))   # one element, not one a term
        st.caption("Every term: the Glossary page.")
