"""The Masks page's record: padding read from the texts' lengths, masked scores that get exactly zero weight,
the facts sentence counted again from the matrix, and the √d_k table's scores spreading as √d_k."""

from __future__ import annotations

import numpy as np
import pytest

from analysis.page_models.masks import D_K_SIZES, batch_texts, masks_view
from analysis.run import make_batch_runs

from .conftest import checkpoint


def batch_of(text: str, task: str = "reverse"):
    ckpt = checkpoint(task)
    texts = batch_texts(text, ckpt.model.config.max_len)
    return texts, make_batch_runs(ckpt.model, ckpt.vocab, list(texts), ckpt.task)


def test_the_padding_mask_is_each_text_length_and_the_causal_mask_is_lower_triangular():
    texts, batch = batch_of("hello")
    view = masks_view(batch, "decoder_self", 0, 0, 0, 64)
    longest = max(map(len, texts))
    assert texts[0] == "hello" and len(texts) == 3 and longest > len("hello")   # the text's row gets padding
    assert view.padding_mask.tolist() == [[i < len(t) for i in range(longest)] for t in texts]
    steps = view.causal_mask.shape[0]
    assert steps == len(batch[0].decoder_in)
    assert np.array_equal(view.causal_mask, np.tril(np.ones((steps, steps), dtype=bool)))
    assert list(view.batch_sources.iloc[0][:5]) == list("hello")


@pytest.mark.parametrize("kind, row", [("decoder_self", 0), ("encoder_self", 0), ("cross", 1)])
def test_masked_scores_are_minus_infinity_and_get_exactly_zero_weight(kind, row):
    _, batch = batch_of("hello")
    view = masks_view(batch, kind, 1, 2, row, 64)
    masked = ~np.isfinite(view.scores)
    assert masked.any()
    assert np.all(view.weights[masked] == 0)
    assert np.array_equal(view.weights, batch[row].trace[kind, 1][2])
    assert f"Masked entries: **{int(masked.sum())}**" in view.masked_sentence
    assert "largest weight any of them received is **0 (exactly)**" in view.masked_sentence
    padded = [i for i, key in enumerate(view.keys) if key == "·"]
    assert ("Padded key columns" in view.masked_sentence) == bool(padded)
    live = masked.sum(axis=1) < masked.shape[1]
    assert np.allclose(view.row_facts["row sum"][live], 1, atol=1e-5)


def test_the_longest_row_of_the_batch_has_no_padding():
    texts, batch = batch_of("hi")
    longest = max(range(len(texts)), key=lambda i: len(texts[i]))
    view = masks_view(batch, "encoder_self", 0, 0, longest, 64)
    assert "This row has no padding" in view.masked_sentence


def test_the_scaling_table_spreads_the_raw_scores_as_root_d_k_and_the_scaled_ones_stay_near_1():
    _, batch = batch_of("hello")
    view = masks_view(batch, "encoder_self", 0, 0, 0, 256)
    table = view.scaling_table
    assert list(table["d_k"]) == list(D_K_SIZES)
    assert np.allclose(table["std of q·k"], np.sqrt(D_K_SIZES), rtol=0.05)
    assert np.allclose(table["std of q·k/√d_k"], 1, atol=0.05)
    assert list(table["largest weight, raw"]) == sorted(table["largest weight, raw"])   # sharper as d_k grows
    assert view.scaling.d_k == 256 and f"the largest weight {view.scaling.top_weight:.3f}" in view.scaling_caption
    assert view.scaling_caption.endswith(f"This model's heads have d_k = {batch[0].d_k}.")
