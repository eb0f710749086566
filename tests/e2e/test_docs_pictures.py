"""The README's and the docs' leading pictures, of the app this run tested: the Attention page's grid of every
layer and head on a text that is not a palindrome (the accessibility test's "level" reads the same reversed),
and Home. Each picture is taken only once its page has drawn every chart, with no exception on it."""

import pytest

from drivers.harness import load

from .conftest import picture

SHOTS = {"readme-attention": ("attention", "hello", "Every layer and head"),
         "readme-home": ("", "attention", None)}


@pytest.mark.parametrize("name", list(SHOTS))
def test_the_docs_picture_is_of_a_drawn_page(server, browser, name):
    path, text, heading = SHOTS[name]
    page = browser.new_context(viewport={"width": 1400, "height": 1000}, reduced_motion="reduce").new_page()
    load(page, f"{server}/{path}?text={text}", timeout=180_000)
    assert page.locator("[data-testid='stException']").count() == 0
    assert page.get_by_text(f"output {text[::-1]}").count() >= 1 or path == ""
    if heading:
        shown = page.get_by_role("heading", name=heading).first
        shown.scroll_into_view_if_needed()
        shown.evaluate("h => h.scrollIntoView({block: 'start'})")
        assert page.locator("canvas").count() >= 1                     # the grid is drawn on canvases
    picture(page, name)
    page.context.close()
