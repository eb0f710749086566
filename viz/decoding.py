"""The generator's output: next-token probabilities as bars."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .style import base_layout


def _top(probs: np.ndarray, k: int) -> np.ndarray:
    return np.argsort(-np.asarray(probs), kind="stable")[:k]


def probability_bars(probs: np.ndarray, labels: list[str], top_k: int = 10, chosen: int | None = None,
                     title: str = "") -> go.Figure:
    """(vocab,) probabilities -> the top k as bars, the chosen token in a darker colour."""
    order = _top(probs, top_k)
    colours = ["#1d4ed8" if i == chosen else "#93c5fd" for i in order]
    fig = go.Figure(go.Bar(
        x=[labels[i] for i in order], y=[float(probs[i]) for i in order], marker_color=colours,
        text=[f"{probs[i]:.3f}" for i in order], textposition="outside",
        hovertemplate="token %{x}<br>probability %{y:.4f}<extra></extra>",
    ))
    fig.update_yaxes(range=[0, 1.12], title="probability")
    fig.update_xaxes(title="next token", type="category")
    return base_layout(fig, title, 320)


def temperature_bars(probs_by_temperature: dict[float, np.ndarray], labels: list[str], top_k: int = 8,
                     title: str = "") -> go.Figure:
    """The same step's distribution under several temperatures, grouped bars over the same tokens."""
    reference = probs_by_temperature[min(probs_by_temperature, key=lambda t: abs(t - 1.0))]
    order = _top(reference, top_k)
    fig = go.Figure([
        go.Bar(name=f"T = {t:g}", x=[labels[i] for i in order], y=[float(p[i]) for i in order],
               hovertemplate=f"T = {t:g}<br>token %{{x}}<br>probability %{{y:.4f}}<extra></extra>")
        for t, p in sorted(probs_by_temperature.items())
    ])
    fig.update_layout(barmode="group", legend=dict(orientation="h", y=1.02, yanchor="bottom", x=1, xanchor="right"))
    fig.update_yaxes(range=[0, 1.05], title="probability")
    fig.update_xaxes(title="next token", type="category")
    return base_layout(fig, title, 320)
