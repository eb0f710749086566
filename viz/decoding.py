"""The generator's output: next-token probabilities as bars."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .style import HORIZONTAL_LEGEND, figure


def _top(probs: np.ndarray, k: int) -> np.ndarray:
    return np.argsort(-np.asarray(probs), kind="stable")[:k]


def probability_bars(probs: np.ndarray, labels: list[str], top_k: int = 10, chosen: int | None = None,
                     title: str = "") -> go.Figure:
    """(vocab,) probabilities -> the top k as bars, the chosen token in a darker colour."""
    order = _top(probs, top_k)
    bar = dict(
        type="bar", x=[labels[i] for i in order], y=[float(probs[i]) for i in order],
        marker=dict(color=["#1d4ed8" if i == chosen else "#93c5fd" for i in order]),
        text=[f"{probs[i]:.3f}" for i in order], textposition="outside",
        hovertemplate="token %{x}<br>probability %{y:.4f}<extra></extra>",
    )
    return figure([bar], title, 320, yaxis=dict(range=[0, 1.12], title=dict(text="probability")),
                  xaxis=dict(title=dict(text="next token"), type="category"))


def temperature_bars(probs_by_temperature: dict[float, np.ndarray], labels: list[str], top_k: int = 8,
                     title: str = "") -> go.Figure:
    """The same step's distribution under several temperatures, grouped bars over the same tokens."""
    reference = probs_by_temperature[min(probs_by_temperature, key=lambda t: abs(t - 1.0))]
    order = _top(reference, top_k)
    bars = [
        dict(type="bar", name=f"T = {t:g}", x=[labels[i] for i in order], y=[float(p[i]) for i in order],
             hovertemplate=f"T = {t:g}<br>token %{{x}}<br>probability %{{y:.4f}}<extra></extra>")
        for t, p in sorted(probs_by_temperature.items())
    ]
    return figure(bars, title, 320, barmode="group", legend=HORIZONTAL_LEGEND,
                  yaxis=dict(range=[0, 1.05], title=dict(text="probability")),
                  xaxis=dict(title=dict(text="next token"), type="category"))
