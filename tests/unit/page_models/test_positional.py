"""The Positional encoding page's record, against the sinusoid formula written out again here, the model's own
embedding table, and the rotation and reflection worked out by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from analysis.page_models.positional import positional_view

from .conftest import checkpoint, run_of


def formula(positions: int, d_model: int) -> np.ndarray:
    """PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(the same), in float64."""
    pos = np.arange(positions)[:, None]
    angle = pos / 10000 ** (np.arange(0, d_model, 2) / d_model)           # (P, D/2)
    table = np.empty((positions, d_model))
    table[:, 0::2], table[:, 1::2] = np.sin(angle), np.cos(angle)
    return table


def view_of(text="banana", task="reverse", custom_d=16, custom_len=40, delta=3, pos=2):
    ckpt = checkpoint(task)
    return positional_view(run_of(text, task), ckpt.model.config, custom_d, custom_len, delta, pos), ckpt


def test_the_tables_follow_the_formula():
    view, ckpt = view_of()
    config = ckpt.model.config
    assert view.table.shape == (config.max_len + 1, config.d_model)
    assert np.allclose(view.table, formula(config.max_len + 1, config.d_model), atol=1e-5)
    assert np.allclose(view.custom, formula(40, 16), atol=1e-5)
    assert np.allclose(view.similarity, view.table @ view.table.T, atol=1e-4)


def test_what_is_added_to_the_input_is_the_scaled_embedding_and_the_code():
    view, ckpt = view_of("banana")
    d_model = ckpt.model.config.d_model
    embeddings = ckpt.model.src_embed.lookup.weight.detach().numpy()[list(run_of("banana").source_ids)]
    assert view.source == list("banana")
    assert np.allclose(view.vectors.position_norm, math.sqrt(d_model / 2), atol=1e-4)
    assert np.allclose(view.vectors.embedding_norm, view.vectors.raw_embedding_norm * math.sqrt(d_model), rtol=1e-4)
    assert np.allclose(view.vectors.raw_embedding_norm, np.linalg.norm(embeddings, axis=1), rtol=1e-4)
    assert f"√d_model = {d_model ** 0.5:.2f}" in view.scaling_sentence
    assert f"against the code's {view.vectors.position_norm.max():.1f}" in view.scaling_sentence
    assert list(view.norms["character"]) == list("banana")


@pytest.mark.parametrize("delta, pos", [(3, 2), (20, 24)])
def test_rotating_a_code_by_delta_lands_on_the_code_delta_positions_on(delta, pos):
    view, ckpt = view_of(delta=delta, pos=pos)
    d_model = ckpt.model.config.d_model
    assert np.allclose(view.shifted, formula(pos + delta + 1, d_model)[pos + delta], atol=1e-5)
    assert np.allclose(view.rotated, view.shifted, atol=1e-4)
    assert view.rotation_error < 1e-4
    omega = 1 / 10000 ** (0 / d_model)
    assert view.rotation_table["cos ωδ"][0] == pytest.approx(round(math.cos(omega * delta), 5), abs=1e-5)


def test_the_distance_lines_are_flat_and_the_similarity_sentence_quotes_its_numbers():
    view, _ = view_of()
    for delta, line in view.distances.items():
        assert np.ptp(line) < 1e-4                                      # the same at every pos
        assert f"δ = {delta}: {float(line.max() - line.min()):.1e}" in view.distances_caption
    from_zero = view.similarity[0]
    rises = bool(np.any(np.diff(from_zero) > 1e-6))                    # a farther position more like PE(0)
    assert rises == ("does not fall steadily" in view.similarity_sentence)
    if rises:
        low = int(view.similarity_sentence.split("PE(0)·PE(")[1].split(")")[0])
        assert f"PE(0)·PE({low}) = {from_zero[low]:.1f}" in view.similarity_sentence


@pytest.mark.parametrize("task, title", [("reverse", "a reflection that depends on n"),
                                         ("copy", "the same position on both sides"), ("sort", "letters first")])
def test_each_task_is_told_what_it_needs_of_positions(task, title):
    view, _ = view_of("planet", task)
    assert title in view.need_title
    if task == "reverse":
        assert "determinant -1" in view.need_sentence and "your 6 characters and for 7" in view.need_sentence
