"""The Glossary's record: which terms a search finds and which pages use each, against the glossary and a page
table given here (the app passes explorer.pages' titles and terms)."""

from __future__ import annotations

from teaching.glossary_view import glossary_view
from explorer.pages import PAGES, pages_using
from teaching.glossary import GLOSSARY

APP_PAGES = {p.title: p.terms for p in PAGES}


def test_with_no_search_every_term_shows_in_alphabetical_order_with_the_pages_that_use_it():
    view = glossary_view("", APP_PAGES)
    assert [r.term for r in view.rows] == sorted(GLOSSARY, key=lambda t: t.lower())
    assert view.count == f"{len(GLOSSARY)} terms."
    for row in view.rows:
        assert row.definition == GLOSSARY[row.term] and row.line == f"**{row.term}** — {GLOSSARY[row.term]}"
        assert row.pages == [p.title for p in pages_using(row.term)]
        assert row.used_on == "Used on: " + ", ".join(row.pages)
    assert next(r for r in view.rows if r.term == "causal mask").pages == [
        p.title for p in PAGES if "causal mask" in p.terms]


def test_a_search_finds_names_and_definitions_whatever_the_case_and_spaces():
    found = [r.term for r in glossary_view("  MASK ", APP_PAGES).rows]
    assert found == sorted((t for t in GLOSSARY if "mask" in t.lower() or "mask" in GLOSSARY[t].lower()),
                           key=str.lower)
    assert {"mask", "causal mask", "padding mask"} <= set(found) and len(found) < len(GLOSSARY)
    assert "score" in found and "mask" not in "score"                 # found by its definition alone
    nothing = glossary_view("zzzz", APP_PAGES)
    assert nothing.rows == [] and nothing.count == f"{len(GLOSSARY)} terms."


def test_the_pages_come_from_the_table_given_in_its_order():
    made_up = {"Second": ("mask",), "First": ("mask", "token"), "Neither": ()}
    rows = {r.term: r for r in glossary_view("", made_up).rows}
    assert rows["mask"].pages == ["Second", "First"] and rows["token"].used_on == "Used on: First"
    assert rows["softmax"].pages == [] and rows["softmax"].used_on == "Used on: "
