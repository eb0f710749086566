"""The quizzes' charts: how a class's scores spread before and after, and the share right per item."""

from __future__ import annotations

from .html_bars import row_bars

FORM_COLOURS = {"before": "#64748b", "after": "#1d4ed8"}   # slate, blue: the after bars stand out


def score_spread(counts: dict[str, list[int]], title: str = "") -> str:
    """Students per score (items right), one bar per form in each row."""
    scores = max(len(c) for c in counts.values())
    series = {form: (list(c), [str(n) for n in c], FORM_COLOURS[form]) for form, c in counts.items()}
    top = max((max(c, default=0) for c in counts.values()), default=0)
    students = (lambda n: f"{n} student" + ("" if n == 1 else "s"))
    summary = f"{title}: " + "; ".join(
        f"{form}, " + ", ".join(f"{students(n)} got {k} item{'' if k == 1 else 's'} right" for k, n in enumerate(c)
                                if n) if any(c) else f"{form}, no students"
        for form, c in counts.items()) + "."
    return row_bars([f"{k} right" for k in range(scores)], series, max(1, top), title, summary, "students")


def share_right_by_item(concepts: list[str], shares: dict[str, list[float | None]], title: str = "") -> str:
    """One row per item (its concept), the share right before and after."""
    labels = [f"{i + 1}. {c}" for i, c in enumerate(concepts)]
    series = {form: (list(v), ["—" if s is None else f"{s:.0%}" for s in v], FORM_COLOURS[form])
              for form, v in shares.items()}
    summary = f"{title}: " + "; ".join(
        f"item {i + 1}, " + ", ".join(f"{form} {'no answers' if texts[i] == '—' else texts[i]}"
                                      for form, (_, texts, _) in series.items())
        for i in range(len(labels))) + "."
    return row_bars(labels, series, 1.0, title, summary, "share right (— : no answers)")
