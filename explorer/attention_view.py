"""Attention below its introduction: the head picker and every chart that follows it.

A fragment, so another kind, layer or head reruns only this part of the page and sends only its elements
again (the grid, unchanged by a new head, is not drawn again). It takes plain values and finds the model and
the run by them, as explorer.decode_view explains.
"""

from __future__ import annotations

import streamlit as st

from analysis.labels import KIND_SHORT
from analysis.page_models.attention import attention_view
from viz import attention_grid_spec
from viz.canvas_heatmap import ORANGES, heatmap_spec

from .cache import checkpoint_for, text_run
from .canvas_charts import canvas_heatmap
from .charts import projector_on
from .exports import matrix_csv, trace_json
from .gate import deferred, fragment
from .links import page_link
from .pickers import pick_head


@fragment()
def attention_views(key: str, text: str) -> None:
    ckpt = checkpoint_for(key)
    run = text_run(key, text)
    config = ckpt.model.config
    kind, layer, head = pick_head(config)
    view = attention_view(ckpt.model, run, kind, layer, head)
    rows, cols = view.rows, view.cols

    st.info(view.explanation)
    st.caption(view.io_caption)

    st.header(f"Every layer and head: {view.kind_name.lower()}")
    n_layers = len(view.weights)
    canvas_heatmap(attention_grid_spec(view.weights, rows, cols, f"{n_layers} layers × {view.n_heads} heads, each "
                                       "row of weights summing to 1",
                                       query_title=view.row_title, key_title=view.col_title,
                                       projector=projector_on()), key="grid")

    canvas_heatmap(heatmap_spec(
        [(f"head {head}", view.matrix), (f"average of {view.n_heads} heads (a summary)", view.mean)], rows, cols,
        f"Layer {layer}, head {head} (left) and the average of its {view.n_heads} heads (right)",
        view.row_title, view.col_title, projector=projector_on()), key="detail")

    st.caption("The average is a summary for reading, not something the model computes: each head's output goes on "
               "to W^O on its own.")
    st.markdown(view.row_sums)
    if view.pattern_sentence:
        st.markdown(view.pattern_sentence)

    st.header("Weight is not influence")
    canvas_heatmap(heatmap_spec([(f"head {head}", view.influence)], rows, cols,
                                f"Head {head}: what each key sends, ‖w_ij v_j W_O^h‖", view.row_title, view.col_title,
                                "‖w v W_O‖", float(view.influence.max()), ORANGES, projector=projector_on()),
                   key="influence")
    st.markdown(view.influence_sentence)
    page_link("inside_one_head", "Follow one weight of this head, number by number: Inside one head", "🔬",
              {"inside_kind": KIND_SHORT[kind], "inside_layer": str(layer), "inside_head": str(head)})

    c1, c2 = st.columns(2)  # built only when clicked (a 24-character trace is ~0.5 MB of JSON), in this session's place
    c1.download_button("Download this matrix (CSV)", deferred(matrix_csv, view.matrix, rows, cols),
                       file_name=f"{kind}_layer{layer}_head{head}.csv", mime="text/csv", on_click="ignore")
    c2.download_button("Download the whole trace (JSON)", deferred(trace_json, text, run),
                       file_name="trace.json", mime="application/json", on_click="ignore")
