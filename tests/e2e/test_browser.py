"""The whole app in headless Chromium: every page draws, the shared input survives navigation,
a copied link opens the same view, and markup typed by a user is shown as text."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlparse

import numpy as np
import pytest
from playwright.sync_api import expect

from explorer.components import json_bytes, themed
from explorer.pages import PAGES as REGISTRY
from tests.links import LINKS

from .conftest import screenshot
from drivers.axe import CELL_CONTRASTS
from drivers.harness import PAINTED, ROOT, load, run_ends, run_mark, settle, type_text, wait_for_charts

PAGES = {p.url_path: (p.title, p.svgs, p.canvases, p.plotlys)   # url path -> (label, SVG diagrams, canvases,
         for p in REGISTRY}                                         # Plotly charts)


@pytest.mark.parametrize("path", list(PAGES))
def test_every_page_draws_for_a_typed_word(server, page, path):
    load(page, f"{server}/{path}")
    type_text(page, "banana")
    wait_for_charts(page, PAGES[path][1])
    expect(page.get_by_test_id("stSidebar").get_by_text("ananab", exact=True)).to_be_visible()
    assert page.locator("[data-testid='stException']").count() == 0
    assert "text=banana" in page.url
    plotly = page.locator("[data-testid='stPlotlyChart']")                       # viz.plotly_charts, each drawn
    expect(plotly).to_have_count(PAGES[path][3])                                 # and summarised under it
    for i in range(PAGES[path][3]):
        assert plotly.nth(i).locator(".main-svg").first.bounding_box()["width"] > 100
    expect(page.locator(".svg-chart .summary")).to_have_count(PAGES[path][3])
    canvases = page.locator(".heatmap canvas")                   # the canvas heatmaps, each named by its summary
    expect(canvases).to_have_count(PAGES[path][2])
    for i in range(PAGES[path][2]):
        assert canvases.nth(i).get_attribute("aria-label")
        assert canvases.nth(i).evaluate("c => c.width * c.height") > 0
    for svg in page.locator(".svg-chart svg[role='img']").all():   # SVG diagrams (viz.architecture): named, drawn
        assert svg.get_attribute("aria-label")
        assert svg.locator("circle, rect").count() > 0 and svg.bounding_box()["width"] > 100
    screenshot(page, path or "home")


def test_st_codes_highlighter_is_loaded_once_the_first_run_is_drawn(server, page):
    """server.middleware's CODE_WHEN_IDLE: on a page with no st.code (the Glossary), the browser asks for the syntax
    highlighter's code once the page's first run is drawn, not before, so its long first run (0.3-0.46 s) waits
    for no learner: the lesson's "What the model writes" and a long text shown in full find it loaded."""
    drawn = next(ast.literal_eval(node.value) for node in ast.parse((ROOT / "server" / "middleware.py").read_text()).body  # read, as
                 if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "FIRST_RUN_DRAWN")  # served
    asked = []
    page.on("request", lambda request: asked.append(request.url) if "SyntaxHighlighter" in request.url else None)
    page.goto(f"{server}/glossary")
    page.wait_for_function("selector => document.querySelector(selector)", arg=drawn)
    assert asked == []                                  # nothing asked for while the page drew
    page.wait_for_function("() => performance.getEntriesByType('resource').some(r => r.name.includes("
                           "'StreamlitSyntaxHighlighter'))")
    assert len(asked) == 1 and page.get_by_test_id("stCode").count() == 0


def test_positional_encodings_charts_name_every_bar_and_point(server, page):
    """Its norm bars, distance lines and rotation check are Plotly charts: hovering a bar says its series, its
    position and its value, and the summary under the chart is computed from its numbers."""
    load(page, f"{server}/positional?text=banana")
    charts = page.locator("[data-testid='stPlotlyChart']")
    expect(charts).to_have_count(3)
    bars = charts.nth(0).locator(".barlayer .point path")
    expect(bars).to_have_count(3 * len("banana"))
    charts.nth(0).scroll_into_view_if_needed()
    box = bars.first.bounding_box()                  # the mouse over it: Plotly's drag layer takes the events
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    hover = charts.nth(0).locator(".hoverlayer .hovertext")
    expect(hover).to_have_count(1)
    assert re.fullmatch(r"embedding \(unscaled\), position 0 \(b\): \d+\.\d{3}", hover.text_content().strip())
    expect(page.locator(".svg-chart .summary").first).to_contain_text("over 6 source positions")


def test_home_shows_the_reversal_and_navigation_keeps_the_text(server, page):
    load(page, server)
    type_text(page, "banana")
    expect(page.get_by_test_id("stMetricValue").nth(1)).to_have_text("ananab", timeout=30_000)
    with run_ends(page, "whole"):
        page.get_by_role("link", name=re.compile("Attention")).click()
    assert page.get_by_role("textbox", name="Your text").input_value() == "banana"
    assert "text=banana" in page.evaluate("location.href")     # page.url can lag history.replaceState


def test_decode_controls_reach_the_decoded_word(server, page):
    load(page, f"{server}/decode?text=attention")
    mark = run_mark(page)
    page.get_by_role("button", name=re.compile("Last")).click()
    values = page.locator(".decode .metric .value")
    expect(values.nth(1)).to_have_text("⟨/s⟩")
    expect(values.nth(2)).to_have_text("noitnetta")
    page.wait_for_function("() => new URL(location.href).searchParams.get('step') === '9'")
    assert page.get_by_role("button", name=re.compile("Next")).get_attribute("aria-disabled") == "true"
    assert run_mark(page) == mark                          # drawn in the browser: no run of the page
    page.get_by_role("slider", name="Step t").fill("4")    # the slider too
    expect(values.nth(0)).to_have_text("⟨s⟩ n o i t")
    page.get_by_role("button", name=re.compile("First")).click()
    expect(values.nth(0)).to_have_text("⟨s⟩")
    page.wait_for_function("() => !new URL(location.href).searchParams.has('step')")    # step 0 leaves the URL
    assert page.get_by_role("button", name=re.compile("Previous")).get_attribute("aria-disabled") == "true"
    assert run_mark(page) == mark


def test_a_copied_link_opens_the_same_view_in_a_fresh_context(server, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    load(page, f"{server}/attention?text=level")
    with run_ends(page):
        page.get_by_test_id("stMain").get_by_text("Decoder self", exact=True).click()
    page.get_by_test_id("stMain").get_by_role("combobox", name=re.compile("Layer")).click()
    with run_ends(page):
        page.get_by_role("option", name="0", exact=True).click()
    page.get_by_role("radiogroup", name="Head").get_by_role("radio", name="2", exact=True).check()   # no rerun
    page.wait_for_function("() => new URL(location.href).searchParams.get('head') === '2'")
    link = page.url                                    # the view, as a learner would copy it
    assert "kind=Decoder" in link and "layer=0" in link and "head=2" in link
    page.close()
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    fresh = context.new_page()
    load(fresh, link)
    assert fresh.get_by_role("textbox", name="Your text").input_value() == "level"
    expect(fresh.get_by_text("Layer 0, head 2 (left)", exact=False)).to_have_count(1, timeout=30_000)
    expect(fresh.get_by_test_id("stMain").get_by_text("Decoder self-attention", exact=False).first).to_be_visible()
    assert fresh.locator("[data-testid='stSidebarNav']").count() == 1  # the router ran, not a bare page
    context.close()


def weight_on_attention_page(page, server, text, layer, head, query, key) -> float:
    """The weight of one cell of a cross head, as the Attention page's large view says it to a keyboard user:
    the chart focused by Tab, then the arrow keys from its first cell to (query, key)."""
    load(page, f"{server}/attention?text={text}&kind=Cross&layer={layer}&head={head}")
    chart = page.locator(".heatmap", has_text=f"Layer {layer}, head {head} (left)")
    chart.locator("canvas").focus()
    for arrow, times in (("ArrowDown", query), ("ArrowRight", key)):
        for _ in range(times):
            page.keyboard.press(arrow)
    said = chart.locator(".said").inner_text()
    assert said.startswith(f"head {head}: decoder position (query) {query} (") and f"source position (key) {key} (" in said
    return float(said.rsplit("weight ", 1)[1])


# The element the keyboard is on, inside a component's shadow DOM too: its role and its focus ring.
DEEP_FOCUS = """() => { let a = document.activeElement;
    while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
    const s = getComputedStyle(a); return [a.getAttribute("role"), s.outlineStyle, s.outlineWidth]; }"""


# The first element matching `selector` in the page, else inside a component's shadow root.
IN_SHADOW = """selector => document.querySelector(selector) || [...document.querySelectorAll('*')]
    .filter(host => host.shadowRoot).map(host => host.shadowRoot.querySelector(selector)).find(Boolean)"""


def drawn_in(page, selector: str) -> set[tuple[str, bool]]:
    """The fonts Chromium drew an element's own text in (DevTools' "Rendered fonts"), not the ones its CSS asks for:
    a family that does not load falls back to another without a word. Each: (its name, whether the page loaded
    it)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    cdp.send("DOM.getDocument", {"depth": -1, "pierce": True})
    found = cdp.send("Runtime.evaluate", {"expression": f"({IN_SHADOW})({selector!r})"})["result"]
    node = cdp.send("DOM.requestNode", {"objectId": found["objectId"]})["nodeId"]
    fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
    cdp.detach()
    return {(f["familyName"], f["isCustomFont"]) for f in fonts}


def test_a_charts_words_are_drawn_in_the_pages_own_font(server, page):
    """A heatmap's title and a Plotly chart's labels in the page's Source Sans, as its paragraphs are: asking for
    1.65's "Source Sans Pro" alone drew them in Liberation Sans."""
    load(page, f"{server}/positional?text=banana")
    expect(page.locator(".js-plotly-plot .xtick text").first).to_be_visible()
    page.wait_for_function("() => document.fonts.check('16px \"Source Sans\"')")
    body = {font for font in drawn_in(page, "[data-testid='stMain'] [data-testid='stMarkdownContainer'] p")
            if font[1]}                                                # its emoji aside, in the system's font
    assert len(body) == 1 and "Source" in next(iter(body))[0]         # Streamlit's Source Sans (SourceSans3VF)
    for chart_text in (".heatmap .title", ".svg-chart summary", ".js-plotly-plot .xtick text"):   # title, labels
        drawn = drawn_in(page, chart_text)
        assert drawn == body, (chart_text, drawn)          # a system font beside it (Liberation Sans) fails too


def test_a_table_of_cells_is_reached_by_tab_and_shows_the_pages_focus_ring(server, page):
    """The tables of coloured cells scroll sideways in their own box, which the keyboard reaches; the page's focus
    ring does not reach into a component's shadow DOM, so the component draws its own."""
    load(page, f"{server}/inside-one-head?text=banana")
    box = page.locator(".cells [role='region']").first
    box.focus()
    page.keyboard.press("Tab")
    page.keyboard.press("Shift+Tab")                             # back to it, by the keyboard
    assert page.evaluate(DEEP_FOCUS) == ["region", "solid", "3px"]


def test_inside_one_head_walks_from_the_attention_page_to_one_cell_and_back(server, page):
    load(page, f"{server}/attention?text=banana&kind=Cross&layer=1&head=1")
    with run_ends(page, "whole"):
        page.get_by_test_id("stMain").get_by_role("link", name=re.compile("Inside one head")).click()
    expect(page.locator(".heatmap canvas")).to_have_count(3)   # with the cross head's letter-in, logit-out map
    main = page.get_by_test_id("stMain")
    expect(main.get_by_text("Cross-attention, layer 1, head 1", exact=False)).to_be_visible()
    slider = main.get_by_role("slider")                          # the query: step 2
    slider.focus()
    for _ in range(2):
        with run_ends(page):
            slider.press("ArrowRight")
    main.get_by_role("combobox", name=re.compile("Key")).click()   # the key: source position 4
    with run_ends(page):
        page.get_by_role("option", name="position 4", exact=True).click()
    weight = main.get_by_test_id("stMetricValue").first
    expect(weight).not_to_have_text("")
    first = float(weight.inner_text())
    main.get_by_role("combobox", name=re.compile("Head")).click()  # another head, same cell
    with run_ends(page):
        page.get_by_role("option", name="3", exact=True).click()
    expect(main.get_by_text("Cross-attention, layer 1, head 3", exact=False)).to_be_visible()
    second = float(weight.inner_text())
    here = page.evaluate("location.href")                        # page.url can lag history.replaceState
    assert "inside_query=2" in here and "inside_key=position+4" in here and "inside_head=3" in here
    assert page.locator("[data-testid='stException']").count() == 0
    assert float(main.get_by_test_id("stMetricValue").nth(1).inner_text()) <= 1e-5
    assert first == pytest.approx(weight_on_attention_page(page, server, "banana", 1, 1, 2, 4), abs=5e-4)  # 3 places
    assert second == pytest.approx(weight_on_attention_page(page, server, "banana", 1, 3, 2, 4), abs=5e-4)
    assert first != second


def test_the_large_attention_view_names_the_cell_under_the_pointer(server, page):
    load(page, f"{server}/attention?text=banana&kind=Cross&layer=1&head=1")
    chart = page.locator(".heatmap", has_text="Layer 1, head 1 (left)")
    canvas = chart.locator("canvas")
    assert canvas.get_attribute("aria-label").startswith("Layer 1, head 1 (left) and the average of its 4 heads")
    drawn = canvas.evaluate("""c => { const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
                                     let coloured = 0; for (let i = 0; i < d.length; i += 4)
                                         if (d[i] < 240 || d[i + 1] < 240) coloured++; return coloured; }""")
    assert drawn > 1000                                                    # cells, labels and the colour bar
    box = canvas.bounding_box()
    canvas.hover(position={"x": box["width"] * 0.3, "y": box["height"] * 0.5})
    tip = chart.locator(".tip")
    expect(tip).to_be_visible()
    assert re.fullmatch(r"head 1: decoder position \(query\) \d \(.+\), source position \(key\) \d \(.\): "
                        r"weight \d\.\d{3}", tip.inner_text())
    page.mouse.move(1, 1)
    expect(tip).to_be_hidden()


def test_another_head_is_drawn_in_the_browser_and_kept_through_a_new_layer_and_a_new_word(server, page):
    load(page, f"{server}/attention?text=banana&kind=Cross&layer=1&head=1")
    page.evaluate("""() => { window.runs = 0; new MutationObserver(() => {
        if (document.querySelector("[data-testid='stApp']").dataset.testScriptState === 'running') window.runs++;
    }).observe(document.querySelector("[data-testid='stApp']"), {attributes: true}); }""")
    detail, influence = page.locator(".heatmap").nth(1), page.locator(".heatmap").nth(2)
    heads = page.get_by_role("radiogroup", name="Head")
    expect(heads.get_by_role("radio")).to_have_count(4)
    assert heads.get_by_role("radio", name="1", exact=True).is_checked()
    heads.get_by_role("radio", name="1", exact=True).focus()
    page.keyboard.press("ArrowRight")                              # the keyboard moves the head, as for any radio
    expect(detail.locator("canvas")).to_have_attribute("aria-label", re.compile(r"^Layer 1, head 2 \(left\)"))
    expect(influence.locator("canvas")).to_have_attribute("aria-label", re.compile(r"^Head 2 \(picked above\): what each key sends"))
    assert "head=2" in page.url and page.evaluate("window.runs") == 0      # drawn with no rerun of the page
    weights = detail.evaluate("root => root.spec.panels[0].z")
    note = page.get_by_text("the key that sends the most in", exact=False)
    expect(note).to_have_count(1)
    page.get_by_test_id("stMain").get_by_role("combobox", name=re.compile("Layer")).click()   # a rerun keeps it
    page.keyboard.type("0")
    with run_ends(page):
        page.keyboard.press("Enter")
    expect(detail.locator("canvas")).to_have_attribute("aria-label", re.compile(r"^Layer 0, head 2 \(left\)"))
    assert detail.evaluate("root => root.spec.panels[0].z") != weights and "head=2" in page.url
    type_text(page, "kitten")
    expect(detail.locator("canvas")).to_have_attribute("aria-label", re.compile(r"^Layer 0, head 2 \(left\)"))
    assert "head=2" in page.url and "text=kitten" in page.url
    with page.expect_download() as saved:                         # the chosen head's matrix, saved by the browser
        page.get_by_role("button", name="Download head 2's weights (CSV)").click()
    assert saved.value.suggested_filename == "cross_layer0_head2_weights.csv"
    rows = Path(saved.value.path()).read_text().splitlines()
    assert rows[0] == "query \\ key,0:k,1:i,2:t,3:t,4:e,5:n" and len(rows) == 1 + 7
    with run_ends(page, "whole"):   # in the session
        page.get_by_test_id("stMain").get_by_role("link", name=re.compile("Inside one head")).click()
    expect(page.get_by_test_id("stMain").get_by_text("Cross-attention, layer 0, head 2", exact=False)).to_be_visible()
    here = page.evaluate("location.href")                        # page.url can lag history.replaceState
    assert "text=kitten" in here and "inside_head=2" in here
    # And back: the word and the head kept. Streamlit's page link and the bound widgets of the page it opens push up
    # to three entries of their own, so Back may take several presses (the layer, a bound widget, is Streamlit's to
    # restore: it did not). The first press can land on the link's own URL, which the page's bound widgets at once
    # rewrite to the URL Back left: the address does not change, so each press waits for the page's run, not for it.
    for _ in range(4):
        if "/attention?" in page.evaluate("location.href"):
            break
        page.go_back()
        settle(page)
    assert "/attention?" in page.evaluate("location.href")
    expect(page.locator(".heatmap").nth(1).locator("canvas")).to_have_attribute(
        "aria-label", re.compile(r"^Layer \d, head 2 \(left\)"))
    assert page.get_by_role("textbox", name="Your text").input_value() == "kitten"


def test_the_grid_keeps_a_layer_to_a_row_and_the_arrow_keys_cross_from_one_layer_to_the_next(server, browser):
    for width, per_row in ((1400, 4), (390, 1)):          # a laptop: a layer's four heads in a row; a phone: one
        context = browser.new_context(viewport={"width": width, "height": 900})
        page = context.new_page()
        load(page, f"{server}/attention?text=banana&kind=Cross&layer=1&head=1")
        chart = page.locator(".heatmap", has_text="2 layers × 4 heads")
        canvas = chart.locator("canvas")
        assert "8 panels, each 7 rows by 6 columns" in canvas.get_attribute("aria-label")
        box, strips = canvas.bounding_box(), 2 * 4 // per_row
        canvas.hover(position={"x": box["width"] * 0.3, "y": box["height"] * (1 - 0.5 / strips)})  # the last strip
        expect(chart.locator(".tip")).to_contain_text("layer 1, head 3" if per_row == 1 else "layer 1, head")
        canvas.focus()
        for _ in range(7):                                 # down past the 7 rows of layer 0, head 0
            page.keyboard.press("ArrowDown")
        said = chart.locator(".said").inner_text()
        assert said.startswith("layer 1, head 0: decoder position (query) 0 ("), said
        context.close()


# Each metric of a row: the top of its value, and the height of its label's own text (its lines).
METRICS = """() => [...document.querySelectorAll("[data-testid='stHorizontalBlock']")]
    .map(b => [...b.querySelectorAll("[data-testid='stMetric']")]).filter(ms => ms.length > 1)
    .map(ms => ms.map(m => [m.querySelector("[data-testid='stMetricValue']").getBoundingClientRect().top,
                            m.querySelector("[data-testid='stMetricLabel'] p").getBoundingClientRect().height]))"""


def test_metrics_side_by_side_keep_their_values_in_line_when_a_label_wraps(server, browser):
    """At 1,024 px 'Largest difference from the model' takes two lines and its neighbours' labels one: the values
    still share a line (explorer/frame_fixes.py), as they do on the wider screen, where no label wraps, also when
    the window is made narrower after the page was drawn."""
    context = browser.new_context(viewport={"width": 1400, "height": 768})
    page = context.new_page()
    load(page, f"{server}/inside-one-head?text=the+quick+brown+fox+jumps+over+the+lazy+dog+agai")
    for width in (1400, 1024):                                    # the wrap comes with the narrower window
        page.set_viewport_size({"width": width, "height": 768})
        page.wait_for_timeout(300)
        [row] = page.evaluate(METRICS)                            # weight, largest difference, score
        lines = [height for _, height in row]
        assert (max(lines) > 1.5 * min(lines)) == (width == 1024), lines    # one label wraps at 1,024 px only
        tops = [top for top, _ in row]
        assert max(tops) - min(tops) <= 1, row
    context.close()


# The colour the spec gives a value (the heatmap's rgb, explorer/components/front_end.js; grey where it has
# none, a masked score)
# and the colour drawn near the top left of a few cells of the first panel (clear of any text written in the cell
# and of the gaps), read from the canvas: the cells' image is not transposed or shifted; and, on a chart with
# white lines between its cells, the pixel where the first cell meets the second.
CELL_COLOURS = """root => { const s = root.spec, l = root.layout, c = root.querySelector('canvas');
    const ratio = c.width / l.width, ctx = c.getContext('2d'), z = s.panels[0].z, out = [];
    const at = (x, y) => [...ctx.getImageData(Math.floor(x * ratio), Math.floor(y * ratio), 1, 1).data.slice(0, 3)];
    const want = v => { if (v === null) return [209, 213, 219];
                        let t = Math.max(0, Math.min(1, (v - (s.zmin || 0)) / (s.zmax - (s.zmin || 0))))
                                * (s.stops.length - 1);
                        const i = Math.min(Math.floor(t), s.stops.length - 2), f = t - i;
                        return [0, 1, 2].map(k => Math.round(s.stops[i][k] + f * (s.stops[i + 1][k] - s.stops[i][k]))); };
    for (const [r, k] of [[0, 0], [1, 5], [3, 2], [z.length - 1, z[0].length - 1], [2, z[0].length - 2]])
        out.push([want(z[r][k]), at(l.left + (k + 0.2) * l.cellW, l.top + (r + 0.2) * l.cellH)]);
    const gap = s.gaps ? at(l.left + l.cellW - 0.5, l.top + 0.5 * l.cellH) : null;
    return [out, gap, z.flat().includes(null)]; }"""


def cells_drawn_right(chart) -> tuple[int | None, bool]:
    """Asserts five cells' colours; gives how much lighter (the sum of its channels) the gap's pixel is than the
    first cell (None on a chart without gaps), and whether any cell is masked."""
    cells, gap, masked = chart.evaluate(CELL_COLOURS)
    for want, drawn in cells:
        assert max(abs(a - b) for a, b in zip(want, drawn)) <= 2, (want, drawn)
    return None if gap is None else sum(gap) - sum(cells[0][1]), masked


def test_each_cell_is_drawn_in_its_own_values_colour_where_it_stands(server, page):
    load(page, f"{server}/positional?text=banana")
    assert cells_drawn_right(page.locator(".heatmap", has_text="The position codes added to your characters")) == (
        None, False)
    load(page, f"{server}/masks?text=banana")
    lighter, _ = cells_drawn_right(page.locator(".heatmap", has_text="Causal mask"))
    assert lighter > 90                         # the white line between two cells (blended into the pixels it spans)
    _, masked = cells_drawn_right(page.locator(".heatmap", has_text="Masked scores"))
    assert masked                                                  # grey where a score is −∞


def test_the_position_codes_are_drawn_on_a_signed_scale_and_name_each_cell(server, page):
    load(page, f"{server}/positional?text=banana")
    chart = page.locator(".heatmap", has_text="The position codes added to your characters")
    canvas = chart.locator("canvas")
    assert re.search(r"PE: largest value 1\.000, .*; smallest value -0\.9\d\d", canvas.get_attribute("aria-label"))
    reds, blues = canvas.evaluate("""c => { const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
                                           let r = 0, b = 0; for (let i = 0; i < d.length; i += 4) {
                                               if (d[i] > d[i + 2] + 80) r++; if (d[i + 2] > d[i] + 80) b++; }
                                           return [r, b]; }""")
    assert reds > 500 and blues > 500                  # -1 red and +1 blue, as Plotly's RdBu drew them
    box = canvas.bounding_box()
    canvas.hover(position={"x": box["width"] * 0.5, "y": box["height"] * 0.3})
    tip = chart.locator(".tip")
    expect(tip).to_be_visible()
    assert re.fullmatch(r"PE: source position \d \([a-z⟨/s⟩]+\), dimension \d+ \((sin|cos)\): "
                        r"value -?\d\.\d{3}", tip.inner_text()), tip.inner_text()


# Counts the draws of each canvas: a chart's draw opens with ctx.scale (explorer/components/front_end.js).
COUNT_DRAWS = """() => { window.drawsOf = new Map(); const scale = CanvasRenderingContext2D.prototype.scale;
    CanvasRenderingContext2D.prototype.scale = function (...a) {
        window.drawsOf.set(this.canvas, (window.drawsOf.get(this.canvas) || 0) + 1); return scale.apply(this, a); }; }"""
DRAWS = "canvases => canvases.map(c => window.drawsOf.get(c) || 0)"


def test_a_new_word_draws_each_heatmap_once(server, page):
    """With the page's font in, a new word draws each canvas heatmap once: waiting on document.fonts.ready, which
    then settled at once, drew every cell a second time (Compare tasks 0.486 → 0.436 s without it)."""
    load(page, f"{server}/attention?text=banana")
    page.evaluate("document.fonts.ready.then(() => document.fonts.status)")
    page.evaluate(COUNT_DRAWS)
    type_text(page, "level")
    canvases = page.locator(".heatmap canvas")
    expect(canvases).to_have_count(PAGES["attention"][2])
    page.wait_for_function("n => window.drawsOf.size >= n", arg=canvases.count())
    page.evaluate(PAINTED)
    page.wait_for_timeout(500)
    assert canvases.evaluate_all(DRAWS) == [1] * canvases.count()        # each chart on the page, drawn once


# The colour drawn just outside the left edge of panel p's cells, where a frame goes, halfway down them.
BESIDE_PANEL = """(root, p) => { const l = root.layout, c = root.querySelector('canvas'), ratio = c.width / l.width;
    const x = l.left + (p % l.perRow) * (l.panelWidth + l.gap) - 2, y = Math.floor(p / l.perRow) * l.strip + l.top
        + (l.strip - l.top - l.bottom) / 2;
    const pixel = c.getContext('2d').getImageData(Math.floor(x * ratio), Math.floor(y * ratio), 1, 1);
    return [...pixel.data.slice(0, 3)]; }"""


def test_the_grid_frames_the_head_drawn_large_and_follows_the_radio_buttons(server, page):
    """The grid of every head frames the one the view below draws large (its panel: layer × 4 + head), says so to a
    screen reader, moves the frame when the radio buttons pick another head, with no rerun, and keeps it through a
    new word."""
    load(page, f"{server}/attention?text=banana&kind=Cross&layer=1&head=1")
    grid = page.locator(".heatmap").first
    canvas = grid.locator("canvas")
    dark = lambda rgb: sum(rgb) < 200                              # noqa: E731  the frame's #111827; else white
    assert grid.evaluate("r => r.framed") == 5
    assert dark(grid.evaluate(BESIDE_PANEL, 5)) and not dark(grid.evaluate(BESIDE_PANEL, 7))
    expect(canvas).to_have_attribute("aria-label", re.compile(r"Framed: layer 1, head 1, the head drawn large below"))
    runs = run_mark(page)
    page.get_by_role("radiogroup", name="Head").get_by_role("radio", name="3", exact=True).check()
    expect(canvas).to_have_attribute("aria-label", re.compile(r"Framed: layer 1, head 3, "))
    page.evaluate(PAINTED)
    assert grid.evaluate("r => r.framed") == 7 and run_mark(page) == runs          # drawn with no run of the page
    assert dark(grid.evaluate(BESIDE_PANEL, 7)) and not dark(grid.evaluate(BESIDE_PANEL, 5))
    type_text(page, "kitten")
    assert grid.evaluate("r => r.spec.cols") == list("kitten")     # the new word's grid, drawn anew
    expect(canvas).to_have_attribute("aria-label", re.compile(r"Framed: layer 1, head 3, "))
    assert dark(grid.evaluate(BESIDE_PANEL, 7)) and not dark(grid.evaluate(BESIDE_PANEL, 5))


def test_a_head_picked_after_several_words_draws_each_of_its_charts_once(server, page):
    """Every new word gives the charts that follow the head new data; a pick then draws each of them once, on the
    page, whatever the words before (each word's listener stayed: after ten words a pick drew 11 canvases a
    chart, 10 of them stale), and so does the word after a pick (the head it wrote into the URL)."""
    load(page, f"{server}/attention?text=banana")
    for word in ("kitten", "level", "rotor", "apple"):
        type_text(page, word)
    detail = page.locator(".heatmap").nth(1).locator("canvas")
    drawn = "[...window.drawsOf].map(([canvas, n]) => [canvas.isConnected, n])"
    page.evaluate(COUNT_DRAWS)
    page.get_by_role("radiogroup", name="Head").get_by_role("radio", name="2", exact=True).check()
    expect(detail).to_have_attribute("aria-label", re.compile(r"^Layer \d, head 2 \(left\)"))
    page.evaluate(PAINTED)
    assert page.evaluate(drawn) == [[True, 1]] * 3      # the grid's frame, the head's view and its influence
    page.evaluate("window.drawsOf = new Map()")
    type_text(page, "lemon")
    assert page.evaluate(drawn) == [[True, 1]] * 3      # the new word: each chart once, none with a stale view
    expect(detail).to_have_attribute("aria-label", re.compile(r"^Layer \d, head 2 \(left\)"))


def test_a_heatmap_drawn_before_its_font_arrives_is_drawn_again_with_it(server, browser):
    """A chart measures its labels in the page's font: drawn while that font was still on its way, it is drawn
    again once it has come, so labels are not left measured in a fallback font."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    held = []
    context.route("**/SourceSansVF-*.woff2", lambda route: held.append(route))   # the page's font, held back
    page = context.new_page()
    page.add_init_script(f"({COUNT_DRAWS})()")
    page.goto(f"{server}/attention?text=banana", wait_until="commit")   # "load" would wait for the font too
    page.wait_for_selector("[data-testid='stSidebar'] input", timeout=60_000)
    settle(page)
    canvases = page.locator(".heatmap canvas")
    expect(canvases).to_have_count(PAGES["attention"][2])
    page.evaluate(PAINTED)
    assert held and canvases.evaluate_all(DRAWS) == [1] * canvases.count()   # drawn once, in a fallback font
    for route in held:
        route.continue_()
    page.wait_for_function("() => document.fonts.check('16px \"Source Sans\"')")
    page.wait_for_function(f"() => [...window.drawsOf.values()].filter(n => n === 2).length >= {canvases.count()}")
    assert canvases.evaluate_all(DRAWS) == [2] * canvases.count()        # and again once the font had come
    context.close()


@pytest.mark.parametrize("name", list(LINKS))
def test_every_pages_link_keeps_its_whole_view(server, browser, name):
    """Streamlit drops a bound parameter from the URL when it is invalid or equals the default, so a link that
    is unchanged after the page has run was taken whole (tests/app/test_links.py checks each widget's value)."""
    query, _ = LINKS[name]
    link = f"{server}/{name.replace('_', '-') if name != 'home' else ''}?{urlencode(query, doseq=True)}"
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    load(page, link, timeout=120_000)
    assert page.locator("[data-testid='stException']").count() == 0
    assert parse_qs(urlparse(page.url).query) == {k: v if isinstance(v, list) else [v] for k, v in query.items()}
    context.close()


@pytest.mark.parametrize("typed", [
    "<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "**bold**", "$x$", "<b>x</b>",
])
def test_markup_in_the_input_is_shown_literally_and_runs_nothing(server, page, typed):
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    load(page, f"{server}/attention")
    type_text(page, typed)
    expect(page.get_by_test_id("stText").get_by_text(typed, exact=True)).to_be_visible()
    expect(page.get_by_test_id("stAlertContentError")).to_contain_text("cannot read")
    assert page.locator("img[src='x']").count() == 0
    assert page.locator("[data-testid='stMain'] b, [data-testid='stMain'] strong").filter(has_text="bold").count() == 0
    assert dialogs == []
    assert page.locator("[data-testid='stException']").count() == 0


def test_the_lesson_walks_by_keyboard_grades_a_wrong_then_right_answer_and_its_step_link_opens_elsewhere(
        server, browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    load(page, f"{server}/lesson?text=banana", timeout=120_000)
    main = page.get_by_test_id("stMain")
    expect(main.get_by_text("Step 1 of 13", exact=False)).to_be_visible()
    expect(main.get_by_role("button", name=re.compile("Next"))).to_be_enabled()     # its key is listened for
    for number in range(2, 14):                                   # → alone, from the first step to the last
        with run_ends(page, timeout=120_000):
            page.keyboard.press("ArrowRight")
        expect(main.get_by_text(f"Step {number} of 13", exact=False)).to_be_visible()
        assert f"lesson_step={number}" in page.evaluate("location.href")   # page.url lags history.replaceState
    for number in (12, 11, 10, 9, 8, 7, 6):                       # ← back to the cross-attention step
        with run_ends(page):
            page.keyboard.press("ArrowLeft")
        expect(main.get_by_text(f"Step {number} of 13", exact=False)).to_be_visible()
    assert page.locator("[data-testid='stException']").count() == 0
    from explorer.cache import BUNDLED_CHECKPOINT
    from explorer.lesson import question
    asked = question(6, str(BUNDLED_CHECKPOINT), "banana")        # the model's own answer, as the page grades it
    right = asked.answer
    wrong = next(option for option in asked.options if option != right)
    with run_ends(page):
        main.get_by_role("radio", name=wrong, exact=True).click()
    with run_ends(page):
        main.get_by_role("button", name="Check my answer").click()
    expect(page.get_by_test_id("stAlertContentWarning")).to_contain_text("Not quite")
    with run_ends(page):
        main.get_by_role("radio", name=right, exact=True).click()
    with run_ends(page):
        main.get_by_role("button", name="Check my answer").click()
    expect(page.get_by_test_id("stAlertContentSuccess")).to_contain_text(f"Right: {right}")
    expect(page.locator(".heatmap canvas")).to_have_count(1)      # the cross-attention, revealed
    link = page.evaluate("location.href")
    context.close()
    other = browser.new_context(viewport={"width": 1400, "height": 1000})
    fresh = other.new_page()
    load(fresh, link)
    expect(fresh.get_by_test_id("stMain").get_by_text("Step 6 of 13 · Cross-attention")).to_be_visible()
    assert fresh.get_by_role("textbox", name="Your text").input_value() == "banana"
    assert fresh.get_by_test_id("stAlertContentSuccess").count() == 0  # the answer is not in the link
    other.close()


def test_build_a_head_asks_first_then_shows_what_the_pattern_did_by_keyboard_and_mouse(server, page):
    """Predict first: nothing of the outcome is on screen until both questions are answered; then the model's
    output with the pattern, the held-out table and the finding, which names the pattern and where it went."""
    query = urlencode({"text": "banana", "patch_pattern": "the ideal mirror (n−1−i), the task's own pattern",
                       "patch_where": "every head of the last layer (L1)"})
    load(page, f"{server}/lab-patch?{query}", timeout=180_000)
    expect(page.locator(".heatmap canvas")).to_have_count(PAGES["lab-patch"][2])   # the maps with and without
    main = page.get_by_test_id("stMain")
    expect(main.get_by_text("Answer both questions to see what the model does.")).to_be_visible()
    assert main.get_by_text("What happened").count() == 0
    with run_ends(page):
        main.get_by_role("radiogroup").first.get_by_text("yes", exact=True).click()   # a horizontal radio's label
    assert main.get_by_text("What happened").count() == 0          # one answer is not enough
    main.get_by_role("radio", name=re.compile("stay near its normal value")).focus()
    with run_ends(page, timeout=180_000):
        page.keyboard.press("Space")                               # the second answer by keyboard
    expect(main.get_by_text("What happened")).to_be_visible()
    expect(main.get_by_text("You answered yes", exact=False)).to_be_visible()
    expect(main.get_by_test_id("stDataFrame")).to_have_count(1)
    finding = main.get_by_text(re.compile(r"in place of every cross head of layer 1, .*\d+\.\d%"))
    expect(finding).to_be_visible()
    assert page.locator("[data-testid='stException']").count() == 0
    screenshot(page, "lab-patch-revealed")


def test_the_arrow_keys_step_the_decoding_from_a_links_step(server, page):
    load(page, f"{server}/decode?text=attention&step=3")
    values = page.locator(".decode .metric .value")
    expect(values.nth(0)).to_have_text("⟨s⟩ n o i")
    mark = run_mark(page)
    page.keyboard.press("ArrowLeft")
    page.wait_for_function("() => new URL(location.href).searchParams.get('step') === '2'")
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    page.wait_for_function("() => new URL(location.href).searchParams.get('step') === '5'")
    expect(values.nth(2)).to_have_text("noitne")  # steps 0-5 written
    assert run_mark(page) == mark                   # every step drawn in the browser
    # the step's tables and bars followed it; hover (a tooltip) names every cell and bar
    main = page.get_by_test_id("stMain")
    expect(main.get_by_text("Cross-attention at step 5, layer 1, every head (head 0 outlined)")).to_be_visible()
    cells = main.locator("td[title*='source position']")
    assert cells.count() == 4 * len("attention")                                # every head x every source position
    assert re.fullmatch(r"head 0, source position 0 \(a\): weight \d\.\d{3}", cells.first.get_attribute("title"))
    cross = main.locator(".strip-weights").first
    assert cross.locator("tr:last-child th").all_inner_texts()[1:] == [str(c) for c in range(9)]   # each position
    assert re.fullmatch(r"\d\.\d\d", cells.first.inner_text())                      # 9 columns: values written
    # each cell's type, as drawn, reaches 4.5 : 1 on its colour (white type on weights above 0.5 reached 3-4.4)
    assert max(float(cell.get_attribute("data-value")) for cell in cells.all()) > 0.5
    assert min(cells.evaluate_all(CELL_CONTRASTS)) >= 4.5
    outlined = main.locator(".strip-weights tr[style*='outline']")
    assert [row.get_attribute("data-row") for row in outlined.all()] == ["head 0", "head 0"]   # cross and self
    bars = main.locator("div[data-series='chosen']")
    assert bars.count() == 1 and bars.first.get_attribute("title").startswith("token e: probability")   # step 5 writes the e of noitne
    # the keys and values step 5 reads, built when asked: rows 0-5, the last computed now
    page.get_by_text(re.compile("Show what self-attention reads at step 5")).click()
    keys = main.locator(".strip-values", has_text="Keys, layer 1, head 0").locator("tr[data-row]")
    expect(keys).to_have_count(6)           # built after the click (all() alone read none, once, in a clean clone)
    assert [row.get_attribute("data-row") for row in keys.all()] == [
        "0: ⟨s⟩ (kept)", "1: n (kept)", "2: o (kept)", "3: i (kept)", "4: t (kept)", "5: n (new)"]
    page.keyboard.press("Escape")
    page.evaluate("document.activeElement && document.activeElement.blur()")
    page.keyboard.press("ArrowRight")                                           # the open tables follow the step
    expect(keys).to_have_count(7)
    # in the text box the arrow keys move the cursor, not the step
    page.get_by_role("textbox", name="Your text").focus()
    page.keyboard.press("ArrowLeft")
    page.wait_for_timeout(300)
    assert new_url_step(page) == "6" and run_mark(page) == mark


def new_url_step(page) -> str | None:
    return page.evaluate("new URL(location.href).searchParams.get('step')")


def test_decodes_step_outlives_another_head_and_a_new_word(server, page):
    """The browser keeps the step: a rerun of the page's part (another head) draws the same step, a new word draws
    it too, or the new word's last step where the word is shorter. Another head draws where the steps looked again,
    and leaves what they read and chose, which no head changes, as it was."""
    load(page, f"{server}/decode?text=attention&step=7")
    values = page.locator(".decode .metric .value")
    expect(values.nth(0)).to_have_text("⟨s⟩ n o i t n e t")
    step_drawn = values.nth(0).element_handle()
    looked_drawn = page.locator(".decode h2", has_text="key/value cache").element_handle()
    page.get_by_test_id("stMain").get_by_role("combobox", name=re.compile("^Head")).click()
    with run_ends(page, "fragment"):
        page.keyboard.type("2")
        page.keyboard.press("Enter")
    expect(page.get_by_text("Cross-attention at step 7, layer 1, every head (head 2 outlined)")).to_be_visible()
    expect(values.nth(0)).to_have_text("⟨s⟩ n o i t n e t")
    assert step_drawn.evaluate("node => node.isConnected")                   # not drawn again
    assert not looked_drawn.evaluate("node => node.isConnected")             # drawn again, for head 2
    type_text(page, "level")                                           # 6 steps: the last is step 5
    expect(values.nth(0)).to_have_text("⟨s⟩ l e v e l")
    assert new_url_step(page) == "5"
    assert page.get_by_text("could not be used").count() == 0          # the kept step is no bad link
    type_text(page, "the quick brown fox")                            # 19 columns: every fifth numbered
    expect(values.nth(0)).to_have_text("⟨s⟩ x o f ␣ n")
    cross = page.locator(".strip-weights").first
    assert cross.locator("tr:last-child th").all_inner_texts()[1:] == [
        str(c) if c % 5 == 0 else "" for c in range(19)]
    assert set(cross.locator("td").all_inner_texts()) == {""}          # too narrow for values: in the tooltips


def test_switching_the_task_switches_every_page(server, page):
    """Sort chosen in the sidebar: the URL keeps it, and every page shows the sorter's answer and speaks of sorting."""
    load(page, server)
    type_text(page, "banana")
    with run_ends(page, "whole"):   # the URL changes before the run starts: the run is counted from the click
        page.get_by_test_id("stSidebar").get_by_text("sort", exact=True).click()
        page.wait_for_function("() => new URL(location.href).searchParams.get('task') === 'sort'")
    sidebar = page.get_by_test_id("stSidebar")
    expect(sidebar.get_by_text("aaabnn", exact=True)).to_be_visible()
    expect(sidebar.get_by_text("task: sort the characters", exact=False)).to_be_visible()
    for path, (label, charts, _, plotlys) in PAGES.items():
        # the sorter's tables are read from tables.json (computed, up to 90 s, if stale)
        with run_ends(page, "whole", timeout=180_000):
            sidebar.get_by_role("link", name=label, exact=True).click()
        page.wait_for_function("p => location.pathname.endsWith('/' + p)", arg=path)
        if path != "how-it-reverses":   # built on the reversal model: under sort it draws nothing
            wait_for_charts(page, charts)
            expect(page.locator("[data-testid='stPlotlyChart']:has(.main-svg)")).to_have_count(plotlys)
        assert page.locator("[data-testid='stException']").count() == 0, path
        assert "task=sort" in page.evaluate("location.href"), path
        expect(sidebar.get_by_text("aaabnn", exact=True)).to_be_visible()
        if path == "how-it-reverses":
            expect(page.get_by_text("built on the reversal model", exact=False)).to_be_visible()
        if path == "lesson":   # the lesson is asked of the sorter itself
            expect(page.get_by_role("heading", name="Lesson: how a Transformer sorts your text",
                                    exact=False)).to_be_visible()
        if path == "attention":
            expect(page.get_by_text("falls on the sorted order", exact=False)).to_be_visible()
        if path == "":
            expect(page.get_by_test_id("stMetricValue").nth(1)).to_have_text("aaabnn")
    screenshot(page, "how-it-reverses-under-sort")


DRAWN = """els => els.map(e => ({title: e.title, row: e.dataset.row, token: e.dataset.token, series: e.dataset.series,
    value: e.dataset.value === undefined ? null : Number(e.dataset.value), dark: e.classList.contains("on-dark"),
    text: e.textContent, colour: getComputedStyle(e).backgroundColor, height: e.style.height,
    outline: e.style.outline}))"""


def draw_decode(page, data: list[dict]) -> None:
    """Decode's steps (explorer/components/front_end.js) on their own, given each part's data (in #step and #looked)."""
    from explorer.components import _DECODE_JS
    page.set_content('<div id="step"><div class="decode"></div></div><div id="looked"><div class="decode"></div></div>')
    page.add_script_tag(type="module",
                        content=re.sub(r"export default (\w+);", r"window.drawDecode = \1;", _DECODE_JS))
    page.wait_for_function("() => window.drawDecode")
    for part in data:
        page.evaluate("""data => window.drawDecode({parentElement: document.getElementById(data.part),
                                                  data: new TextEncoder().encode(JSON.stringify(data))})""", part)


def same_drawing(one: list[dict], other: list[dict]) -> None:
    """Two lists of drawn elements alike: the same names, tooltips and text; values and colours up to a float32's
    last digit and a colour channel's rounding."""
    assert len(one) == len(other) > 0
    for a, b in zip(one, other):
        assert {k: a[k] for k in ("title", "row", "token", "series", "dark", "text", "outline")} == {
            k: b[k] for k in ("title", "row", "token", "series", "dark", "text", "outline")}
        assert (a["value"] is None) == (b["value"] is None)
        if a["value"] is not None:
            assert a["value"] == pytest.approx(b["value"], rel=1e-6, abs=1e-12)
        channels = [[float(c) for c in re.findall(r"[\d.]+", x["colour"])] for x in (a, b)]
        assert np.allclose(*channels, atol=1)
        assert bool(a["height"]) == bool(b["height"])
        if a["height"]:
            assert float(a["height"].removesuffix("rem")) == pytest.approx(float(b["height"].removesuffix("rem")),
                                                                           abs=0.0011)


HOSTILE = '<img src=x onerror=alert(1)>"\'&'


def test_a_table_of_cells_colours_by_sign_keeps_every_value_and_escapes_every_word(page):
    """The vector tables of explorer/components/front_end.js on their own: white at 0, full red and blue at ±the
    largest |value|, each value in data-value and written to two places, the outlined and the ruled rows, and
    names, titles and column words that are markup written as text."""
    from explorer.components import _VECTOR_ROWS_JS
    from viz.strips import NEGATIVE, POSITIVE, vector_rows_spec

    page.set_content("<div></div>")
    draw_alone(page, _VECTOR_ROWS_JS, "cells", vector_rows_spec(
        [np.array([-2.0, 0.0]), np.array([2.0, 0.25])], [HOSTILE, "k"], title=HOSTILE, outlined=1, ruled=1,
        column_name=HOSTILE))
    assert page.locator("img").count() == 0                                  # the markup is text, run nowhere
    cells = page.eval_on_selector_all("#cells td", DRAWN)
    assert [c["value"] for c in cells] == [-2.0, 0.0, 2.0, 0.25]
    assert [c["text"] for c in cells] == ["-2.00", "0.00", "2.00", "0.25"]
    assert [c["colour"] for c in cells[:3]] == [f"rgb({r}, {g}, {b})" for r, g, b in (NEGATIVE, (247, 247, 247),
                                                                                      POSITIVE)]
    assert cells[0]["title"] == f"{HOSTILE}, {HOSTILE} 0: -2.0000"
    assert page.locator("#cells [role=region]").get_attribute("aria-label") == HOSTILE
    rows = page.locator("#cells tr[data-row]")
    assert [rows.nth(r).get_attribute("data-row") for r in range(2)] == [HOSTILE, "k"]
    assert "outline" in rows.nth(1).get_attribute("style") and "outline" not in rows.nth(0).get_attribute("style")
    assert page.locator("#cells [style*='border-top:2px']").count() == 3    # the ruled row: its name and two cells


def test_every_cells_type_reaches_4_5_to_1_on_its_colour(page):
    """axe found white on mid-tone cells of Inside one head's strips at 3.0-4.4 : 1 (white was given past 0.6 of
    the scale, whatever the colour). Over the whole scale, each cell's type as the browser draws it reaches WCAG
    AA's 4.5 : 1 on the cell's background."""
    from explorer.components import _VECTOR_ROWS_CSS, _VECTOR_ROWS_JS
    from viz.strips import vector_rows_spec

    page.set_content(f"<style>{_VECTOR_ROWS_CSS}</style><div class='cells'></div>")
    values = np.linspace(-1.0, 1.0, 401)
    draw_alone(page, _VECTOR_ROWS_JS, "cells", vector_rows_spec([values[:200], values[200:400]], ["a", "b"],
                                                                show_values=True))
    page.evaluate("() => document.querySelector('.cells').append(document.getElementById('cells'))")
    pairs = page.eval_on_selector_all("#cells td", "els => els.map(e => [getComputedStyle(e).color, "
                                                   "getComputedStyle(e).backgroundColor])")
    assert len(pairs) == 400

    def lum(css):
        r, g, b = (int(x) / 255 for x in re.findall(r"\d+", css)[:3])
        r, g, b = (x / 12.92 if x <= 0.04045 else ((x + 0.055) / 1.055) ** 2.4 for x in (r, g, b))
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    worst = min((max(lum(a), lum(b)) + 0.05) / (min(lum(a), lum(b)) + 0.05) for a, b in pairs)
    assert worst >= 4.5, worst


def test_decodes_drawing_escapes_its_labels_and_writes_no_values_in_a_long_vector(page):
    """Decode's steps (explorer/components/front_end.js) on their own, with data no bundled model makes: labels
    that are markup (an uploaded model's vocabulary is not ours to trust) and 32 numbers a key (d_k of an own model
    with one head)."""
    markup = "<img src=x onerror=alert(1)>"
    steps, width = 2, 32
    data = {"part": "looked", "chosen": 1, "show_cache": True, "cache_param": "show_cache", "layer": 0, "head": 0,
            "heads": [markup], "source": [markup, "b"], "decoder_keys": [markup, "a"], "row_labels": [markup, "a"],
            "weight_stops": [[255, 255, 255], [0, 0, 0]], "projector": False, "tick": "0.65rem",
            "row_name_size": "0.75rem",
            "signed": {"negative": [178, 24, 43], "zero": [247, 247, 247], "positive": [33, 102, 172]},
            "keys": [[(d - 16) / 16 for d in range(width)]] * steps, "values": [[0.5] * width] * steps,
            "draft": "<p>draft</p>",
            "views": [{"cross": [[0.25, 0.75]], "self": [[1.0, 0.0]], "cross_sentence": "<p>c</p>",
                       "self_sentence": "<p>s</p>", "reads": "<p>r</p>", "same": "<p>m</p>", "cost": "<p>k</p>"}] * steps}
    draw_decode(page, [data])
    assert page.locator("img").count() == 0                                  # the markup is text, run nowhere
    expect(page.locator("tr[data-row='" + markup + "']").first).to_be_attached()
    assert markup in page.locator(".strip-weights").first.inner_text()
    keys = page.locator(".strip-bare", has_text="Keys, layer 0, head 0")     # 32 numbers: in the tooltips only
    expect(keys).to_have_count(1)
    assert set(keys.locator("td").all_inner_texts()) == {""}
    assert [int(t) for t in keys.locator("tr").first.locator("th").all_inner_texts() if t] == list(range(0, 32, 4))
    assert keys.locator("td").first.get_attribute("title") == f"0: {markup} (kept), dimension 0: -1.0000"
    assert [r.get_attribute("data-row") for r in keys.locator("tr[data-row]").all()] == [
        f"0: {markup} (kept)", "1: a (new)"]


def draw_alone(page, js: str, box: str, data: dict) -> None:
    """A component's code on its own, mounted in a new element `box` (given its data as the page sends it)."""
    name = f"draw_{box}"
    page.evaluate("box => document.body.insertAdjacentHTML('beforeend', `<div id=${box}><div data-markup></div></div>`)",
                  box)
    page.add_script_tag(type="module", content=re.sub(r"export default (\w+);", rf"window.{name} = \1;", js))
    page.wait_for_function(f"() => window.{name}")
    page.evaluate(f"""data => window.{name}({{parentElement: document.getElementById("{box}"),
                                             data: new TextEncoder().encode(JSON.stringify(data))}})""",
                  json.loads(json_bytes(themed(data, False))))


@pytest.mark.parametrize("t, width", [(0, None), (4, None), (4, 32)])
def test_decodes_drawing_in_the_browser_is_its_numbers_and_draws_them_as_the_lesson_and_inside_one_head_do(
        page, t, width):
    """For one step of a real decoding, Decode's bars and key/value tables (explorer/components/front_end.js)
    are the step's numbers, and they are drawn alike by the components the lesson's bars and Inside one head's
    tables come through (nextTokenBarsComponent and vectorRowsComponent, from viz.decode_steps.bars_spec and
    viz.strips.vector_rows_spec): the same bars and cells code, given the same things (they once drifted on long
    vectors as twins). `width`: keys of that many numbers in place of the model's 16 (an own model's d_k), drawn
    without their values."""
    from analysis.page_models.decode import decode_steps, looked_steps
    from analysis.page_models.decode_cache import cache_walk
    from analysis.run import Decoding, make_run
    from explorer.components import _NEXT_TOKEN_JS, _VECTOR_ROWS_JS
    from transformer.checkpoint import bundled_checkpoint, load as load_checkpoint
    from viz.decode_steps import BAR_TOKENS, looked_spec, step_spec
    from viz.decode_steps import bars_spec
    from viz.strips import vector_rows_spec

    ckpt = load_checkpoint(bundled_checkpoint("reverse"))
    run = make_run(ckpt.model, ckpt.vocab, "attention")
    steps = decode_steps(run, ckpt.vocab)
    walk = cache_walk(ckpt.model, run, 1, 2)
    looked = looked_steps(run, make_run(ckpt.model, ckpt.vocab, "attention", how=Decoding(teacher=True)), 1, 2)
    data = [step_spec(steps, t, "step"), looked_spec(looked, walk, 4, t, True, "show_cache")]
    if width:
        data[1]["keys"] = np.random.default_rng(0).normal(size=(len(steps), width)).astype(np.float32)
    data = [json.loads(json_bytes(themed(part, False))) for part in data]   # as the page sends them
    step, keys = steps[t], np.array(data[1]["keys"][: t + 1], dtype=float)
    draw_decode(page, data)
    drawn = page.eval_on_selector_all("#step .bars div[data-token]", DRAWN)
    top = np.argsort(-np.asarray(step.probs), kind="stable")[:BAR_TOKENS]
    assert [bar["token"] for bar in drawn] == [step.labels[i] for i in top]
    assert [bar["value"] for bar in drawn] == pytest.approx([float(step.probs[i]) for i in top], rel=1e-6)
    assert [bar["series"] for bar in drawn] == ["chosen" if i == step.chosen_id else "" for i in top]
    draw_alone(page, _NEXT_TOKEN_JS, "bars", bars_spec(step.probs, step.labels, BAR_TOKENS, step.chosen_id,
                                                       f"Next-token distribution at step {t}"))
    same_drawing(drawn, page.eval_on_selector_all("#bars div[data-token]", DRAWN))
    assert (page.locator("#step .bars [role=img]").get_attribute("aria-label")
            == page.locator("#bars [role=img]").get_attribute("aria-label"))

    table = ".strip-bare" if width else ".strip-values"           # the keys' table, the first of the cache's two
    cells = page.eval_on_selector(f"#looked {table}", f"box => ({DRAWN})([...box.querySelectorAll('td')])")
    assert [c["value"] for c in cells] == pytest.approx(keys.ravel().tolist(), rel=1e-6)
    names = [f"{r}: {walk.row_labels[r]} {'(new)' if r == t else '(kept)'}" for r in range(t + 1)]
    draw_alone(page, _VECTOR_ROWS_JS, "cells", vector_rows_spec(list(keys), names, "Keys, layer 1, head 2", outlined=t))
    for selector in ("td", "tr[data-row]"):
        same_drawing(*(page.eval_on_selector(f"{side} {table}", f"(box, s) => ({DRAWN})([...box.querySelectorAll(s)])",
                                             selector) for side in ("#looked", "#cells")))
    assert (page.locator(f"#looked {table}").first.locator("th").all_inner_texts()
            == page.locator(f"#cells {table} th").all_inner_texts())
    assert page.locator(f"#looked {table}").first.inner_text() == page.locator(f"#cells {table}").inner_text()


def test_on_a_phone_the_arrow_keys_scroll_a_wide_table_of_decode_not_the_step(server, browser):
    page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    load(page, f"{server}/decode?text=attention&step=3&show_cache=true")    # a link may open the cache's tables
    keys = page.locator(".strip-values", has_text="Keys, layer 1, head 0")
    expect(keys.locator("tr[data-row]")).to_have_count(4)
    assert keys.evaluate("box => box.scrollWidth > box.clientWidth")       # 16 numbers a row: wider than a phone
    keys.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function("box => box.scrollLeft > 0", arg=keys.element_handle())
    assert new_url_step(page) == "3"
    page.context.close()
