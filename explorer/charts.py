"""Projector mode: the learner's switch and the page style it brings, the one place the mode is themed. No chart
builder is told about it: explorer.components puts each spec's projector values (the canvas's larger type and
colour-blind-safe scale) over its own, the HTML drawn in components follows the page's type set here, and
plotly_chart scales a figure's px type. A page asks `projector_on()` only where projector mode lays the page out otherwise (the lesson's
slides, the class's projector view)."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from viz.architecture import GROW_VARIABLE
from viz.plotly_charts import HEIGHT, Chart

from .components import PROJECTOR_KEY, chart_numbers
from .text import escape_markdown

# Type for the back of a hall: a root of 28 px makes the body text (1 rem) 28 px and captions 24.5 px at any
# window size. Headings, which Streamlit sizes up to 2.75 rem, and the frame's margins (a 6 rem top, 5 rem sides)
# would then take the first screen of a 1280×720 projector, so they shrink. Display formulas at the body's size:
# at KaTeX's 1.21 em they ran past the column and scrolled. The architecture diagram keeps the type its boxes were
# laid out for and grows as a whole to the column's width instead (viz.architecture.GROW_VARIABLE): its text spills out
# of no box.
PROJECTOR_CSS = f"""<style>
html {{ font-size: 175%; }}
:root {{ {GROW_VARIABLE}: none; }}
[data-testid="stHeader"] {{ height: 2rem; min-height: 2rem; }}
[data-testid="stMainBlockContainer"] {{ padding: 2rem 0.75rem 3rem; }}
[data-testid="stMain"] h1 {{ font-size: 1.45rem; padding: 0.25rem 0; }}
[data-testid="stMain"] h2 {{ font-size: 1.2rem; padding: 0.25rem 0; }}
[data-testid="stMain"] h3 {{ font-size: 1.05rem; padding: 0.2rem 0; }}
[data-testid="stMain"] h4 {{ font-size: 0.95rem; }}
.katex-display > .katex {{ font-size: 1em; }}
</style>"""


def projector_on() -> bool:
    return bool(st.session_state.get(PROJECTOR_KEY, False))


PROJECTED_TYPE = 1.75   # projector mode's type against the page's, as PROJECTOR_CSS's root size: a Plotly figure
                        # writes its text in px, so it is scaled here


def plotly_chart(chart: Chart, key: str, container=None) -> None:
    """Draw a viz.plotly_charts chart (in `container`, else where the page is): its title above it, its summary
    and numbers under it; in projector mode its type, its height and the room for its legend grow as the page's
    type does. Streamlit's chart theme is off: with it, Positional's three figures took 0.61 s against 0.52 s
    without (benchmarks.browser_ab)."""
    figure = chart.figure
    if projector_on():
        figure = go.Figure(figure)
        layout = figure.layout
        height, top = layout.height or HEIGHT, layout.margin.t or 0
        figure.update_layout(font_size=layout.font.size * PROJECTED_TYPE, margin_t=top * PROJECTED_TYPE,
                             height=(height - top) * 1.4 + top * PROJECTED_TYPE)
    place = container if container is not None else st
    if chart.title:
        place.markdown(f"**{escape_markdown(chart.title)}**")
    place.plotly_chart(figure, key=key, theme=None,   # the camera's picture at 2x, for a slide, named by the key
                       config={"displaylogo": False, "toImageButtonOptions": {"scale": 2, "filename": key}})
    chart_numbers(chart.numbers_html(), f"{key}_numbers", container)
