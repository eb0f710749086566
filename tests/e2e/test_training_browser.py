"""Training in the real browser: slide through the snapshots, start a live run, watch it, stop it, use it."""

import re

from playwright.sync_api import expect

from .conftest import screenshot
from drivers.harness import load, settle


def test_snapshots_then_a_live_run_started_watched_stopped_and_used(server, browser):
    page = browser.new_context(viewport={"width": 1400, "height": 2200}).new_page()
    load(page, f"{server}/training?text=banana&snapshot=0", timeout=120_000)
    expect(page.get_by_test_id("stMetricValue").first).not_to_have_text("ananab")   # untrained at step 0
    load(page, f"{server}/training?text=banana", timeout=120_000)
    expect(page.get_by_test_id("stMetricValue").first).to_have_text("ananab")       # the last snapshot

    page.get_by_text("My own sizes").click()
    page.get_by_label("Steps", exact=True).fill("3000")
    page.get_by_role("button", name="Start training").click()
    expect(page.get_by_text(re.compile(r"running: step \d+ of 3,000"))).to_be_visible(timeout=60_000)
    expect(page.get_by_role("button", name="Stop training")).to_be_visible()
    page.wait_for_function("() => document.querySelectorAll(\"[data-testid='stPlotlyChart']:has(.main-svg)\").length"
                           " >= 3", timeout=60_000)                   # the run's two curves, the live loss at least
    expect(page.locator(".heatmap canvas")).to_have_count(1)                        # and the grid
    screenshot(page, "training-live-run")
    page.get_by_role("button", name="Stop training").click()
    expect(page.get_by_text(re.compile(r"Training stopped after [\d,]+ steps"))).to_be_visible(timeout=60_000)
    assert page.locator("[data-testid='stException']").count() == 0

    page.get_by_role("button", name="Look at it on every page").click()
    settle(page)
    page.get_by_role("link", name=re.compile("Attention")).click()
    settle(page)
    chosen = page.get_by_test_id("stSidebar").get_by_test_id("stSelectbox")
    expect(chosen.get_by_role("combobox")).to_have_value(re.compile(r"Your model \(reverse, [\d,]+ steps"))
    expect(page.get_by_test_id("stSidebar")).to_contain_text("1 encoder + 1 decoder layers")

    stranger = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    load(stranger, f"{server}/attention?text=banana", timeout=120_000)
    assert stranger.get_by_test_id("stSidebar").get_by_test_id("stSelectbox").count() == 0
    expect(stranger.get_by_test_id("stSidebar").get_by_text("ananab", exact=True)).to_be_visible()
    stranger.context.close()
    page.context.close()
