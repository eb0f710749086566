"""Compare tasks: one text, three models of the same architecture (reverse, copy, sort), and their cross-attention."""

import numpy as np
import streamlit as st

from analysis.labels import reads_writes
from analysis.lesson import pattern_shares
from analysis.tasks import WORDS
from explorer.charts import chart_in, show_chart
from explorer.model import checkpoint_or_stop, chosen_task, task_checkpoint, task_run
from explorer.state import learner_text
from explorer.text import answer_metric, escape_markdown, in_full
from transformer.checkpoint import CheckpointError
from transformer.vocab import InputError
from viz import THIRD_WIDTH_TICKS, attention_grid, attention_heatmap

st.title("⚖️ Compare tasks")
st.markdown(
    "The same architecture, the same vocabulary, three trainings: one model learnt to **reverse**, one to "
    "**copy**, one to **sort** the characters (spaces first, then a to z). Attention is how each output step "
    "chooses what to read, so the cross-attention should follow the task: the anti-diagonal for reversing, the "
    "diagonal for copying, and for sorting a pattern set by the letters themselves. Here are the three on your text."
)

text = learner_text(checkpoint_or_stop())
try:
    models = {task: task_checkpoint(task) for task in WORDS}
    for task, ckpt in models.items():
        ckpt.vocab.check(text, ckpt.model.config.max_len)
except (CheckpointError, InputError) as err:
    st.error(escape_markdown(f"The three bundled models cannot all read this text. {err}"), icon="✋")
    st.stop()
runs = {task: task_run(task, text) for task in WORDS}

st.subheader("What each model writes, and its cross head that follows the task most")
columns = st.columns(len(WORDS))
for column, (task, run) in zip(columns, runs.items()):
    words = WORDS[task]
    shares = np.stack([pattern_shares(run, layer) for layer in range(models[task].model.config.n_decoder_layers)])
    layer, best = np.unravel_index(int(shares.argmax()), shares.shape)       # (L, H): the most task-like head
    column.markdown(f"#### {words.label}")
    answer_metric(column, "writes", run, "exactly {output}", "not {output}")
    in_full(column, run.output)
    chart_in(column, attention_heatmap(
        run.trace["cross", layer][best], reads_writes(run.decoder_in, run.decoder_out), run.source,
        title=f"cross L{layer} H{best}", query_title="reads → writes", key_title="source",
        height=420, show_scale=False, max_ticks=THIRD_WIDTH_TICKS), key=f"best_{task}")
    column.caption(f"Cross L{layer} H{best}: {shares[layer, best]:.0%} of your text's output steps put their largest "
                   f"weight on {words.pattern} ({words.short_rule}{', or an equal letter' if task == 'sort' else ''}), "
                   "the most of any cross head of this model.")

st.subheader("Every cross-attention head of each model")
st.caption("One model at a time: switch the tab and watch the same grid of heads change with the task. Rows: what "
           "each decoder position reads → what it writes; columns: your source characters. These are the bundled "
           "models, whatever the sidebar's Model says.")
tabs = st.tabs([WORDS[task].label for task in WORDS], default=WORDS[chosen_task()].label, key="grid_task",
               on_change="rerun", bind="query-params")   # lazy: only the open tab's grid is built and drawn
for tab, (task, run) in zip(tabs, runs.items()):
    if tab.open:
        with tab:
            show_chart(attention_grid(run.trace.stack_attention("cross"), reads_writes(run.decoder_in, run.decoder_out),
                                      run.source, title=f"{WORDS[task].label}: cross-attention, every layer and head"),
                       key=f"grid_{task}")
