"""The plain links of the security review (issue 24, attack 7), opened in Chromium: each used to show a Python
traceback with the server's file paths (OverflowError for a seed of 1e309 or -inf, KeyError: None for an empty
Attention kind). Each page must now draw, with the default and a notice naming the value it could not use."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest

from drivers.harness import load, run_mark, wait_for_run

LINKS = {  # the review's links: page path, URL key, value
    "decode?seed=1e309": ("decode", "seed", "1e309"),
    "decode?seed=-inf": ("decode", "seed", "-inf"),
    "lab-positions?pe_seed=1e309": ("lab-positions", "pe_seed", "1e309"),
    "attention?kind=": ("attention", "kind", ""),
    "inside-one-head?inside_kind=": ("inside-one-head", "inside_kind", ""),
    "masks?mask_kind=": ("masks", "mask_kind", ""),
    "lab-ablation?lab_kind=": ("lab-ablation", "lab_kind", ""),
    "lab-query-key?qk_kind=": ("lab-query-key", "qk_kind", ""),
}
LEAKS = ("Traceback", '.py"', "/site-packages/")
DRAWN = ".js-plotly-plot .main-svg, .decode .metric, .heatmap canvas"   # a Plotly chart, Decode's step drawn in
                                                                          # the browser (front_end.js) or a canvas
RECORD_HISTORY_STEPS = """window.historySteps = [];
window.addEventListener('popstate', () => window.historySteps.push(location.href));"""   # each Back or Forward's address
FIRST_LOAD_MS = 180_000   # a lab page's first load reads its stored tables (computes them if tables.json is stale)


@pytest.mark.parametrize("link", list(LINKS))
def test_a_hostile_link_draws_the_page_with_a_notice_and_no_traceback(server, page, link):
    path, key, value = LINKS[link]
    load(page, f"{server}/{link}", timeout=FIRST_LOAD_MS)
    page.wait_for_selector(DRAWN, timeout=FIRST_LOAD_MS)                                       # the page draws
    assert page.locator("[data-testid='stException']").count() == 0
    shown = page.inner_text("body")
    assert not [leak for leak in LEAKS if leak in shown], shown[:2000]
    notice = page.locator("[data-testid='stAlert']", has_text="could not be used")
    assert notice.inner_text().strip().endswith(
        f"The link's value for {key} ({value or 'empty'}) could not be used, so it shows the default.")
    assert urlparse(page.url).path.endswith(f"/{path}")
    assert key not in parse_qs(urlparse(page.url).query, keep_blank_values=True)   # the address bar is clean


def test_back_to_a_hostile_link_draws_the_page_again_with_a_notice(server, page):
    """Back (or Forward) to an address whose value no widget can use: Streamlit seeds the bound widget from it
    again, though the session already holds its value, so the guard must hold on a history step too."""
    page.add_init_script(RECORD_HISTORY_STEPS)
    load(page, f"{server}/decode?seed=1e309", timeout=FIRST_LOAD_MS)
    page.wait_for_selector(DRAWN, timeout=FIRST_LOAD_MS)
    page.wait_for_function("() => !location.search.includes('seed=')", timeout=FIRST_LOAD_MS)   # cleaned
    mark = run_mark(page)
    page.go_back()
    # Back lands on the link (read at the step: the rerun it starts cleans the address again, soon enough on a
    # quick machine that a wait for it in the address bar can miss it), and the page names the value again.
    page.wait_for_function("() => window.historySteps.some(href => href.includes('seed=1e309'))",
                           timeout=FIRST_LOAD_MS)
    wait_for_run(page, mark, timeout=FIRST_LOAD_MS)   # the notice of the step's own run, not the first load's
    page.wait_for_selector("[data-testid='stAlert']:has-text('could not be used')", timeout=FIRST_LOAD_MS)
    page.wait_for_function("() => !location.search.includes('seed=')", timeout=FIRST_LOAD_MS)   # cleaned again
    page.wait_for_selector(DRAWN, timeout=FIRST_LOAD_MS)
    assert page.locator("[data-testid='stException']").count() == 0
    shown = page.inner_text("body")
    assert not [leak for leak in LEAKS if leak in shown], shown[:2000]
