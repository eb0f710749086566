"""Glossary: every term the pages use, found by a search, each with the pages that use it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from teaching.glossary import GLOSSARY


@dataclass(frozen=True)
class GlossaryRow:
    term: str
    definition: str
    pages: list[str]        # the titles of the pages that use the term, in the app's order
    line: str               # the term and its definition, markdown
    used_on: str            # the pages, as one caption


@dataclass(frozen=True)
class GlossaryView:
    rows: list[GlossaryRow]   # the terms the search finds, alphabetical whatever their case
    count: str                # how many terms the glossary holds, found or not


def glossary_view(search: str, page_terms: Mapping[str, Sequence[str]]) -> GlossaryView:
    """`search` finds a term by its name or its definition, case aside; `page_terms` maps each page's title to
    the terms it uses, in the app's page order (explorer.pages holds it: teaching does not import explorer)."""
    wanted = search.strip().lower()
    rows = []
    for term in sorted(GLOSSARY, key=str.lower):
        definition = GLOSSARY[term]
        if wanted in term.lower() or wanted in definition.lower():
            pages = [title for title, terms in page_terms.items() if term in terms]
            rows.append(GlossaryRow(term, definition, pages, f"**{term}** — {definition}",
                                    "Used on: " + ", ".join(pages)))
    return GlossaryView(rows, f"{len(GLOSSARY)} terms.")
