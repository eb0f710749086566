"""axe-core (pinned in package-lock.json) on every page, at a laptop's width and in projector mode at 1280×720:
no serious or critical WCAG 2.1 A/AA violation in the app's own content (drivers/axe.py says what that covers).
Every page's browser title is its own."""

import pytest
from playwright.sync_api import expect

from drivers.axe import AXE, described, serious, violations
from drivers.harness import load
from explorer.pages import PAGES


@pytest.fixture(scope="module", autouse=True)
def axe_installed():
    assert AXE.is_file(), f"{AXE} is missing: `npm ci` installs it (scripts/test.sh does)"


@pytest.mark.parametrize("projector", [False, True], ids=["laptop", "projector"])
@pytest.mark.parametrize("row", PAGES, ids=[p.id for p in PAGES])
def test_the_page_has_no_serious_accessibility_violation(server, browser, row, projector):
    size = {"width": 1280, "height": 720} if projector else {"width": 1400, "height": 1000}
    page = browser.new_context(viewport=size, reduced_motion="reduce").new_page()
    load(page, f"{server}/{row.url_path}?text=level" + ("&projector=true" if projector else ""), timeout=180_000)
    found = serious(violations(page))
    assert not found, f"{row.id}:\n{described(found)}"
    assert page.title() == f"{row.title} · Attention explorer"
    page.context.close()


def test_a_heatmaps_numbers_open_as_a_table_from_the_keyboard(server, browser):
    page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    load(page, f"{server}/attention?text=level")
    heatmap = page.locator(".heatmap").first
    spec = heatmap.evaluate("root => root.spec")
    opener = heatmap.locator("details.numbers > summary")
    opener.focus()
    page.keyboard.press("Enter")
    tables = heatmap.locator("details.numbers table")
    expect(tables).to_have_count(len(spec["panels"]))                  # built on the toggle event, just after
    first = tables.first
    assert first.locator("caption").inner_text() == (spec["panels"][0].get("name") or spec["panels"][0]["title"])
    cells = first.locator("tr").nth(1).locator("td")
    assert cells.count() == len(spec["cols"])
    z = spec["panels"][0]["z"][0]
    assert [cells.nth(c).inner_text() for c in range(len(z))] == [f"{v:.3f}" for v in z]
    page.context.close()
