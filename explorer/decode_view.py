"""Decode step by step below its decoding controls: everything that follows the step, layer and head.

A fragment, so a new step (a button, ←/→, the slider) or another head reruns only this part of the page
and sends only its elements again. It takes plain values and finds the model and the runs by them, as
the page does: a fragment stays in the session's memory with its arguments until the next full run, and
a page's own function would keep that page's globals, an own model among them, alive with it
(tests/app/test_released_models.py).
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from analysis.page_models.decode import decode_step
from analysis.page_models.decode_cache import cache_at_step
from viz.html_bars import probability_columns, temperature_columns
from viz.strips import vector_rows, weight_rows

from .cache import checkpoint_for, text_run
from .callbacks import move_slider
from .canvas_charts import cell_table
from .charts import projector_on
from .gate import fragment
from .pickers import pick_head
from .state import VIEW, keep_in_range


@fragment()
def decode_steps(key: str, text: str, temperature: float | None, top_k: int | None, seed: int) -> None:
    """`temperature` None: the greedy run."""
    ckpt = checkpoint_for(key)
    config, vocab = ckpt.model.config, ckpt.vocab
    run = text_run(key, text, temperature, top_k, seed)
    n_steps = len(run.chosen_ids)
    keep_in_range("step", 0, n_steps - 1)

    buttons = st.columns(4)      # drawn above the slider, filled in once it has a value; whole words at 1024 px
    t = st.slider("Step t", 0, n_steps - 1, 0, key="step", **VIEW) if n_steps > 1 else 0
    buttons[0].button("⏮ First", on_click=move_slider, args=("step", 0, n_steps - 1, 0), width="stretch")
    buttons[1].button("Previous", on_click=move_slider, args=("step", 0, n_steps - 1), kwargs={"by": -1},
                      disabled=t == 0, width="stretch", shortcut="Left", help="Previous step (← key)")
    buttons[2].button("Next", on_click=move_slider, args=("step", 0, n_steps - 1), kwargs={"by": 1},
                      disabled=t == n_steps - 1, width="stretch", shortcut="Right", help="Next step (→ key)")
    buttons[3].button("Last ⏭", on_click=move_slider, args=("step", 0, n_steps - 1, n_steps - 1), width="stretch")

    upper = st.container()                           # drawn once the head below is picked
    st.header("Where this step looked")
    _, layer, head = pick_head(config, "step_", kinds=("cross",), layer_label="Decoder layer")
    view = decode_step(run, text_run(key, text, teacher=True), vocab, t, layer, head)

    with upper:
        a, b, c = st.columns(3)
        a.metric(f"Decoder input at step {t}", view.decoder_input)
        b.metric("Chosen token", view.chosen, delta=f"p = {view.chosen_p:.3f}", delta_color="off")
        c.metric("Written so far", view.written or "(nothing yet)")
        st.caption(view.caption)

        table_col, chart_col = st.columns([1, 2])
        table_col.markdown(f"**Top {len(view.top_tokens)} next tokens**")
        table_col.table(pd.DataFrame({"token": view.top_tokens, "probability": [f"{p:.4f}" for p in view.top_probs]}),
                        hide_index=True)    # a static table: the data grid took longer to draw at every step
        chart_col.html(probability_columns(view.probs, view.labels, 10, chosen=view.chosen_id,
                                           title=f"Next-token distribution at step {t}"))

        st.header("The same step at different temperatures")
        st.html(temperature_columns(view.by_temperature, view.labels))
        st.caption(view.temperature_caption)

    heads = [f"head {h}" for h in range(config.n_heads)]
    st.markdown(view.cross_sentence)
    cell_table(weight_rows(view.cross, heads, view.source, f"Cross-attention at step {t}, layer {layer}, every head "
                           f"(head {head} outlined)", outlined=head, column_title="source position",
                           projector=projector_on()), "cells_cross")
    st.markdown(view.self_sentence)
    cell_table(weight_rows(view.decoder_self, heads, view.decoder_keys, f"Decoder self-attention at step {t}, layer "
                           f"{layer}, every head (head {head} outlined)", outlined=head,
                           column_title="decoder position", projector=projector_on()), "cells_self")

    cache = cache_at_step(ckpt.model, run, t, layer, head)
    st.header("What the key/value cache holds at this step")
    st.markdown(cache.reads_sentence)
    rows = f"row {t} computed now, the rest kept" if t else "row 0, computed now"
    if st.toggle(f"Show what self-attention reads at step {t} in layer {layer}, head {head} ({rows})", key="show_cache",
                 **VIEW):      # built only when asked: 2 tables of 16 numbers a row
        cell_table(vector_rows(list(cache.self_keys), cache.row_names, f"Keys, layer {layer}, head {head}",
                               outlined=t, projector=projector_on()), "cells_cache_keys")
        cell_table(vector_rows(list(cache.self_values), cache.row_names, f"Values, layer {layer}, head {head}",
                               outlined=t, projector=projector_on()), "cells_cache_values")
    st.markdown(cache.same_sentence)
    st.markdown(cache.cost_sentence)
    st.caption(cache.draft_sentence)
