"""Glossary: every technical term the pages use, in one list."""

import streamlit as st

from explorer.pages import pages_using
from teaching.glossary import GLOSSARY

st.title("📖 Glossary")
st.markdown("Every technical term the pages use, in one or two sentences. Each page also lists its own terms in "
            "the sidebar (📖 *Terms on this page*).")
search = st.text_input("Find a term", key="glossary_find", placeholder="e.g. mask", max_chars=40)
wanted = search.strip().lower()
shown = [t for t in sorted(GLOSSARY, key=str.lower) if wanted in t.lower() or wanted in GLOSSARY[t].lower()]
for term in shown:
    st.markdown(f"**{term}** — {GLOSSARY[term]}")
    st.caption("Used on: " + ", ".join(p.title for p in pages_using(term)))
if not shown:
    st.info("No term matches; try a shorter word.")
st.caption(f"{len(GLOSSARY)} terms.")
