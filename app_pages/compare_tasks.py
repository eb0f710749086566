"""Compare tasks: one text, three models of the same architecture (reverse, copy, sort), the model in use beside
them when it is of another task, and their cross-attention."""

import streamlit as st

from analysis.page_models.compare_tasks import (ALONE, COMPARED, OWN, ROLE_TERMS, SHARPEST, TERMS, WHOLE,
                                             column_label, compare_tasks_view)
from explorer.callbacks import head_choice
from explorer.components import canvas_heatmap
from explorer.errors import CheckpointError, InputError
from explorer.link_guard import stop_page
from explorer.cache import (beside_the_bundled, checkpoint_or_stop, chosen_task, model_key, position_means_for,
                            task_checkpoint, task_position_means, task_run, text_run)
from explorer.state import learner_text
from explorer.text import answer_metric, escape_markdown, in_full
from viz import attention_grid_spec
from viz.attention import weights_spec
from viz.circuits import terms_spec

st.title("⚖️ Compare tasks")
st.markdown(
    "The same architecture, the same vocabulary, three trainings: one model learnt to **reverse**, one to "
    "**copy**, one to **sort** the characters (spaces first, then a to z). Attention is how each output step "
    "chooses what to read, so the cross-attention should follow the task: the anti-diagonal for reversing, the "
    "diagonal for copying, and for sorting a pattern set by the letters themselves. Here are the three on your text."
)

in_use, key = checkpoint_or_stop(), model_key()
text = learner_text(in_use)
try:
    models = {task: task_checkpoint(task) for task in COMPARED}
    for task, ckpt in models.items():
        ckpt.vocab.check(text, ckpt.model.config.max_len)
except (CheckpointError, InputError) as err:
    st.error(escape_markdown(f"The three bundled models cannot all read this text. {err}"), icon="✋")
    stop_page()
runs = {task: task_run(task, text) for task in COMPARED}
if beside_the_bundled(key):   # the model in use, of a task of its own: a fourth column
    models[OWN], runs[OWN] = in_use, text_run(key, text)
    size = in_use.model.config
    st.markdown(escape_markdown(
        f"Beside them, {column_label(OWN, in_use.task).lower()}: the model the sidebar has chosen, trained on a "
        f"task of its own, with {size.n_encoder_layers} + {size.n_decoder_layers} layers and {size.n_heads} heads "
        f"(the three: {models['reverse'].model.config.n_encoder_layers} + "
        f"{models['reverse'].model.config.n_decoder_layers} and {models['reverse'].model.config.n_heads})."))

st.header("What each model writes, and its cross head that follows the task most")
columns_part = st.container()                  # drawn once the head below is chosen

st.header("Content or position: what moves a layer-0 cross head's scores")
st.markdown(
    "Each score of a head is a sum of parts (*Inside one head* shows one score split this way). Split them **by "
    "role**: the *position-like* part of a stream at a position is its mean over 200 random texts of your text's "
    "length, decoded towards their own answers: it depends on where and how long, never on the letters. The "
    "*content-like* part is the rest: what your letters changed there. With every LayerNorm frozen at its mean "
    "and spread on your text, each score is then position·position, position·content (the query's part first), "
    "content·position, content·content and the *biases*, and they add up to the model's score."
)
n_heads = models["reverse"].model.config.n_heads
chosen = st.selectbox("Layer-0 cross head", [SHARPEST, *range(n_heads)], key="split_head",
                      format_func=head_choice,
                      help="The sharpest: the head whose rows put the most weight on a single source position, on "
                           "average over your text's output steps.")
from_terms = st.segmented_control("Weights from", [WHOLE, *ALONE], default=WHOLE, key="split_alone",
                                  bind="query-params", required=True,
                                  help="The chosen head's weights recomputed from these terms alone: softmax over "
                                       "each row of their sum. Which key still comes out on top?")
means = {task: task_position_means(task, runs[task]) for task in COMPARED}
if OWN in models:
    means[OWN] = position_means_for(key, runs[OWN])
view = compare_tasks_view(models, runs, chosen, means, from_terms or WHOLE)

with columns_part:
    for column, task_view in zip(st.columns(len(view.columns)), view.columns):
        column.markdown(f"### {task_view.label}")    # under the section's h2
        answer_metric(column, "writes", task_view.run, "exactly {output}", "not {output}")
        in_full(column, task_view.run.output)
        canvas_heatmap(weights_spec(task_view.best, task_view.rows, task_view.source, task_view.best_title,
                                    "reads → writes", "source", height=420),
                       key=f"best_{task_view.id}", container=column)
        column.caption(task_view.best_caption)
        if task_view.wrong_note is not None:
            column.caption(task_view.wrong_note)

st.dataframe(view.role_table, hide_index=True, width="stretch",
             column_config={name: st.column_config.ProgressColumn(format="percent", min_value=0.0, max_value=1.0)
                            for name in ROLE_TERMS})
st.caption("Each share: the term with each row's mean taken away (softmax ignores a constant added to a whole "
           "row, so only the rest can move the weights), summed in absolute value over every cell, over the same "
           "summed for all five terms. Rows are the output steps, keys the source positions.")
for task_view in view.columns:
    st.markdown(task_view.role_sentence)
for column, task_view in zip(st.columns(len(view.columns)), view.columns):
    canvas_heatmap(weights_spec(task_view.role_weights, task_view.rows, task_view.source,
                                task_view.role_weights_title, "reads → writes", "source", height=420), key=f"alone_{task_view.id}", container=column)

st.subheader("The raw codes, before the encoder rewrote where each character stands")
st.markdown(
    "Split by source instead, the query's stream and the key's stream are the character's embedding "
    "(**content**), its sinusoidal positional code (**position**), and what earlier sublayers wrote (the keys "
    "here come from the encoder's output, after its layers). Each score is then content·content, "
    "content·position, position·content, position·position, the terms *with what layers wrote*, and the "
    "*biases*. Whatever the encoder made of where a character stands is counted with what layers wrote."
)
st.dataframe(view.split_table, hide_index=True, width="stretch",
             column_config={name: st.column_config.ProgressColumn(format="percent", min_value=0.0, max_value=1.0)
                            for name in TERMS})
st.caption("Each share as above, over all six terms of this split.")
for task_view in view.columns:
    st.markdown(task_view.split_sentence)

st.header("Every cross-attention head of each model")
st.caption("One model at a time: switch the tab and watch the same grid of heads change with the task. Rows: what "
           "each decoder position reads → what it writes; columns: your source characters. These are the bundled "
           "models" + (", and the model the sidebar has chosen." if OWN in models else
                       ", whatever the sidebar's Model says."))
tabs = st.tabs(list(view.labels.values()), default=view.labels[chosen_task()], key="grid_task",
               on_change="rerun", bind="query-params")   # lazy: only the open tab's grid is built and drawn
for tab, task_view in zip(tabs, view.columns):
    if tab.open:
        with tab:
            canvas_heatmap(attention_grid_spec(task_view.grid, task_view.rows, task_view.source, task_view.grid_title,
                                               query_title="decoder step", key_title="source position"), key=f"grid_{task_view.id}")
            canvas_heatmap(terms_spec(task_view.split_terms, task_view.rows, task_view.source, task_view.split_title,
                                      "step", "source"), key=f"split_{task_view.id}")
