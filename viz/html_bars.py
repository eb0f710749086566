"""Bar charts in plain HTML. The next-token bars are drawn by the browser alone (explorer/components/bars.js, for
Decode step by step's every step and the lesson's one): here are their numbers, orders and summaries. Horizontal
row bars (class mode, the quiz) are drawn here, for st.html.

As Plotly charts the next-token bars took about 0.1 s each in the browser, whatever their size (`python -m
benchmarks.view_change`). A bar is a coloured block whose tooltip names its token and probability, also kept
in data-value for tests; sizes are in rem, so projector mode's larger type enlarges them too.
"""

from __future__ import annotations

import html

import numpy as np

CHOSEN, OTHER = "#1d4ed8", "#93c5fd"
TEMPERATURE_COLOURS = ("#0072b2", "#56b4e9", "#d55e00", "#e69f00", "#009e73")   # Okabe-Ito, colour-blind safe
BAR_HEIGHT = 9.0                                                               # rem, for a probability of 1


def top_tokens(probs: np.ndarray, k: int) -> np.ndarray:
    return np.argsort(-np.asarray(probs), kind="stable")[:k]


def _legend(keys: list[tuple[str, str]]) -> str:
    """(name, colour) swatches in a line above the bars."""
    return '<div style="margin-bottom:4px">' + "".join(
        f'<span style="margin-right:0.8rem;font-size:0.85rem"><span style="display:inline-block;width:0.8rem;'
        f'height:0.8rem;background:{colour};margin-right:0.3rem"></span>{html.escape(name)}</span>'
        for name, colour in keys) + "</div>"


def next_token_view(probs: np.ndarray, labels: list[str], chosen: int | None, title: str, top_k: int) -> dict:
    """What the browser's bars (explorer/components/bars.js) draw of one step: the probabilities, the chosen
    token, the top k likeliest first, and the chart's accessible name."""
    return {"probs": probs, "chosen_id": chosen, "bar_order": [int(i) for i in top_tokens(probs, top_k)],
            "bar_summary": distribution_summary(probs, labels, chosen, title)}


def bars_spec(probs: np.ndarray, labels: list[str], top_k: int = 10, chosen: int | None = None,
              title: str = "") -> dict:
    """(vocab,) probabilities -> the top k as bars, likeliest first, each with its value above, the chosen token
    darker: one step's chart, drawn by the same code as Decode's (explorer.components.next_token_bars)."""
    return {"title": title, "labels": list(labels), "colours": {"chosen": CHOSEN, "other": OTHER},
            "bar_height": BAR_HEIGHT, "view": next_token_view(np.asarray(probs), labels, chosen, title, top_k)}


def distribution_summary(probs: np.ndarray, labels: list[str], chosen: int | None, title: str) -> str:
    """What the next-token bars show, in a sentence: their accessible name."""
    first, second = top_tokens(probs, 2)[0], top_tokens(probs, 2)[-1]
    tied = second != first and np.isclose(probs[first], probs[second])
    return (f"{title}: the likeliest next token is {labels[first]}"
            + (f", tied with {labels[second]}" if tied else "") + f", probability {float(probs[first]):.3f}"
            + ("" if chosen is None else f"; chosen: {labels[chosen]}, {float(probs[chosen]):.3f}") + ".")


def temperature_order(probs_by_temperature: dict[float, np.ndarray], top_k: int = 8) -> tuple[list[float], list[int]]:
    """The temperatures in order, and the top k tokens at T = 1 (or the nearest T): the same step's distribution
    under each temperature, drawn as one bar per temperature for each of these tokens."""
    temperatures = sorted(probs_by_temperature)
    reference = probs_by_temperature[min(temperatures, key=lambda t: abs(t - 1.0))]
    return temperatures, [int(i) for i in top_tokens(reference, top_k)]


def temperature_summary(probs_by_temperature: dict[float, np.ndarray], labels: list[str], title: str) -> str:
    """The temperature bars in a sentence: their accessible name."""
    temperatures, (top, *_) = temperature_order(probs_by_temperature, 1)
    return (f"{title}: token {labels[top]} has probability " + ", ".join(
        f"{float(probs_by_temperature[t][top]):.3f} at T = {t:g}" for t in temperatures) + ".")


def row_bars(rows: list[str], series: dict[str, tuple[list[float | None], list[str], str]], reach: float,
             title: str, summary: str, axis: str, label_share: int = 30) -> str:
    """Horizontal bars from a zero line, one row per label and one bar per series in each (values, their text,
    a colour), the text written at each bar's end so nothing depends on colour or hover; `reach` is the value a
    full-width bar stands for. Rows stack, so a phone or a projector shows every label whole. The chart's
    summary is its accessible name; each bar keeps its series, row and value in data- attributes for tests.
    `label_share`: the percentage of the width the labels take."""
    legend = "" if len(series) < 2 else _legend([(name, colour) for name, (_, _, colour) in series.items()])
    body = []
    for r, label in enumerate(rows):
        bars = "".join(
            f'<div style="display:flex;align-items:center;gap:0.4rem;height:1.3em">'
            f'<span data-series="{html.escape(name)}" data-row="{html.escape(label)}" '
            f'data-value="{float(values[r] or 0)!r}" title="{html.escape(f"{name}, {label}: {texts[r]}")}" '
            f'style="display:inline-block;height:0.9em;width:{80 * float(values[r] or 0) / max(reach, 1e-9):.2f}%;'
            f'background:{colour}"></span><span style="font-variant-numeric:tabular-nums">{html.escape(texts[r])}'
            f'</span></div>' for name, (values, texts, colour) in series.items())
        body.append(f'<div style="display:flex;gap:0.6rem;align-items:center;margin:3px 0">'
                    f'<span style="flex:0 0 {label_share}%;text-align:right;overflow-wrap:anywhere">{html.escape(label)}</span>'
                    f'<div style="flex:1;border-left:1px solid #6b7280;padding-left:1px">{bars}</div></div>')
    heading = f'<div style="font-weight:600;margin-bottom:4px">{html.escape(title)}</div>' if title else ""
    return (f'<figure role="img" aria-label="{html.escape(summary)}" style="margin:0">{heading}{legend}'
            f'{"".join(body)}<figcaption style="font-size:0.85em;color:#4b5563">{html.escape(axis)}</figcaption>'
            f'</figure>')
