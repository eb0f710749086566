"""Class mode's chart: how a class's votes spread over a question's options."""

from __future__ import annotations

import plotly.graph_objects as go

from .style import figure


def vote_spread(options: tuple[str, ...], counts: tuple[int, ...], title: str = "") -> go.Figure:
    """One bar per option, in the question's order and one colour: the right answer is not marked (the class
    argues before it is revealed). Each bar is labelled with its count and share."""
    total = sum(counts)
    bar = dict(
        type="bar", x=list(options), y=list(counts), marker=dict(color="#1d4ed8"),
        text=[f"{c} ({c / total:.0%})" if total else "0" for c in counts], textposition="outside",
        hovertemplate="%{x}<br>%{y} votes<extra></extra>",
    )
    return figure([bar], title, 320, yaxis=dict(range=[0, max(1, max(counts, default=0)) * 1.25],
                                                title=dict(text="votes")),
                  xaxis=dict(title=dict(text="answer"), type="category"))
