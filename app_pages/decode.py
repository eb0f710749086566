"""Decode step by step: the decoder input, the next-token distribution and the attention of each step."""

import pandas as pd
import streamlit as st

from analysis.page_models.decode import decode_step
from explorer.callbacks import move_slider
from explorer.charts import chart_in, show_chart
from explorer.cache import checkpoint_or_stop, model_key, text_run
from explorer.pickers import pick_head
from explorer.state import VIEW, keep_in_range, learner_text
from viz import attention_heatmap, probability_bars, temperature_bars

st.title("⏯️ Decode step by step")
st.markdown(
    "The decoder is **auto-regressive**: at step *t* it reads the start symbol ⟨s⟩ followed by the *t* "
    "characters it has already written, and the generator (a linear layer and a softmax) turns the last "
    "position into a probability for every possible next token. One is chosen, appended, and the loop goes on "
    "until it writes the end symbol ⟨/s⟩."
)
st.latex(r"P(y_{t+1} \mid y_{\le t}, x) = \mathrm{softmax}\!\left(\frac{W\,h_t}{T}\right)")

ckpt = checkpoint_or_stop()
key = model_key()   # names the model in use: the key of every cached run below
text = learner_text(ckpt)
config, vocab = ckpt.model.config, ckpt.vocab

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
    st.caption("How this page's tokens were decided. Greedy: the task's answer read as a draft in one pass and kept "
               "up to the first position where the model's own choice differs, then one step at a time: the tokens "
               "greedy decoding writes, exactly. Sampled: one step at a time. Either way a step runs only its own "
               "position through the decoder, reading the earlier positions' keys and values from a cache.")
sampling = mode == "sample"
run = text_run(key, text, temperature if sampling else None, int(top_k) if sampling else None, int(seed))
n_steps = len(run.chosen_ids)
keep_in_range("step", 0, n_steps - 1)


buttons = st.columns([1, 1, 1, 1, 3])             # drawn above the slider, filled in once it has a value
t = st.slider("Step t", 0, n_steps - 1, 0, key="step", **VIEW) if n_steps > 1 else 0
buttons[0].button("⏮ First", on_click=move_slider, args=("step", 0, n_steps - 1, 0), width="stretch")
buttons[1].button("◀ Previous", on_click=move_slider, args=("step", 0, n_steps - 1), kwargs={"by": -1}, disabled=t == 0, width="stretch",
                  shortcut="Left", help="Previous step (← key)")
buttons[2].button("Next ▶", on_click=move_slider, args=("step", 0, n_steps - 1), kwargs={"by": 1}, disabled=t == n_steps - 1, width="stretch",
                  shortcut="Right", help="Next step (→ key)")
buttons[3].button("Last ⏭", on_click=move_slider, args=("step", 0, n_steps - 1, n_steps - 1), width="stretch")

upper = st.container()                           # drawn once the head below is picked
st.subheader("Where this step looked")
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
    table_col.dataframe(
        pd.DataFrame({"token": view.top_tokens, "probability": view.top_probs}),
        hide_index=True, column_config={"probability": st.column_config.NumberColumn(format="%.4f")},
    )
    chart_in(chart_col, probability_bars(view.probs, view.labels, 10, chosen=view.chosen_id,
                                         title=f"Next-token distribution at step {t}"), key="probs")

    st.subheader("The same step at different temperatures")
    show_chart(temperature_bars(view.by_temperature, view.labels), key="temperatures")
    st.caption(view.temperature_caption)

heads = [f"head {h}" for h in range(config.n_heads)]
st.markdown(view.cross_sentence)
show_chart(attention_heatmap(view.cross, heads, view.source, title=f"Cross-attention at step {t}, layer {layer}, "
                           f"every head (head {head} outlined)", key_title="source position", query_title="",
                           highlight_row=head), key="cross")
st.markdown(view.self_sentence)
show_chart(attention_heatmap(view.decoder_self, heads, view.decoder_keys, title=f"Decoder self-attention at step "
                           f"{t}, layer {layer}, every head (head {head} outlined)", key_title="decoder position",
                           query_title="", highlight_row=head), key="self")
