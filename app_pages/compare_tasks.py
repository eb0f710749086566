"""Compare tasks: one text, three models of the same architecture (reverse, copy, sort), and their cross-attention."""

import numpy as np
import pandas as pd
import streamlit as st

from analysis.circuits import (CONTENT_CONTENT, FOUR, POSITION_POSITION, TERMS, WITH_WRITTEN, score_split,
                               sharpest_head)
from analysis.labels import reads_writes
from analysis.lesson import pattern_shares
from analysis.tasks import WORDS
from explorer.charts import chart_in, show_chart
from explorer.link_guard import stop_page
from explorer.model import checkpoint_or_stop, chosen_task, task_checkpoint, task_run
from explorer.state import learner_text
from explorer.text import answer_metric, escape_markdown, in_full
from transformer.checkpoint import CheckpointError
from transformer.vocab import InputError
from viz import THIRD_WIDTH_TICKS, attention_grid, attention_heatmap
from viz.circuits import term_grid

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
    stop_page()
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
    held_out = models[task].metrics.get("held_out", {})
    if run.output != run.target and {"exact_match", "n"} <= held_out.keys():
        column.caption(f"Wrong on your text, though it writes {held_out['exact_match']:.2%} of "
                       f"{held_out['n']:,} held-out random strings exactly: a score on random strings is "
                       "an average, not a promise about every text.")

st.subheader("Content or position: what moves a layer-0 cross head's scores")
st.markdown(
    "Each score of a head is a sum of parts (*Inside one head* shows one score split this way). With every "
    "LayerNorm frozen at its mean and spread on your text, the query's stream and the key's stream split into the "
    "character's embedding (**content**), its positional code (**position**), and what earlier sublayers wrote "
    "(the keys here come from the encoder's output, after its layers). So each score is content·content "
    "(the query's character against the key's character), content·position, position·content, "
    "position·position, the terms *with what layers wrote*, and the *biases*: they add up to the model's score."
)
n_heads = models["reverse"].model.config.n_heads
SHARPEST = "the sharpest in each model"
chosen = st.selectbox("Layer-0 cross head", [SHARPEST, *range(n_heads)], key="split_head",
                      format_func=lambda h: h if h == SHARPEST else f"head {h}",
                      help="The sharpest: the head whose rows put the most weight on a single source position, on "
                           "average over your text's output steps.")
splits = {task: score_split(models[task].model, run.trace, "cross", 0,
                            sharpest_head(run.trace, "cross", 0) if chosen == SHARPEST else int(chosen))
          for task, run in runs.items()}
shares = {task: split.shares() for task, split in splits.items()}
st.dataframe(pd.DataFrame([{"task": WORDS[task].label, "head": f"cross L0 H{split.head}",
                            **{name: shares[task][name] for name in TERMS}} for task, split in splits.items()]),
             hide_index=True, width="stretch",
             column_config={name: st.column_config.ProgressColumn(format="percent", min_value=0.0, max_value=1.0)
                            for name in TERMS})
st.caption("Each share: the term with each row's mean taken away (softmax ignores a constant added to a whole "
           "row, so only the rest can move the weights), summed in absolute value over every cell, over the same "
           "summed for all six terms. Rows are the output steps, keys the source positions.")
for task, split in splits.items():
    share = shares[task]
    position, content = share[POSITION_POSITION], share[CONTENT_CONTENT]
    if np.isnan(position):
        st.markdown(f"**{WORDS[task].label}**: your text has one character, so each row has one key and no term "
                    "can move a weight.")
        continue
    largest = max(share, key=share.get)
    st.markdown(
        f"**{WORDS[task].label}**, cross L0 H{split.head}: the largest part is *{largest}* "
        f"(**{share[largest]:.1%}**). Position·position carries **{position:.1%}** and content·content "
        f"**{content:.1%}**, so of these two, on your text, "
        + ("position weighs more than content." if position > content else
           "content weighs more than position." if content > position else "position and content weigh the same.")
        + (" One reading: this head compares less the raw characters and positions than what the encoder and the "
           "decoder's first self-attention computed from them." if largest == WITH_WRITTEN else "")
    )

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
            split = splits[task]
            show_chart(term_grid({name: split.centred(name) for name in FOUR},
                                 reads_writes(run.decoder_in, run.decoder_out), run.source,
                                 f"{WORDS[task].label}: cross L0 H{split.head}, its content and position terms (row "
                                 "mean taken away; not shown: what layers wrote, the biases)", query_title="step", key_title="source"),
                       key=f"split_{task}")
