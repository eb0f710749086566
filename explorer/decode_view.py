"""Decode step by step below its decoding controls: every step of the decoding, and the layer and head it is read in.

The page sends every step at once, and the browser steps through them (explorer/components/front_end.js): a new
step (a button, ←/→, the slider) is drawn with no round trip to the server, where a rerun of this part of the page
was a wait a learner felt at 48 characters (benchmarks.view_change). Another layer or head reruns only where the steps looked, a fragment,
and leaves what they read and chose (the same in every layer and head) in place, not sent again. It takes plain
values and finds the model and the runs by them, as the page does: a fragment stays in the session's memory with
its arguments until the next full run, and a page's own function would keep that page's globals, an own model
among them, alive with it (tests/app/test_released_models.py).
"""

from __future__ import annotations

import streamlit as st

from analysis.page_models.decode import decode_steps, looked_steps
from analysis.page_models.decode_cache import cache_walk
from viz.decode_steps import looked_spec, step_spec

from server.gate import fragment

from .cache import checkpoint_for, text_run
from .components import decode_part
from .link_guard import flag_in_url, index_in_url
from .pickers import pick_head

STEP_PARAM = "step"            # the step a link opens on; the browser keeps it in the URL as the learner steps
CACHE_PARAM = "show_cache"     # "true": the cache's keys and values shown, as a link can ask


def decode_view(key: str, text: str, temperature: float | None, top_k: int | None, seed: int) -> None:
    """Every step, then where each looked in the layer and head picked below. `temperature` None: the greedy run."""
    step_part(key, text, temperature, top_k, seed)
    looked_part(key, text, temperature, top_k, seed)


def step_part(key: str, text: str, temperature: float | None, top_k: int | None, seed: int) -> None:
    """What every step reads and chooses: the same in every layer and head, so drawn by the page's run and left in
    place when another layer or head reruns the fragment below."""
    run = text_run(key, text, temperature, top_k, seed)
    chosen = index_in_url(STEP_PARAM, len(run.chosen_ids), bring_in_range=True)   # as the browser does
    decode_part(step_spec(decode_steps(run, checkpoint_for(key).vocab), chosen, STEP_PARAM), "steps")


@fragment()
def looked_part(key: str, text: str, temperature: float | None, top_k: int | None, seed: int) -> None:
    """Where every step looked in the layer and head picked here, and what the key/value cache held."""
    ckpt = checkpoint_for(key)
    config = ckpt.model.config
    run = text_run(key, text, temperature, top_k, seed)
    chosen = index_in_url(STEP_PARAM, len(run.chosen_ids), bring_in_range=True)
    show_cache = flag_in_url(CACHE_PARAM)
    st.header("Where this step looked")
    _, layer, head = pick_head(config, "step_", kinds=("cross",), layer_label="Decoder layer")
    looked = looked_steps(run, text_run(key, text, teacher=True), layer, head)
    decode_part(looked_spec(looked, cache_walk(ckpt.model, run, layer, head), config.n_heads,
                            chosen, show_cache, CACHE_PARAM),
                "looked")
