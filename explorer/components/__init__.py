"""The canvas heatmap, SVG diagrams, the numbers under a Plotly chart and the tables of coloured cells as
Streamlit components (st.components.v2: no iframe, each in its own shadow DOM).

Projector mode is applied here, once for every chart: a spec (or one of its `views`) may carry, under PROJECTED,
the values it takes in projector mode (viz.canvas_heatmap.ON_PROJECTOR), and they replace its own when the
session's switch (PROJECTOR_KEY) is on. Markup charts follow the page's type, which the switch enlarges, and the
CSS variables its style sets (explorer.charts.PROJECTOR_CSS)."""

from __future__ import annotations

from pathlib import Path

import orjson
import streamlit as st

_HERE = Path(__file__).parent
PROJECTOR_KEY = "projector"          # the session's switch (explorer.charts draws it)
PROJECTED = "on_projector"           # a spec's values in projector mode (viz.canvas_heatmap.ON_PROJECTOR)
_FRONT_END = (_HERE / "front_end.js").read_text()    # every component's drawing code, in one module


def _entry(name: str) -> str:
    """The module a component loads: the whole front end, its default export the function `name` of it."""
    return f"{_FRONT_END}\nexport default {name};\n"


_JS = _entry("heatmapComponent")
# The page's own font: Streamlit 1.67 names it "Source Sans" (1.65 "Source Sans Pro", which no longer loads), and
# a chart asking for the old name alone had its title, hint and tooltip drawn in the system's Liberation Sans.
_CSS = (_HERE / "heatmap.css").read_text()
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
    payload = json_bytes(themed(data, bool(st.session_state.get(PROJECTOR_KEY, False))))
    if container is None or container is st:
        mount(data=payload, key=key)
    else:
        with container:
            mount(data=payload, key=key)


def themed(data: dict, projector: bool) -> dict:
    """`data` as drawn: each PROJECTED block taken out, and in projector mode put over the values it names (in
    place, so the keys keep their order). Only the spec and its views are looked at: never the matrices."""
    def one(spec):
        if not isinstance(spec, dict) or PROJECTED not in spec:
            return spec
        drawn = {key: value for key, value in spec.items() if key != PROJECTED}
        if projector:
            drawn.update(spec[PROJECTED])
        return drawn

    data = one(data)
    views = data.get("views")
    if isinstance(views, list) and any(isinstance(v, dict) and PROJECTED in v for v in views):
        data = {**data, "views": [one(v) for v in views]}
    return data


def json_bytes(data: dict) -> bytes:
    """A chart's data as standard JSON (NaN as null, which the browser's parser takes; numpy numbers as numbers)."""
    return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS | orjson.OPT_SERIALIZE_NUMPY)


# Markup built in viz (every label escaped there, html.escape) written into a component's one element as it is:
# SVG diagrams and the numbers under a Plotly chart.
_MARKUP_JS = _entry("markupComponent")


def _markup(name: str, css_class: str, css: str, markup: str, key: str | None, container) -> None:
    """`markup` in the element of class `css_class` of the component `name`, styled by `css`."""
    html = f'<div class="{css_class}" data-markup></div>'
    mount_with_data(st.components.v2.component(name, js=_MARKUP_JS, css=css, html=html), {"markup": markup}, key,
                    container)


# Streamlit's st.html keeps HTML and drops SVG, so a diagram (viz.architecture) comes through a component of its
# own.
_SVG_CSS = (_HERE / "svg_chart.css").read_text()


def svg_chart(markup: str, key: str, container=None) -> None:
    """Draw an SVG diagram's markup (in `container`, else where the page is); `key` names it for the tests."""
    _markup("svg_chart", "svg-chart", _SVG_CSS, markup, key, container)


def chart_numbers(markup: str, key: str, container=None) -> None:
    """A Plotly chart's summary and numbers table (viz.plotly_charts.Chart.numbers_html), under it."""
    _markup("chart_numbers", "svg-chart", _SVG_CSS, markup, key, container)


# Tables of coloured cells (viz.strips.vector_rows_spec), drawn in the browser by front_end.js as Decode's keys
# and values are: st.html would pass markup through DOMPurify, 0.12 s of Inside one head's rerun at 48 characters (about
# 1,300 cells) in a Chromium CPU profile, and the numbers alone are a fraction of the markup's bytes.
# As Streamlit's page sets them (its rules do not reach into a shadow DOM): box sizes, and the focus ring of a
# table's box, which Tab reaches to scroll it sideways. On several lines: Streamlit reads a one-line string with a *
# in it as a file's name.
_VECTOR_ROWS_JS = _entry("vectorRowsComponent")
_VECTOR_ROWS_CSS = (_HERE / "vector_rows.css").read_text()


def _drawn(name: str, css_class: str, js: str, css: str, spec: dict, key: str | None, container) -> None:
    """A component that writes its drawing into its one element (class `css_class`, marked data-markup, which it
    marks data-drawn once filled: the browser tests wait for it)."""
    html = f'<div class="{css_class}" data-markup></div>'
    mount_with_data(st.components.v2.component(name, js=js, css=css, html=html), spec, key, container)


def vector_rows(spec: dict, key: str | None = None, container=None) -> None:
    """Draw a viz.strips.vector_rows_spec table (in `container`, else where the page is)."""
    _drawn("vector_rows", "cells", _VECTOR_ROWS_JS, _VECTOR_ROWS_CSS, spec, key, container)


# Decode step by step's two parts (viz.decode_steps), stepped in the browser. As Streamlit's page draws its own:
# metrics, captions, a table, buttons and headers (its rules do not reach into a shadow DOM).
_DECODE_JS = _entry("decodeStepsComponent")
_DECODE_CSS = (_HERE / "decode_steps.css").read_text()


def decode_part(spec: dict, key: str) -> None:
    """Draw one part of Decode step by step (viz.decode_steps: "step" or "looked")."""
    html = '<div class="decode"></div>'
    mount_with_data(st.components.v2.component("decode_steps", js=_DECODE_JS, css=_DECODE_CSS, html=html), spec, key,
                    None)


_NEXT_TOKEN_JS = _entry("nextTokenBarsComponent")
_NEXT_TOKEN_CSS = (_HERE / "next_token_bars.css").read_text()


def next_token_bars(spec: dict, key: str | None = None, container=None) -> None:
    """Draw one step's next-token bars (viz.decode_steps.bars_spec) with the code that draws Decode's."""
    _drawn("next_token_bars", "next-token-bars", _NEXT_TOKEN_JS, _NEXT_TOKEN_CSS, spec, key, container)
