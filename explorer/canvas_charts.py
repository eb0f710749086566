"""The canvas heatmap as a Streamlit component (st.components.v2: no iframe, in its own shadow DOM)."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

_JS = (Path(__file__).parent / "components" / "heatmap.js").read_text()
_CSS = """
.heatmap { position: relative; font-family: "Source Sans Pro", sans-serif; }
.heatmap .title { font-weight: 600; margin-bottom: 4px; }
.heatmap canvas:focus { outline: 3px solid #1d4ed8; outline-offset: 2px; }
.heatmap .tip { display: none; position: absolute; background: #111827; color: white; padding: 4px 8px;
                border-radius: 4px; font-size: 0.85rem; pointer-events: none; max-width: 22rem; z-index: 1; }
.heatmap .hint { font-size: 0.8rem; color: #4b5563; }
.heatmap .said { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
"""
_HTML = '<div class="heatmap"></div>'


def canvas_heatmap(spec: dict, key: str, container=None) -> None:
    """Draw a viz.canvas_heatmap spec (in `container`, else where the page is); `key` names it for the tests, as
    a chart's key does. Registered at each call: the registry belongs to the runtime, which AppTest makes anew
    (the same definition again is silent)."""
    mount = st.components.v2.component("canvas_heatmap", js=_JS, css=_CSS, html=_HTML)
    if container is None or container is st:       # the page itself, as the lesson passes it
        mount(data=spec, key=key)
    else:
        with container:
            mount(data=spec, key=key)
