"""Decode step by step's steps as the data the browser draws them from (explorer/components/front_end.js): every
step of one decoding at once, so a new step is drawn in the browser with no round trip to the server. Numbers go
as numbers, the orders and summaries are decided here, and every sentence is HTML escaped here (viz.notes).

The next-token bars are specified here too, for Decode's every step and the lesson's one (bars_spec), and drawn
by the browser alone: as Plotly charts they took about 0.1 s each in the browser, whatever their size (`python -m
benchmarks.view_change`). Their sizes are in rem, so projector mode's larger type enlarges them too."""

from __future__ import annotations

import numpy as np

from .canvas_heatmap import BLUES, CIVIDIS_REVERSED, ON_PROJECTOR
from .notes import paragraph
from .strips import NEGATIVE, POSITIVE, PROJECTOR_TICK, ROW_NAME, TICK, ZERO

BAR_TOKENS, TEMPERATURE_TOKENS = 10, 8     # columns of the step's two bar charts
CHOSEN, OTHER = "#1d4ed8", "#93c5fd"
TEMPERATURE_COLOURS = ("#0072b2", "#56b4e9", "#d55e00", "#e69f00", "#009e73")   # Okabe-Ito, colour-blind safe
BAR_HEIGHT = 9.0                                                               # rem, for a probability of 1


def top_tokens(probs: np.ndarray, k: int) -> np.ndarray:
    return np.argsort(-np.asarray(probs), kind="stable")[:k]


def next_token_view(probs: np.ndarray, labels: list[str], chosen: int | None, title: str, top_k: int) -> dict:
    """What the browser's bars (explorer/components/front_end.js) draw of one step: the probabilities, the chosen
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


def step_spec(steps: list, chosen: int, param: str) -> dict:
    """The step controls and what each step reads and chooses: its metrics, top tokens and both bar charts. `steps`:
    every step's numbers and sentences (the page model's DecodeStep: viz reads them, it does not import models).
    `chosen`: the step a link names (0: none); the browser keeps the step in the URL as `param`."""
    first = steps[0]
    views = []
    for view in steps:
        title = f"Next-token distribution at step {view.t}"
        temperatures, order = temperature_order(view.by_temperature, TEMPERATURE_TOKENS)
        views.append({
            "input": view.decoder_input, "chosen": view.chosen, "p": f"p = {view.chosen_p:.3f}",
            "written": view.written or "(nothing yet)", "caption": paragraph(view.caption),
            "top": [[token, f"{p:.4f}"] for token, p in zip(view.top_tokens, view.top_probs)],
            **next_token_view(view.probs, view.labels, view.chosen_id, title, BAR_TOKENS),
            "temperatures": [view.by_temperature[t] for t in temperatures], "temperature_order": order,
            "temperature_summary": temperature_summary(view.by_temperature, view.labels,
                                                       "The same step at different temperatures"),
            "temperature_caption": paragraph(view.temperature_caption)})
    return {"part": "step", "chosen": chosen, "param": param, "projector": False, "labels": first.labels,
            "views": views,
            "temperature_names": [f"T = {t:g}" for t in temperature_order(first.by_temperature)[0]],
            "colours": {"chosen": CHOSEN, "other": OTHER, "temperatures": list(TEMPERATURE_COLOURS)},
            "bar_height": BAR_HEIGHT, ON_PROJECTOR: {"projector": True}}


def looked_spec(looked: list, walk, n_heads: int, chosen: int, show_cache: bool, cache_param: str) -> dict:
    """Where each step looked in one layer (`looked`: the page model's LookedStep of every step; `walk.layer`, its
    head `walk.head` outlined) and what the key/value cache held at it (`walk`, the page model's CacheWalk). Each
    step's attention rows, and the head's keys and values once: step t reads rows 0..t.
    `chosen`: the step a link names (0: none); `show_cache`: the link asks for the keys and values shown, which
    the browser keeps in the URL as `cache_param`."""
    first = looked[0]
    return {
        "part": "looked", "chosen": chosen, "show_cache": show_cache, "cache_param": cache_param,
        "layer": walk.layer, "head": walk.head,
        "heads": [f"head {h}" for h in range(n_heads)],
        "source": first.source, "decoder_keys": first.decoder_keys, "row_labels": walk.row_labels,
        "weight_stops": BLUES, "projector": False, "tick": TICK, "row_name_size": ROW_NAME,
        ON_PROJECTOR: {"weight_stops": CIVIDIS_REVERSED, "projector": True, "tick": PROJECTOR_TICK,
                       "row_name_size": PROJECTOR_TICK},
        "signed": {"negative": NEGATIVE, "zero": ZERO, "positive": POSITIVE},
        "keys": walk.self_keys, "values": walk.self_values, "draft": paragraph(walk.draft_sentence),
        "views": [{"cross": np.ascontiguousarray(view.cross), "self": np.ascontiguousarray(view.decoder_self),
                   "cross_sentence": paragraph(view.cross_sentence),
                   "self_sentence": paragraph(view.self_sentence), "reads": paragraph(walk.reads_sentences[view.t]),
                   "same": paragraph(walk.same_sentences[view.t]), "cost": paragraph(walk.cost_sentences[view.t])}
                  for view in looked]}
