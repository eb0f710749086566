"""Lab 6: queries and keys in one plane, so a learner sees why a query finds its key."""

import streamlit as st

from analysis.page_models.lab_query_key import query_key_view
from explorer.charts import plotly_chart
from explorer.components import canvas_heatmap
from explorer.cache import text_run
from explorer.pickers import pick_head
from explorer.state import model_and_text
from viz import scores_spec
from viz.lab import query_key_scatter

st.title("🧪 Lab: queries and keys")
st.markdown(
    "A head scores query i against key j by the dot product q_i · k_j (divided by √d_k): not by how close they "
    "are. Here one head's queries are **arrows** from the origin and its keys are **squares**, in the plane of "
    "the keys' two main directions (PCA), coloured by position. Only the keys are centred (their mean taken "
    "away): that shifts every score of a query by the same amount, so its softmax does not change. A query's "
    "score with a key is then, in the plane, the length of the arrow times the key's reach along it."
)

ckpt, key, text = model_and_text()   # key: names the model in use, the key of every cached run
config = ckpt.model.config
run = text_run(key, text)

kind, layer, head = pick_head(config, "qk_")
view = query_key_view(run, kind, layer, head)
qk = view.plane
left, right = st.columns([3, 2])
plotly_chart(query_key_scatter(qk.query_xy, qk.key_xy, view.queries, view.keys, qk.explained, title=view.title),
             key="plane", container=left)
canvas_heatmap(scores_spec(qk.scores, view.queries, view.keys, "Its scores q·k/√d_k (all dimensions)"), key="scores", container=right)
st.caption(view.caption)
