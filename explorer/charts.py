"""Every chart goes on the page through show_chart (or chart_in a column), which applies projector mode when
the learner has it on, so the chosen look reaches every chart."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from viz.style import projector_figure

PROJECTOR_KEY = "projector"
PROJECTOR_CSS = "<style>html { font-size: 125%; }</style>"


def projector_on() -> bool:
    return bool(st.session_state.get(PROJECTOR_KEY, False))


def chart_in(container, fig: go.Figure, **kwargs) -> None:
    container.plotly_chart(projector_figure(fig) if projector_on() else fig, **kwargs)


def show_chart(fig: go.Figure, **kwargs) -> None:
    chart_in(st, fig, **kwargs)
