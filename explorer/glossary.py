"""The glossary where a learner needs it: the terms of the current page in a popover."""

from __future__ import annotations

import streamlit as st

from teaching.glossary import GLOSSARY, TERMS_BY_PAGE


def glossary_popover(page_title: str) -> None:
    terms = TERMS_BY_PAGE.get(page_title, ())
    if not terms:
        return
    with st.popover(f"📖 Terms on this page ({len(terms)})", width="stretch"):
        for term in terms:
            st.markdown(f"**{term}** — {GLOSSARY[term]}")
        st.caption("Every term: the Glossary page.")
