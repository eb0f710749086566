"""How training went: held-out loss, exact match and the cross-attention pattern of the task, step by step."""

from __future__ import annotations

import math

import plotly.graph_objects as go

from .style import HORIZONTAL_LEGEND, figure

LOSS, MATCH, PATTERN, MARK, BASELINE = "#1d4ed8", "#16a34a", "#f59e0b", "#dc2626", "#4b5563"


def decimal_log_ticks(values: list[float]) -> dict:
    """Tick values and labels for a log axis over `values`: one per power of ten, written as plain decimals
    (0.001, not plotly's '1m' or '100µ')."""
    positive = [v for v in values if v > 0]
    if not positive:    # nothing to place yet (a live run before its first step): plotly's own ticks
        return {}
    low, high = math.floor(math.log10(min(positive))), math.ceil(math.log10(max(positive)))
    powers = range(low, high + 1)
    return dict(tickmode="array", tickvals=[10.0 ** p for p in powers],
                ticktext=[f"{10.0 ** p:.{max(-p, 0)}f}" for p in powers])


def baseline_trace(first_step: int, last_step: int, baseline: float, vocab_size: int, xaxis: str = "x",
                   yaxis: str = "y") -> dict:
    """The uniform guess's loss, ln(vocabulary size), as a labelled dashed line across the run."""
    label = f"uniform guess: ln {vocab_size} = {baseline:.2f}"
    return dict(type="scatter", mode="lines+text", x=[first_step, last_step], y=[baseline, baseline], name=label,
                text=["", label], textposition="top left", line=dict(color=BASELINE, dash="dash"),
                xaxis=xaxis, yaxis=yaxis, hovertemplate=f"{label}<extra></extra>")


def learning_curves(curve: list[dict], marked_step: int | None = None, title: str = "",
                    pattern: str = "the anti-diagonal", rule: str = "n−1−i",
                    vocab_size: int | None = None) -> go.Figure:
    """curve: dicts with step, loss, exact_match, alignment (the share of steps on the task's pattern, named by
    `pattern` and `rule`). Loss on top (log scale, with the uniform guess ln(vocab_size) when given), the two
    shares below, one vertical line at the marked step through both."""
    steps = [c["step"] for c in curve]
    losses = [c["loss"] for c in curve]
    data = [
        dict(type="scatter", mode="lines", x=steps, y=losses, name="held-out loss",
             line=dict(color=LOSS), xaxis="x", yaxis="y", hovertemplate="step %{x}<br>loss %{y:.4f}<extra></extra>"),
        dict(type="scatter", mode="lines", x=steps, y=[c["exact_match"] for c in curve], name="exact match",
             line=dict(color=MATCH), xaxis="x2", yaxis="y2",
             hovertemplate="step %{x}<br>exact match %{y:.1%}<extra></extra>"),
        dict(type="scatter", mode="lines", x=steps, y=[c["alignment"] for c in curve], name=f"steps on {pattern}",
             line=dict(color=PATTERN, dash="dot"), xaxis="x2", yaxis="y2",
             hovertemplate=f"step %{{x}}<br>largest cross weight on {rule}: %{{y:.1%}}<extra></extra>"),
    ]
    if vocab_size is not None:
        baseline = math.log(vocab_size)
        data.append(baseline_trace(steps[0], steps[-1], baseline, vocab_size))
        losses = [*losses, baseline]
    shapes = [] if marked_step is None else [
        dict(type="line", xref="x", yref="paper", x0=marked_step, x1=marked_step, y0=0, y1=1,
             line=dict(color=MARK, width=2, dash="dash"))]
    return figure(
        data, title, 460, legend=HORIZONTAL_LEGEND, shapes=shapes,
        xaxis=dict(domain=[0, 1], anchor="y", showticklabels=False, matches="x2"),
        yaxis=dict(domain=[0.56, 1], type="log", title=dict(text="loss (log scale)"), **decimal_log_ticks(losses)),
        xaxis2=dict(domain=[0, 1], anchor="y2", title=dict(text="training step")),
        yaxis2=dict(domain=[0, 0.46], range=[-0.03, 1.03], tickformat=".0%", title=dict(text="share")),
    )


def live_curves(loss: tuple[tuple[int, float], ...], exact_match: tuple[tuple[int, float], ...], steps: int,
                title: str = "", vocab_size: int | None = None) -> go.Figure:
    """A run in progress: training loss after every step (log scale, with the uniform guess ln(vocab_size) when
    given) and held-out exact match, side by side."""
    losses = [v for _, v in loss]
    data = [
        dict(type="scatter", mode="lines", x=[s for s, _ in loss], y=losses, name="training loss",
             line=dict(color=LOSS), xaxis="x", yaxis="y", hovertemplate="step %{x}<br>loss %{y:.4f}<extra></extra>"),
        dict(type="scatter", mode="lines+markers", x=[s for s, _ in exact_match], y=[v for _, v in exact_match],
             name="held-out exact match", line=dict(color=MATCH), xaxis="x2", yaxis="y2",
             hovertemplate="step %{x}<br>exact match %{y:.0%}<extra></extra>"),
    ]
    if vocab_size is not None:
        baseline = math.log(vocab_size)
        data.append(baseline_trace(0, steps, baseline, vocab_size))
        losses.append(baseline)
    return figure(
        data, title, 300, legend=HORIZONTAL_LEGEND,
        xaxis=dict(domain=[0, 0.45], anchor="y", range=[0, steps], title=dict(text="step")),
        yaxis=dict(type="log", title=dict(text="loss (log scale)"), **decimal_log_ticks(losses)),
        xaxis2=dict(domain=[0.55, 1], anchor="y2", range=[0, steps], title=dict(text="step")),
        yaxis2=dict(anchor="x2", range=[-0.03, 1.03], tickformat=".0%", title=dict(text="exact match")),
    )
