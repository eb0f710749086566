"""Decode step by step's steps as the data the browser draws them from (explorer/components/decode_steps.js): every
step of one decoding at once, so a new step is drawn in the browser with no round trip to the server. Numbers go
as numbers, the orders and summaries are decided here, and every sentence is HTML escaped here (viz.notes)."""

from __future__ import annotations

import numpy as np

from .canvas_heatmap import BLUES, CIVIDIS_REVERSED, ON_PROJECTOR
from .html_bars import (BAR_HEIGHT, CHOSEN, OTHER, TEMPERATURE_COLOURS, next_token_view, temperature_order,
                        temperature_summary)
from .notes import paragraph
from .strips import NEGATIVE, POSITIVE, PROJECTOR_TICK, ROW_NAME, TICK, ZERO

BAR_TOKENS, TEMPERATURE_TOKENS = 10, 8     # columns of the step's two bar charts


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
