"""How training went: held-out loss, exact match and the cross-attention pattern of the task, step by step."""

from __future__ import annotations

import plotly.graph_objects as go

from .style import HORIZONTAL_LEGEND, figure

LOSS, MATCH, PATTERN, MARK = "#1d4ed8", "#16a34a", "#f59e0b", "#dc2626"


def learning_curves(curve: list[dict], marked_step: int | None = None, title: str = "",
                    pattern: str = "the anti-diagonal", rule: str = "n−1−i") -> go.Figure:
    """curve: dicts with step, loss, exact_match, alignment (the share of steps on the task's pattern, named by
    `pattern` and `rule`). Loss on top (log scale), the two shares below, one vertical line at the marked step
    through both."""
    steps = [c["step"] for c in curve]
    data = [
        dict(type="scatter", mode="lines", x=steps, y=[c["loss"] for c in curve], name="held-out loss",
             line=dict(color=LOSS), xaxis="x", yaxis="y", hovertemplate="step %{x}<br>loss %{y:.4f}<extra></extra>"),
        dict(type="scatter", mode="lines", x=steps, y=[c["exact_match"] for c in curve], name="exact match",
             line=dict(color=MATCH), xaxis="x2", yaxis="y2",
             hovertemplate="step %{x}<br>exact match %{y:.1%}<extra></extra>"),
        dict(type="scatter", mode="lines", x=steps, y=[c["alignment"] for c in curve], name=f"steps on {pattern}",
             line=dict(color=PATTERN, dash="dot"), xaxis="x2", yaxis="y2",
             hovertemplate=f"step %{{x}}<br>largest cross weight on {rule}: %{{y:.1%}}<extra></extra>"),
    ]
    shapes = [] if marked_step is None else [
        dict(type="line", xref="x", yref="paper", x0=marked_step, x1=marked_step, y0=0, y1=1,
             line=dict(color=MARK, width=2, dash="dash"))]
    return figure(
        data, title, 460, legend=HORIZONTAL_LEGEND, shapes=shapes,
        xaxis=dict(domain=[0, 1], anchor="y", showticklabels=False, matches="x2"),
        yaxis=dict(domain=[0.56, 1], type="log", title=dict(text="loss")),
        xaxis2=dict(domain=[0, 1], anchor="y2", title=dict(text="training step")),
        yaxis2=dict(domain=[0, 0.46], range=[-0.03, 1.03], tickformat=".0%", title=dict(text="share")),
    )


def live_curves(loss: tuple[tuple[int, float], ...], exact_match: tuple[tuple[int, float], ...], steps: int,
                title: str = "") -> go.Figure:
    """A run in progress: training loss after every step (log scale) and held-out exact match, side by side."""
    data = [
        dict(type="scatter", mode="lines", x=[s for s, _ in loss], y=[v for _, v in loss], name="training loss",
             line=dict(color=LOSS), xaxis="x", yaxis="y", hovertemplate="step %{x}<br>loss %{y:.4f}<extra></extra>"),
        dict(type="scatter", mode="lines+markers", x=[s for s, _ in exact_match], y=[v for _, v in exact_match],
             name="held-out exact match", line=dict(color=MATCH), xaxis="x2", yaxis="y2",
             hovertemplate="step %{x}<br>exact match %{y:.0%}<extra></extra>"),
    ]
    return figure(
        data, title, 300, legend=HORIZONTAL_LEGEND,
        xaxis=dict(domain=[0, 0.45], anchor="y", range=[0, steps], title=dict(text="step")),
        yaxis=dict(type="log", title=dict(text="loss")),
        xaxis2=dict(domain=[0.55, 1], anchor="y2", range=[0, steps], title=dict(text="step")),
        yaxis2=dict(anchor="x2", range=[-0.03, 1.03], tickformat=".0%", title=dict(text="exact match")),
    )
