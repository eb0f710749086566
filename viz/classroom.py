"""Class mode's chart: how a class's votes spread over a question's options."""

from __future__ import annotations

from .html_bars import row_bars

VOTES = "#1d4ed8"


def vote_spread(options: tuple[str, ...], counts: tuple[int, ...], title: str = "", label_share: int = 30) -> str:
    """One bar per option, in the question's order and one colour: the right answer is not marked (the class
    argues before it is revealed). Each bar is labelled with its count and share; `label_share`: row_bars'."""
    total = sum(counts)
    texts = [f"{c} ({c / total:.0%})" if total else "0" for c in counts]
    summary = (f"{title}: no votes yet." if not total else
               f"{title}: " + "; ".join(f"{o}: {t}" for o, t in zip(options, texts)) + ".")
    return row_bars(list(options), {"votes": (list(counts), texts, VOTES)}, max(1, max(counts, default=0)), title,
                    summary, "votes per answer", label_share)
