"""Decode step by step: the decoder input, the next-token distribution and the attention of each step (every step
sent at once by explorer.decode_view, and drawn in the browser as the learner steps)."""

import streamlit as st

from explorer.decode_view import decode_view
from explorer.state import VIEW, model_and_text

st.title("⏯️ Decode step by step")
st.markdown(
    "The decoder is **auto-regressive**: at step *t* it reads the start symbol ⟨s⟩ followed by the *t* "
    "characters it has already written, and the generator (a linear layer and a softmax) turns the last "
    "position into a probability for every possible next token. One is chosen, appended, and the loop goes on "
    "until it writes the end symbol ⟨/s⟩."
)
st.latex(r"P(y_{t+1} \mid y_{\le t}, x) = \mathrm{softmax}\!\left(\frac{W\,h_t}{T}\right)")

ckpt, key, text = model_and_text()   # key: names the model in use, the key of every cached run
config = ckpt.model.config

with st.expander("How the next token is chosen", expanded=False):
    mode_col, temp_col, k_col, seed_col = st.columns(4)
    mode = mode_col.segmented_control("Decoding", ["greedy", "sample"], default="greedy", key="mode",
                                      required=True, **VIEW)
    temperature = temp_col.slider("Temperature T", 0.1, 10.0, 1.0, 0.1, disabled=mode == "greedy", key="temperature",
                                  help="Divides the scores before softmax: below 1 sharpens, above 1 flattens.",
                                  **VIEW)
    top_k = k_col.slider("Top-k", 1, config.vocab_size, config.vocab_size, disabled=mode == "greedy", key="top_k",
                         help="Sample only among the k most likely tokens.", **VIEW)
    seed = seed_col.number_input("Seed", 0, 10_000, 0, disabled=mode == "greedy", key="seed", **VIEW)
    st.caption("How this page's tokens were decided. Greedy: the task's answer read through the decoder as a draft "
               "in one pass and kept up to the first position where the model's own choice differs, then one step "
               "at a time: exactly the tokens greedy decoding writes. Sampled: one step at a time. A step taken on "
               "its own runs only its position through the decoder, reading the earlier positions' keys and values "
               "from a cache (below the charts).")
sampling = mode == "sample"
decode_view(key, text, temperature if sampling else None, int(top_k) if sampling else None, int(seed))
