"""The canvas heatmap, the small SVG charts and the tables of coloured cells as Streamlit components
(st.components.v2: no iframe, each in its own shadow DOM)."""

from __future__ import annotations

from pathlib import Path

import orjson
import streamlit as st

_COMPONENTS = Path(__file__).parent / "components"
_VIEWS_JS = (_COMPONENTS / "views.js").read_text()     # what both switching components keep, before their own code
_JS = _VIEWS_JS + (_COMPONENTS / "heatmap.js").read_text()
# The page's own font: Streamlit 1.67 names it "Source Sans" (1.65 "Source Sans Pro", which no longer loads), and
# a chart asking for the old name alone had its title, hint and tooltip drawn in the system's Liberation Sans.
_CSS = """
.heatmap { position: relative; font-family: "Source Sans", "Source Sans Pro", sans-serif; }
.heatmap .title { font-weight: 600; margin-bottom: 4px; }
.heatmap canvas:focus { outline: 3px solid #1d4ed8; outline-offset: 2px; }
.heatmap .tip { display: none; position: absolute; background: #111827; color: white; padding: 4px 8px;
                border-radius: 4px; font-size: 0.85rem; pointer-events: none; max-width: 22rem; z-index: 1; }
.heatmap .hint { font-size: 0.8rem; color: #4b5563; }
.heatmap .said { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
.heatmap .numbers summary { cursor: pointer; font-size: 0.85rem; color: #1d4ed8; }
.heatmap .numbers summary:focus-visible { outline: 3px solid #1d4ed8; outline-offset: 2px; }
.heatmap .table-box { overflow-x: auto; max-height: 24rem; margin: 4px 0 8px; }
.heatmap .numbers table { border-collapse: collapse; font-size: 0.8rem; font-variant-numeric: tabular-nums; }
.heatmap .numbers caption { text-align: left; font-weight: 600; }
.heatmap .numbers th, .heatmap .numbers td { border: 1px solid #e5e7eb; padding: 1px 5px; text-align: right; }
.picker fieldset { border: none; margin: 0 0 0.5rem; padding: 0; display: flex; flex-wrap: wrap; gap: 0.4rem; }
.picker legend { font-size: 0.875rem; margin-bottom: 0.3rem; padding: 0; }
.picker label { position: relative; cursor: pointer; }
.picker input { position: absolute; opacity: 0; width: 1px; height: 1px; }
.picker span { display: inline-block; min-width: 2.5rem; text-align: center; padding: 0.25rem 0.9rem;
               border: 1px solid #9ca3af; border-radius: 0.5rem; background: #ffffff; color: #111827; }
.picker input:checked + span { background: #1d4ed8; border-color: #1d4ed8; color: #ffffff; font-weight: 600; }
.picker input:focus-visible + span { outline: 3px solid #1d4ed8; outline-offset: 2px; }
.notes p { margin: 0.5rem 0 1rem; line-height: 1.6; }
.notes a { color: #1d4ed8; }
.notes a:focus-visible, .notes button:focus-visible { outline: 3px solid #1d4ed8; outline-offset: 2px; }
.notes button { font: inherit; font-size: 0.875rem; padding: 0.35rem 0.75rem; border: 1px solid #9ca3af;
                border-radius: 0.5rem; background: #ffffff; color: #111827; cursor: pointer; }
"""
_HTML = '<div class="picker"></div><div class="heatmap"></div><div class="notes"></div>'


def canvas_heatmap(spec: dict, key: str, container=None) -> None:
    """Draw a viz.canvas_heatmap spec (in `container`, else where the page is); `key` names it for the tests, as
    a chart's key does. Registered at each call: the registry belongs to the runtime, which AppTest makes anew
    (the same definition again is silent)."""
    mount_with_data(st.components.v2.component("canvas_heatmap", js=_JS, css=_CSS, html=_HTML), spec, key, container)


def switched_heatmaps(views: list[dict], notes: list[str], key: str, group: str, chosen: int,
                      picker: str | None = None, view_names: list[str] | None = None, param: str | None = None,
                      csv: list[str] | None = None, links: str | None = None) -> None:
    """One canvas heatmap with several views (viz.canvas_heatmap specs), switched in the browser with no rerun:
    every call with the same `group` follows the radio buttons that the call with `picker` (their legend,
    `view_names` their labels) draws, which keep the choice in the URL as `param`. `notes`: each view's HTML
    (viz.notes), `csv` what its download button saves; a plain click on its page link clicks the view's own
    st.page_link in the container keyed `links` (one a view, in order). Starts at view `chosen`."""
    data = {"views": views, "notes": notes, "group": group, "chosen": chosen, "picker": picker,
            "view_names": view_names, "param": param, "csv": csv, "links": links}
    mount_with_data(st.components.v2.component("canvas_heatmap", js=_JS, css=_CSS, html=_HTML), data, key, None)


def mount_with_data(mount, data: dict, key: str, container) -> None:
    """A component's mount with its data, in `container` (None or st: the page itself, as the lesson passes it).
    The data goes as JSON bytes written once here, which the browser parses as it parsed Streamlit's JSON: given
    a dict, Streamlit wrote it out twice a run (once to send, once with sorted keys to name the element) and
    scanned it for dataframes, 4 % of a busy server's time (py-spy under benchmarks.classroom); bytes it sends
    as they are and names by their hash. orjson writes them 5 times faster than json.dumps (1.29 → 0.25 ms for two
    48 × 64 panels: a quarter of Positional encoding's rerun), the same numbers (shortest round-trip forms)."""
    payload = json_bytes(data)
    if container is None or container is st:
        mount(data=payload, key=key)
    else:
        with container:
            mount(data=payload, key=key)


def json_bytes(data: dict) -> bytes:
    """A chart's data as standard JSON (NaN as null, which the browser's parser takes; numpy numbers as numbers)."""
    return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS | orjson.OPT_SERIALIZE_NUMPY)


# Markup built in viz (every label escaped there, html.escape) written into a component's one element as it is:
# the small SVG charts and the tables of coloured cells.
_MARKUP_JS = """export default function (component) {
  const data = JSON.parse(new TextDecoder().decode(component.data));
  const box = component.parentElement.querySelector("[data-markup]");
  box.innerHTML = data.markup;
  box.dataset.drawn = "";  // for the tests: the markup is in (the module loads after the run has ended)
}"""


def _markup(name: str, css_class: str, css: str, markup: str, key: str | None, container) -> None:
    """`markup` in the element of class `css_class` of the component `name`, styled by `css`."""
    html = f'<div class="{css_class}" data-markup></div>'
    mount_with_data(st.components.v2.component(name, js=_MARKUP_JS, css=css, html=html), {"markup": markup}, key,
                    container)


# Streamlit's st.html keeps HTML and drops SVG, so the small charts of viz.svg_charts come through a component of
# their own.
_SVG_CSS = """
.svg-chart { font-family: "Source Sans", "Source Sans Pro", sans-serif; }
.svg-chart .numbers summary { cursor: pointer; font-size: 0.85rem; color: #1d4ed8; }
.svg-chart .numbers summary:focus-visible { outline: 3px solid #1d4ed8; outline-offset: 2px; }
.svg-chart .table-box { overflow-x: auto; max-height: 24rem; margin: 4px 0 8px; }
.svg-chart .numbers table { border-collapse: collapse; font-size: 0.8rem; font-variant-numeric: tabular-nums; }
.svg-chart .numbers th, .svg-chart .numbers td { border: 1px solid #e5e7eb; padding: 1px 5px; text-align: right; }
"""


def svg_chart(markup: str, key: str, container=None) -> None:
    """Draw a viz.svg_charts chart (in `container`, else where the page is); `key` names it for the tests."""
    _markup("svg_chart", "svg-chart", _SVG_CSS, markup, key, container)


# Tables of coloured cells (viz.strips) come through a component too: st.html passes its markup through
# DOMPurify in the browser, 0.12 s of Inside one head's rerun at 48 characters (about 1,300 cells, each with its
# tooltip and value) in a Chromium CPU profile.
# As Streamlit's page sets them (its rules do not reach into a shadow DOM): box sizes, and the focus ring of a
# table's box, which Tab reaches to scroll it sideways. On several lines: Streamlit reads a one-line string with a *
# in it as a file's name.
_CELLS_CSS = """
.cells *, .cells *::before,
.cells *::after { box-sizing: border-box; }
.cells [tabindex]:focus-visible { outline: 3px solid #1d4ed8; outline-offset: 2px; }
"""


def cell_table(markup: str, key: str | None = None, container=None) -> None:
    """Draw a viz.strips table (in `container`, else where the page is); the tests find it by its title."""
    _markup("cell_table", "cells", _CELLS_CSS, markup, key, container)


# Decode step by step's two parts (viz.decode_steps), stepped in the browser. As Streamlit's page draws its own:
# metrics, captions, a table, buttons and headers (its rules do not reach into a shadow DOM).
_DECODE_JS = _VIEWS_JS + (_COMPONENTS / "decode_steps.js").read_text()
_DECODE_CSS = """
.decode *, .decode *::before,
.decode *::after { box-sizing: border-box; }
.decode { font-family: "Source Sans", "Source Sans Pro", sans-serif; line-height: 1.6; }
.decode .buttons { display: grid; grid-template-columns: repeat(4, 1fr); gap: 1rem; }
.decode button { font: inherit; font-size: 0.875rem; line-height: 1.6; min-height: 2.5rem; padding: 0.25rem 0.75rem;
                 border: 1px solid rgba(17, 24, 39, 0.2); border-radius: 0.5rem; background: #ffffff; color: #111827;
                 cursor: pointer; }
.decode button:hover { border-color: #1d4ed8; color: #1d4ed8; }
.decode button[aria-disabled="true"] { color: rgba(17, 24, 39, 0.4); border-color: rgba(17, 24, 39, 0.2);
                                       cursor: not-allowed; }
.decode button:focus-visible, .decode input:focus-visible, .decode summary:focus-visible,
.decode [tabindex]:focus-visible { outline: 3px solid #1d4ed8; outline-offset: 2px; }
.decode .slider { margin-top: 1rem; }
.decode .slider label { display: block; font-size: 0.875rem; margin-bottom: 0.25rem; }
.decode .track { position: relative; padding-top: 1.4rem; }
.decode .track output { position: absolute; top: 0; transform: translateX(-50%); font-size: 0.875rem;
                        color: #1d4ed8; }
.decode input[type=range] { width: 100%; margin: 0; accent-color: #1d4ed8; }
.decode .said { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
.decode .step { display: flex; flex-direction: column; gap: 1rem; margin-top: 1rem; }   /* Streamlit's 1rem */
.decode .metrics { display: grid; grid-template-columns: repeat(3, 1fr); gap: 1rem; }
.decode .metric .label { font-size: 0.875rem; min-height: 1.5rem; }
.decode .metric .value { font-size: 2.25rem; line-height: 1.33; padding-bottom: 0.25rem; overflow: hidden;
                         text-overflow: ellipsis; white-space: nowrap; }
.decode .metric .delta { display: inline-block; font-size: 0.875rem; color: #4b5563; padding: 0.125rem 0.5rem;
                         border-radius: 9999px; background: rgba(49, 51, 63, 0.1); }
.decode .caption { font-size: 0.875rem; color: rgba(17, 24, 39, 0.7); }
.decode p { margin: 0 0 1rem; }
.decode .step .caption p { margin: 0; }                        /* the gap above parts them */
.decode .caption:last-child p { margin-bottom: 0; }
.decode .row { display: grid; grid-template-columns: 1fr 2fr; gap: 1rem; }
.decode .row > div, .decode .metric { min-width: 0; }          /* a wide chart scrolls in its box, not the page */
.decode .table table { border-collapse: separate; border-spacing: 0; width: 100%; font-size: 0.875rem;
                       border: 1px solid rgba(17, 24, 39, 0.1); border-radius: 0.5rem; }
.decode .table th, .decode .table td { text-align: left; padding: 0.25rem 0.375rem; line-height: 1.5;
                                       border-bottom: 1px solid rgba(17, 24, 39, 0.1); }
.decode .table th { font-weight: 400; color: rgba(17, 24, 39, 0.7); }
.decode .table td + td, .decode .table th + th { border-left: 1px solid rgba(17, 24, 39, 0.1); }
.decode .table tr:last-child td { border-bottom: none; }
.decode h2 { font-size: 1.75rem; font-weight: 600; line-height: 1.2; margin: 0; padding: 1rem 0; }
.decode.projector h2 { font-size: 1.2rem; padding: 0.25rem 0; }
.decode summary { cursor: pointer; font-size: 0.875rem; margin-bottom: 1rem; }
.decode .strip-weights, .decode .strip-values, .decode .strip-bare { margin-bottom: 1rem; }
.decode .strip-values td { color: #000000; text-align: center; padding: 2px 3px; min-width: 2.6rem; }
.decode .strip-bare td { color: #000000; text-align: center; padding: 10px 0; min-width: 0; }
.decode .strip-weights td { height: 1.6rem; padding: 0; text-align: center; font-size: 0.8rem; color: #000000; }
.decode td.on-dark { color: white; }
@media (max-width: 640px) {
  .decode .buttons { grid-template-columns: repeat(2, 1fr); }
  .decode .metrics, .decode .row { grid-template-columns: 1fr; }
}
"""


def decode_part(spec: dict, key: str) -> None:
    """Draw one part of Decode step by step (viz.decode_steps: "step" or "looked")."""
    html = '<div class="decode"></div>'
    mount_with_data(st.components.v2.component("decode_steps", js=_DECODE_JS, css=_DECODE_CSS, html=html), spec, key,
                    None)
