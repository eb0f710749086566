"""Next-token probabilities as bars in plain HTML, for st.html (the lesson), and the orders and summaries of the
bars Decode step by step draws in the browser from every step at once (explorer/components/decode_steps.js draws
the same markup as probability_columns).

As Plotly charts they took about 0.1 s each in the browser, whatever their size (`python -m
benchmarks.view_change`). A bar here is a coloured block whose tooltip names its token and probability, also kept
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


def _bar(p: float, colour: str, tip: str, width: str, token: str, series: str = "") -> str:
    return (f'<div data-token="{html.escape(token)}" data-series="{html.escape(series)}" data-value="{p!r}" '
            f'title="{html.escape(tip)}" style="width:{width};height:{BAR_HEIGHT * p:.3f}rem;min-height:1px;'
            f'background:{colour}"></div>')


def _legend(keys: list[tuple[str, str]]) -> str:
    """(name, colour) swatches in a line above the bars."""
    return '<div style="margin-bottom:4px">' + "".join(
        f'<span style="margin-right:0.8rem;font-size:0.85rem"><span style="display:inline-block;width:0.8rem;'
        f'height:0.8rem;background:{colour};margin-right:0.3rem"></span>{html.escape(name)}</span>'
        for name, colour in keys) + "</div>"


def _frame(title: str, columns: list[tuple[str, str]], min_width: str, summary: str, legend: str = "",
           note: str = "") -> str:
    """(bars, token label) per column: the bars standing on an axis line, the labels in a row under it; the
    summary is the chart's accessible name."""
    heading = f'<div style="font-weight:600;margin-bottom:6px">{html.escape(title)}</div>' if title else ""
    cell = f"flex:1;min-width:{min_width};display:flex;flex-direction:column;align-items:center"
    bars = "".join(f'<div style="{cell};justify-content:flex-end">{b}</div>' for b, _ in columns)
    names = "".join(f'<div style="{cell};font-size:0.9rem">{html.escape(label)}</div>' for _, label in columns)
    row = "display:flex;gap:0.4rem;padding:0 0.3rem"   # ten columns whole in a projector's two thirds
    guides = ", ".join(f"linear-gradient(#d1d5db, #d1d5db) 0 {1.3 + BAR_HEIGHT * (1 - p):.2f}rem / 100% 1px no-repeat"
                       for p in (1.0, 0.5))                  # grey lines at probability 1 and 0.5
    return (f'<div role="img" tabindex="0" aria-label="{html.escape(summary)}" style="overflow-x:auto">{heading}{legend}'
            f'<div style="{row};align-items:flex-end;border-bottom:1px solid #6b7280;height:{BAR_HEIGHT + 1.3}rem;'
            f'background:{guides}">{bars}</div><div style="{row}">{names}</div>'
            f'<div style="font-size:0.75rem;color:#4b5563;margin-top:2px">next token; grey lines at probability 1 '
            f'and 0.5; {note}hover a bar for its probability</div></div>')


def probability_columns(probs: np.ndarray, labels: list[str], top_k: int = 10, chosen: int | None = None,
                        title: str = "") -> str:
    """(vocab,) probabilities -> the top k as bars, likeliest first, each with its value above, the chosen token
    darker."""
    columns = []
    for i in top_tokens(probs, top_k):
        p = float(probs[i])
        bar = _bar(p, CHOSEN if i == chosen else OTHER, f"token {labels[i]}: probability {p:.4f}", "100%",
                   labels[i], "chosen" if i == chosen else "")
        columns.append((f'<div style="font-size:0.75rem">{p:.3f}</div>{bar}', labels[i]))
    note = "dark: the chosen token (no dark bar when it is not among these); " if chosen is not None else ""
    return _frame(title, columns, "2.4rem", distribution_summary(probs, labels, chosen, title), note=note)


def distribution_summary(probs: np.ndarray, labels: list[str], chosen: int | None, title: str) -> str:
    """What probability_columns shows, in a sentence: its accessible name."""
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
