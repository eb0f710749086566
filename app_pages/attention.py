"""Attention: every layer and head of the three kinds, a large view of one, and the head average (drawn by
explorer.attention_view, a fragment)."""

import streamlit as st

from explorer.attention_view import attention_views
from explorer.cache import checkpoint_or_stop, model_key
from explorer.state import learner_text

st.title("🔍 Attention")
st.markdown(
    "An attention head turns each position into a **query**, a **key** and a **value**. A query's scores against "
    "all keys, scaled and passed through softmax, become weights that sum to 1; the output is the weighted sum of "
    "the values. Several heads (H of them, numbered from 0) do this side by side with their own projections; their "
    "outputs are concatenated and mixed by W^O."
)
st.latex(r"\begin{gathered}\mathrm{Attention}(Q,K,V)=\mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right)V \\ "
         r"\mathrm{MultiHead}=\mathrm{Concat}(\mathrm{head}_0,\dots,\mathrm{head}_{H-1})\,W^O\end{gathered}")

ckpt = checkpoint_or_stop()
attention_views(model_key(), learner_text(ckpt))
