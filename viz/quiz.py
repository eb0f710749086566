"""The quizzes' charts: how a class's scores spread before and after, and the share right per item."""

from __future__ import annotations

import plotly.graph_objects as go

from .style import figure

FORM_COLOURS = {"before": "#94a3b8", "after": "#1d4ed8"}   # slate, blue: the after bars stand out


def score_spread(counts: dict[str, list[int]], title: str = "") -> go.Figure:
    """Students per score (items right), one bar series per form, side by side."""
    bars = [dict(type="bar", name=form, x=list(range(len(c))), y=c, marker=dict(color=FORM_COLOURS[form]),
                 text=[str(n) if n else "" for n in c], textposition="outside",
                 hovertemplate=f"{form}: %{{y}} students with %{{x}} right<extra></extra>")
            for form, c in counts.items()]
    top = max((max(c, default=0) for c in counts.values()), default=0)
    return figure(bars, title, 320, barmode="group",
                  xaxis=dict(title=dict(text="items right"), dtick=1),
                  yaxis=dict(title=dict(text="students"), range=[0, max(1, top) * 1.25]),
                  legend=dict(orientation="h", y=1.02, x=0, yanchor="bottom"))


def share_right_by_item(concepts: list[str], shares: dict[str, list[float | None]], title: str = "") -> go.Figure:
    """One row per item (its concept), the share right before and after as horizontal bars."""
    labels = [f"{i + 1}. {c}" for i, c in enumerate(concepts)]
    bars = [dict(type="bar", orientation="h", name=form, y=labels, x=[s or 0 for s in v],
                 marker=dict(color=FORM_COLOURS[form]),
                 text=["—" if s is None else f"{s:.0%}" for s in v], textposition="outside",
                 hovertemplate=f"{form}: %{{x:.0%}} right<br>%{{y}}<extra></extra>")
            for form, v in shares.items()]
    return figure(bars, title, 120 + 55 * len(labels), barmode="group",
                  xaxis=dict(title=dict(text="share right"), range=[0, 1.18], tickformat=".0%"),
                  yaxis=dict(autorange="reversed", automargin=True),
                  legend=dict(orientation="h", y=1.02, x=0, yanchor="bottom"))
