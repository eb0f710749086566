"""Projector mode: the learner's switch and the page style it brings, the one place the mode is themed. No chart
builder is told about it: explorer.components puts each spec's projector values (the canvas's larger type and
colour-blind-safe scale) over its own, and the SVG and HTML charts follow the page's type and the CSS variables
set here. A page asks `projector_on()` only where projector mode lays the page out otherwise (the lesson's
slides, the class's projector view)."""

from __future__ import annotations

import streamlit as st

from viz.architecture import GROW_VARIABLE

from .components import PROJECTOR_KEY

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
