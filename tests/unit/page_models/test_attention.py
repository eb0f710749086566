"""The Attention page's record: the trace's own weights, the head average, the row sums and masked entries
counted again, the cross pattern's shares worked out from the weights, and the keys that send the most."""

from __future__ import annotations

import numpy as np
import pytest

from analysis.page_models.attention import attention_view
from transformer.trace import KINDS

from .conftest import checkpoint, run_of


@pytest.mark.parametrize("kind", KINDS)
def test_the_chosen_head_and_the_average_are_the_trace_weights(reverser, kind):
    run = run_of("banana")
    view = attention_view(reverser.model, run, kind, 1, 2)
    weights = np.stack([run.trace[kind, layer] for layer in range(run.trace.n_layers(kind))])   # (L, H, Tq, Tk)
    assert np.array_equal(view.weights, weights)
    assert np.array_equal(view.matrix, weights[1, 2])
    assert np.allclose(view.mean, weights[1].mean(axis=0))
    assert view.n_heads == reverser.model.config.n_heads
    assert view.matrix.shape == (len(view.rows), len(view.cols))
    sums = weights[1, 2].sum(axis=1)
    assert f"from **{sums.min():.6f}** to **{sums.max():.6f}**" in view.row_sums
    assert view.io_caption == "Input **banana** → output **ananab**"


def test_the_causal_mask_is_counted_and_its_weights_are_exactly_zero(reverser):
    view = attention_view(reverser.model, run_of("level"), "decoder_self", 0, 0)
    steps = len(view.rows)                                       # 6: ⟨s⟩ and five characters
    assert f"Masked entries: **{steps * (steps - 1) // 2}**, largest weight on any of them **0 (exactly)**" in (
        view.row_sums)
    encoder = attention_view(reverser.model, run_of("level"), "encoder_self", 0, 0)
    assert "No entry is masked" in encoder.row_sums and encoder.pattern_sentence is None


@pytest.mark.parametrize("task, mirrored", [("reverse", True), ("copy", False)])
def test_the_cross_pattern_share_is_how_often_a_head_top_weight_is_on_the_task_position(task, mirrored):
    text = "planet"
    run = run_of(text, task)
    view = attention_view(checkpoint(task).model, run, "cross", 1, 0)
    n = len(text)
    for head in range(view.n_heads):
        tops = run.trace["cross", 1][head][:n].argmax(axis=1)    # the steps that write a character
        share = np.mean(tops == (np.arange(n)[::-1] if mirrored else np.arange(n)))
        assert f"head {head}: **{share:.0%}**" in view.pattern_sentence
    assert ("anti-diagonal" in view.explanation) == mirrored


def test_the_rows_where_weight_and_influence_disagree_are_counted(reverser):
    run = run_of("banana")
    view = attention_view(reverser.model, run, "cross", 0, 1)
    assert view.influence.shape == view.matrix.shape and np.all(view.influence >= 0)
    assert np.all((view.influence > 0) == (view.matrix > 0))     # ‖w v W_O‖ is zero exactly where w is
    differ = int((view.matrix.argmax(1) != view.influence.argmax(1)).sum())
    assert f"in **{differ} of {len(view.rows)}** rows" in view.influence_sentence
