"""Decode step by step: the decoder input, the next-token distribution and the attention of each step."""

import numpy as np
import pandas as pd
import streamlit as st
import torch

from analysis.labels import SOS_LABEL, token_label, weight_text
from analysis.tasks import expected_source
from explorer.callbacks import move_slider
from explorer.charts import chart_in, show_chart
from explorer.model import checkpoint_or_stop, text_run
from explorer.pickers import pick_head
from explorer.state import VIEW, keep_in_range, learner_text
from explorer.text import visible
from transformer.decoding import next_token_probs
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
text = learner_text(ckpt)
config, vocab = ckpt.model.config, ckpt.vocab
labels = [token_label(vocab, i) for i in range(vocab.size)]

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
sampling = mode == "sample"
run = text_run(text, temperature if sampling else None, int(top_k) if sampling else None, int(seed))
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

probs = run.probs[t]
chosen = run.decoder_out[t]
written = vocab.decode(list(run.fed_ids[: t + 1]))
a, b, c = st.columns(3)
a.metric(f"Decoder input at step {t}", " ".join(run.decoder_in[: t + 1]))
b.metric("Chosen token", chosen, delta=f"p = {probs[run.chosen_ids[t]]:.3f}", delta_color="off")
c.metric("Written so far", visible(written) or "(nothing yet)")
st.caption(f"Step {t} reads {SOS_LABEL} + the {t} token(s) produced so far ({t + 1} positions).  "
           f"Full output: **{visible(run.output)}**")

table_col, chart_col = st.columns([1, 2])
order = np.argsort(-probs)[:8]
table_col.markdown("**Top 8 next tokens**")
table_col.dataframe(
    pd.DataFrame({"token": [labels[i] for i in order], "probability": probs[order]}),
    hide_index=True, column_config={"probability": st.column_config.NumberColumn(format="%.4f")},
)
chart_in(chart_col, probability_bars(probs, labels, 10, chosen=run.chosen_ids[t],
                                     title=f"Next-token distribution at step {t}"), key="probs")

st.subheader("The same step at different temperatures")
logits = torch.tensor(run.logits[t])
temperatures = (0.5, 1.0, 3.0, 5.0, 10.0)
by_temperature = {temp: next_token_probs(logits, temp, None).numpy() for temp in temperatures}
entropy = {temp: float(-(p[p > 0] * np.log(p[p > 0])).sum()) for temp, p in by_temperature.items()}
best, second = torch.topk(logits, 2).values.tolist()
show_chart(temperature_bars(by_temperature, labels), key="temperatures")
st.caption(
    f"Dividing the scores by T before softmax: T below 1 sharpens, T above 1 flattens. At this step the top score "
    f"leads the next by {best - second:.1f}"
    + (", so only a large T spreads the probability. " if by_temperature[3.0].max() > 0.5 else
       ", so a moderate T already spreads the probability. ")
    + ", ".join(f"T = {temp:g}: top p = {by_temperature[temp].max():.3f}, entropy {entropy[temp]:.2g} nats"
                for temp in temperatures)
    + ". Greedy decoding always takes the tallest bar; sampling draws from the bars."
)

st.subheader("Where this step looked")
_, layer, head = pick_head(config, "step_", kinds=("cross",), layer_label="Decoder layer")

heads = [f"head {h}" for h in range(config.n_heads)]
cross = run.trace["cross", layer][:, t]                  # (H, S): step t's row; the causal mask makes it step t's own
target = expected_source(text, ckpt.task, t)
peak = int(cross[head].argmax())
st.markdown(
    f"**Cross-attention** — the query comes from the decoder's position {t}, keys and values from the encoder's "
    f"output over the source. Head {head} puts its largest weight ({cross[head].max():.3f}) on source position "
    f"**{peak}** ('{run.source[peak]}')"
    + (f"; to {ckpt.task}, step {t} copies source position **{target}** ('{run.source[target]}')"
       + (" or an equal character" if ckpt.task == "sort" else "") + "."
       if target is not None else "; this is the step that ends the output.")
)
show_chart(attention_heatmap(cross, heads, run.source, title=f"Cross-attention at step {t}, layer {layer}, "
                           f"every head (head {head} outlined)", key_title="source position", query_title="",
                           highlight_row=head), key="cross")

self_row = run.trace["decoder_self", layer][:, t]          # (H, n_steps); columns after t are the future
keys = run.decoder_in
future = weight_text(float(self_row[:, t + 1:].max())) if t + 1 < n_steps else "none (no later position)"
taught = text_run(text, teacher=True).trace.stack_attention("decoder_self")   # (L, H, T, T), the correct prefix fed
taught_future = float(np.triu(taught, k=1).max())
st.markdown(
    f"**Decoder self-attention under the causal mask** — position {t} may look at positions 0..{t} only. While "
    "generating, the later tokens do not exist yet; this page reads every step from one pass over the whole "
    f"decoding, and the mask is why row {t} of that pass is exactly what step {t} computed alone. Its largest "
    f"weight on a later position, over all heads: **{future}**. In training the same mask lets every position "
    "of a word learn in one parallel pass (teacher forcing), none reading the answer after it: in that pass over "
    f"your text, the largest weight any position puts on a later one, over every layer and head, is "
    f"**{weight_text(taught_future)}**."
)
show_chart(attention_heatmap(self_row, heads, keys, title=f"Decoder self-attention at step {t}, layer {layer}, "
                           f"every head (head {head} outlined)", key_title="decoder position", query_title="",
                           highlight_row=head), key="self")
