"""Attention below its introduction: the kind and layer picker and every chart that follows it.

A fragment, so another kind or layer reruns only this part of the page. Another head reruns nothing: the page
sends every head of the layer, and the browser switches between them (explorer/components/front_end.js), so a new
head is drawn in milliseconds, not a round trip. It takes plain values and finds the model and the run by them,
as explorer.decode_view explains.
"""

from __future__ import annotations

from urllib.parse import urlencode

import streamlit as st

from analysis.labels import KIND_SHORT
from analysis.page_models.attention import layer_views
from viz import attention_grid_spec, notes
from viz.canvas_heatmap import ORANGES, Axes, Panel, Scale, heatmap_spec

from server.gate import deferred, fragment

from .cache import checkpoint_for, text_run
from .components import canvas_heatmap, switched_heatmaps
from .exports import matrix_csv, trace_json
from .link_guard import index_in_url
from .links import page_link
from .pages import page
from .pickers import pick_head

GROUP, HEAD_PARAM = "attention-head", "head"     # the head's charts switch together; the URL keeps it as `head`
INSIDE_LINKS = "hidden_links_inside"             # the container of the page links to Inside one head, one a head


@fragment()
def attention_views(key: str, text: str) -> None:
    ckpt = checkpoint_for(key)
    run = text_run(key, text)
    config = ckpt.model.config
    kind, layer, _ = pick_head(config, heads=False)     # the head is picked in the browser, below the grid
    views = layer_views(ckpt.model, run, kind, layer)    # one a head
    view, n_heads = views[0], len(views)
    rows, cols = view.rows, view.cols

    st.info(view.explanation)
    st.caption(view.io_caption)

    st.header(f"Every layer and head: {view.kind_name.lower()}")
    n_layers = len(view.weights)
    chosen = index_in_url(HEAD_PARAM, n_heads, model=key)
    grid = attention_grid_spec(view.weights, rows, cols, f"{n_layers} layers × {n_heads} heads, each row of "
                               "weights summing to 1 (framed: the head drawn large below)",
                               query_title=view.row_title, key_title=view.col_title)
    # the grid frames this layer's panel of the head the radio buttons below pick, and follows them in the browser
    grid["follow"] = {"group": GROUP, "panels": [layer * n_heads + h for h in range(n_heads)], "chosen": chosen,
                      "said": "the head drawn large below"}
    canvas_heatmap(grid, key="grid")

    axes = Axes(rows, cols, view.row_title, view.col_title)
    switched_heatmaps(
        [heatmap_spec([Panel(f"head {h}", v.matrix), Panel(f"average of {n_heads} heads (a summary)", v.mean)], axes,
                      f"Layer {layer}, head {h} (left) and the average of its {n_heads} heads (right)") for h, v in enumerate(views)],
        [notes.paragraph(v.row_sums)
         + notes.download_button(f"Download head {h}'s weights (CSV)", f"{kind}_layer{layer}_head{h}_weights.csv")
         for h, v in enumerate(views)], key="detail", group=GROUP, chosen=chosen, picker="Head",
        view_names=[str(h) for h in range(n_heads)], param=HEAD_PARAM,
        csv=[matrix_csv(v.matrix, rows, cols) for v in views])
    st.caption("The average is a summary for reading, not something the model computes: each head's output goes on "
               "to W^O on its own.")
    if view.pattern_sentence:
        st.markdown(view.pattern_sentence)

    st.header("Weight is not influence")
    inside = {h: {"inside_kind": KIND_SHORT[kind], "inside_layer": str(layer), "inside_head": str(h)}
              for h in range(n_heads)}
    sent_most = max(float(v.influence.max()) for v in views)     # one scale for the layer: heads compared by colour
    switched_heatmaps(
        [heatmap_spec([Panel(f"head {h}", v.influence)], axes,
                      f"Head {h} (picked above): what each key sends, ‖w_ij v_j W_O^h‖, on one scale for the "
                      f"layer's {n_heads} heads", Scale(sent_most, stops=ORANGES, value_name="‖w v W_O‖")) for h, v in enumerate(views)],
        [notes.paragraph(v.influence_sentence)
         + notes.page_link(f"{page('inside_one_head').url_path}?{urlencode({'text': text, **inside[h]})}",
                           "Follow one weight of this head, number by number: Inside one head", "🔬")
         for h, v in enumerate(views)], key="influence", group=GROUP, chosen=chosen, links=INSIDE_LINKS)
    with st.container(key=INSIDE_LINKS):   # hidden (explorer.frame's PAGE_CSS): the head's own link clicks its
        for h in range(n_heads):           # one, so it goes as Streamlit's page links go, in the session
            page_link("inside_one_head", f"Inside one head, head {h}", "🔬", inside[h])

    # built only when clicked (a 24-character trace is ~0.5 MB of JSON), in this session's place
    st.download_button("Download the whole trace (JSON)", deferred(trace_json, text, run), file_name="trace.json",
                       mime="application/json", on_click="ignore")
