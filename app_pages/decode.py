"""Decode step by step: the decoder input, the next-token distribution and the attention of each step."""

import numpy as np
import pandas as pd
import streamlit as st
import torch

from explorer.model import checkpoint_or_stop, decoding_run
from explorer.state import learner_text, publish, restore
from explorer.text import visible
from transformer.decoding import next_token_probs
from transformer.lesson import SOS_LABEL, token_label
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
    restore("mode", "greedy", ["greedy", "sample"])
    mode = mode_col.segmented_control("Decoding", ["greedy", "sample"], key="mode", required=True)
    publish("mode")
    temperature = temp_col.slider("Temperature T", 0.1, 10.0, 1.0, 0.1, disabled=mode == "greedy",
                                  help="Divides the scores before softmax: below 1 sharpens, above 1 flattens.")
    top_k = k_col.slider("Top-k", 1, config.vocab_size, config.vocab_size, disabled=mode == "greedy",
                         help="Sample only among the k most likely tokens.")
    seed = seed_col.number_input("Seed", 0, 10_000, 0, disabled=mode == "greedy")
sampling = mode == "sample"
run = decoding_run(text, temperature if sampling else None, int(top_k) if sampling else None, int(seed))
n_steps = len(run.chosen)

restore("step", 0, list(range(n_steps)))


def move(to: int) -> None:
    st.session_state["step"] = max(0, min(n_steps - 1, to))


current = st.session_state["step"]
buttons = st.columns([1, 1, 1, 1, 3])
buttons[0].button("⏮ First", on_click=move, args=(0,), width="stretch")
buttons[1].button("◀ Previous", on_click=move, args=(current - 1,), disabled=current == 0, width="stretch")
buttons[2].button("Next ▶", on_click=move, args=(current + 1,), disabled=current == n_steps - 1, width="stretch")
buttons[3].button("Last ⏭", on_click=move, args=(n_steps - 1,), width="stretch")
if n_steps > 1:
    st.slider("Step t", 0, n_steps - 1, key="step")
publish("step")
t = st.session_state["step"]

probs = run.probs[t]
chosen = run.chosen[t]
written = vocab.decode(run.token_ids[: t + 1])
a, b, c = st.columns(3)
a.metric(f"Decoder input at step {t}", " ".join(run.decoder_inputs[t]))
b.metric("Chosen token", chosen, delta=f"p = {probs[run.token_ids[t]]:.3f}", delta_color="off")
c.metric("Written so far", visible(written) or "(nothing yet)")
st.caption(f"Step {t} reads {SOS_LABEL} + the {t} token(s) produced so far ({len(run.decoder_inputs[t])} positions).  "
           f"Full output: **{visible(run.output)}**")

table_col, chart_col = st.columns([1, 2])
order = np.argsort(-probs)[:8]
table_col.markdown("**Top 8 next tokens**")
table_col.dataframe(
    pd.DataFrame({"token": [labels[i] for i in order], "probability": probs[order]}),
    hide_index=True, column_config={"probability": st.column_config.NumberColumn(format="%.4f")},
)
chart_col.plotly_chart(probability_bars(probs, labels, 10, chosen=run.token_ids[t],
                                        title=f"Next-token distribution at step {t}"), key="probs")

st.subheader("The same step at different temperatures")
logits = torch.from_numpy(run.logits[t])
temperatures = (1.0, 3.0, 5.0, 10.0)
by_temperature = {temp: next_token_probs(logits, temp, None).numpy() for temp in temperatures}
entropy = {temp: float(-(p[p > 0] * np.log(p[p > 0])).sum()) for temp, p in by_temperature.items()}
best, second = torch.topk(logits, 2).values.tolist()
st.plotly_chart(temperature_bars(by_temperature, labels), key="temperatures")
st.caption(
    f"Dividing the scores by T before softmax: T below 1 sharpens, T above 1 flattens. This model is very sure: "
    f"its top score leads the next by {best - second:.1f}, so only a large T spreads the probability. "
    + ", ".join(f"T = {temp:g}: top p = {by_temperature[temp].max():.3f}, entropy {entropy[temp]:.2f} nats"
                for temp in temperatures)
    + ". Greedy decoding always takes the tallest bar; sampling draws from the bars."
)

st.subheader("Where this step looked")
layer_col, head_col = st.columns(2)
restore("layer", config.n_decoder_layers - 1, list(range(config.n_decoder_layers)))
layer = layer_col.selectbox("Decoder layer", range(config.n_decoder_layers), key="layer")
publish("layer")
restore("head", 0, list(range(config.n_heads)))
head = head_col.selectbox("Head", range(config.n_heads), key="head")
publish("head")

heads = [f"head {h}" for h in range(config.n_heads)]
cross = run.cross_rows[t, layer]                         # (H, S)
source_n = len(run.source)
target = source_n - 1 - t
peak = int(cross[head].argmax())
st.markdown(
    f"**Cross-attention** — the query comes from the decoder's position {t}, keys and values from the encoder's "
    f"output over the source. Head {head} puts its largest weight ({cross[head].max():.3f}) on source position "
    f"**{peak}** ('{run.source[peak]}')"
    + (f"; reversing means step {t} should copy source position n−1−t = {target}." if 0 <= target < source_n else
       "; this is the step that ends the output.")
)
st.plotly_chart(attention_heatmap(cross, heads, run.source, title=f"Cross-attention at step {t}, layer {layer}, "
                                f"every head (head {head} outlined)", key_title="source position", query_title="",
                                highlight_row=head), key="cross")

self_row = run.self_rows[t, layer]                        # (H, n_steps); columns after t are the future
keys = run.decoder_inputs[-1][:n_steps]
future = float(self_row[:, t + 1:].max()) if t + 1 < n_steps else 0.0
st.markdown(
    f"**Decoder self-attention under the causal mask** — position {t} may look at positions 0..{t} only. "
    f"The largest weight on any future position, over all heads: **{future:.1f}** (exactly zero)."
)
st.plotly_chart(attention_heatmap(self_row, heads, keys, title=f"Decoder self-attention at step {t}, layer {layer}, "
                                f"every head (head {head} outlined)", key_title="decoder position", query_title="",
                                highlight_row=head), key="self")
