"""A copied link opens the same view on every page: each widget whose value is part of the view is bound to
the URL (bind="query-params"), lab pages included."""

import pytest

from tests.links import LINKS, NOT_WIDGETS

from .helpers import no_exception
from .test_entrypoint import open_app

SIDEBAR_KEYS = {"text", "projector", "task"}   # bound in the sidebar on every page; each is in at least one link


@pytest.mark.parametrize("page", list(LINKS))
def test_a_link_gives_every_widget_of_the_view_its_value(page):
    query, expected = LINKS[page]
    at = open_app(query, page)
    no_exception(at)
    assert at.session_state["text"] == "level"
    assert {key: at.session_state[key] for key in expected} == expected


@pytest.mark.parametrize("page", list(LINKS))
def test_every_widget_bound_to_the_url_is_in_the_table(page):
    """The widgets a page binds to the URL are exactly those its link sets: a new one must join LINKS."""
    query, _ = LINKS[page]
    at = open_app(query, page)
    bound = set(_url_keys(at._tree))
    assert bound - {""} - (SIDEBAR_KEYS - set(query)) == set(query) - NOT_WIDGETS.get(page, set())


def _url_keys(node):
    """The query parameter of every widget, and of every tab set, bound to the URL."""
    proto = getattr(node, "proto", None)
    fields = {f.name for f in proto.DESCRIPTOR.fields} if proto is not None else set()
    if "query_param_key" in fields:
        yield proto.query_param_key
    elif "tab_container" in fields and proto.HasField("tab_container"):
        yield proto.tab_container.query_param_key
    for child in getattr(node, "children", {}).values():
        yield from _url_keys(child)
