"""One ablation end to end in the real browser, and a second session on the same server unaffected."""

import numpy as np
from playwright.sync_api import expect

from analysis.run import TEACHER, correct_tokens, make_run
from transformer.intervention import Head, Intervention

from .conftest import screenshot
from drivers.harness import load, settle


def test_switching_off_the_mirror_heads_breaks_the_reversal_for_this_session_only(server, browser, bundled):
    edit = Intervention(ablated=frozenset(Head("cross", 1, h) for h in range(4)))
    output = make_run(bundled.model, bundled.vocab, "banana", edit=edit).output
    p_correct = make_run(bundled.model, bundled.vocab, "banana", TEACHER, edit).probability_of(
        correct_tokens(bundled.vocab, "banana", 24))
    assert output != "ananab"

    page = browser.new_context(viewport={"width": 1400, "height": 1600}).new_page()
    load(page, f"{server}/lab-ablation?text=banana", timeout=120_000)
    page.get_by_role("button", name="the 4 cross heads of the last layer").click()
    settle(page, timeout=120_000)
    bars = page.locator("[data-testid='stPlotlyChart']").first      # p(correct), every head and with the heads off
    expect(bars.locator(".barlayer .trace").nth(1).locator(".point")).to_have_count(len("banana") + 1)
    values = page.get_by_test_id("stMetricValue")
    expect(values.nth(0)).to_have_text("ananab")
    expect(values.nth(1)).to_have_text(output)
    drawn = bars.locator(".js-plotly-plot").evaluate("plot => Array.from(plot._fullData.find(t => t.name === 'changed').y)")
    assert np.allclose(drawn, p_correct, atol=1e-6)
    assert page.locator("[data-testid='stException']").count() == 0
    screenshot(page, "lab-ablation-cross-heads-off")

    other = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    load(other, f"{server}/lab-ablation?text=banana", timeout=120_000)
    expect(other.get_by_test_id("stMetricValue").nth(1)).to_have_text("ananab")  # nothing switched off here
    expect(values.nth(1)).to_have_text(output)                          # and still off there
    other.context.close()
    page.context.close()
