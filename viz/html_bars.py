"""Horizontal row bars in plain HTML (class mode, the quiz), for st.html. A bar is a coloured block whose tooltip
names its row and value, also kept in data-value for tests; sizes are in rem, so projector mode's larger type
enlarges them too.
"""

from __future__ import annotations

import html

def _legend(keys: list[tuple[str, str]]) -> str:
    """(name, colour) swatches in a line above the bars."""
    return '<div style="margin-bottom:4px">' + "".join(
        f'<span style="margin-right:0.8rem;font-size:0.85rem"><span style="display:inline-block;width:0.8rem;'
        f'height:0.8rem;background:{colour};margin-right:0.3rem"></span>{html.escape(name)}</span>'
        for name, colour in keys) + "</div>"


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
