"""Glossary: every technical term the pages use, in one list."""

import streamlit as st

from teaching.glossary_view import glossary_view
from explorer.pages import PAGES

st.title("📖 Glossary")
st.markdown("Every technical term the pages use, in one or two sentences. Each page also lists its own terms in "
            "the sidebar (📖 *Terms on this page*).")
search = st.text_input("Find a term", key="glossary_find", placeholder="e.g. mask", max_chars=40)
view = glossary_view(search, {p.title: p.terms for p in PAGES})
for row in view.rows:
    st.markdown(row.line)
    st.caption(row.used_on)
if not view.rows:
    st.info("No term matches; try a shorter word.")
st.caption(view.count)
