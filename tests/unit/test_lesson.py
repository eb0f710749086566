import numpy as np
import torch

from transformer import decoding
from transformer.lesson import (
    companions, run_attention, run_batch, run_decoding, run_input_vectors, softmax_with_and_without_scaling,
)
from transformer.vocab import Vocab

vocab = Vocab()


def test_decoding_run_holds_each_steps_own_rows(tiny_model):
    run = run_decoding(tiny_model, vocab, "abc")
    trail = decoding.steps(tiny_model, vocab.encode("abc", 8))
    assert len(run.chosen) == len(trail) == run.probs.shape[0]
    assert np.allclose(run.probs.sum(1), 1, atol=1e-5)
    for t, s in enumerate(trail):
        assert np.allclose(run.cross_rows[t, 1], s.trace["cross", 1][0, :, -1].numpy())
        assert np.all(run.self_rows[t, :, :, t + 1:] == 0)
        # the logits of the final pass at position t equal step t's own scores (causality)
        assert np.allclose(torch.softmax(torch.from_numpy(run.logits[t]), -1).numpy(), s.probs.numpy(), atol=1e-5)


def test_attention_run_labels_and_shapes(tiny_model):
    run = run_attention(tiny_model, vocab, "aba")
    assert run.source == ["a", "b", "a"]
    t = len(run.decoder_in)
    assert run.decoder_in[0] == "⟨s⟩"
    assert run.weights["cross"].shape == (2, 4, t, 3)
    assert run.masks["decoder_self"].tolist() == np.tril(np.ones((t, t), bool)).tolist()


def test_companions_are_longer_when_they_can_be():
    assert all(len(w) > 5 for w in companions("hello", 24))
    assert len(companions("a" * 24, 24)) == 2
    assert all(len(w) <= 8 for w in companions("abcdefgh", 8))


def test_batch_run_pads_and_masks(tiny_model):
    run = run_batch(tiny_model, vocab, ["ab", "abcd"])
    assert run.src_mask.tolist() == [[True, True, False, False], [True, True, True, True]]
    assert run.source[0][2:] == ["·", "·"]
    weights = run.weights["encoder_self"][0]            # (L, H, S, S) of the short row
    assert np.all(weights[..., 2:] == 0)


def test_scaling_comparison_and_a_fully_masked_row():
    scaled, raw = softmax_with_and_without_scaling(np.array([1.0, 0.0, -np.inf]), d_k=16)
    assert scaled[2] == raw[2] == 0 and raw[0] > scaled[0]
    zeros = softmax_with_and_without_scaling(np.array([-np.inf, -np.inf]), d_k=16)
    assert not np.isnan(zeros[0]).any() and zeros[0].sum() == 0


def test_input_vectors_show_the_sqrt_d_model_scaling(tiny_model):
    v = run_input_vectors(tiny_model, vocab, "abc")
    assert np.allclose(v.embedding_norm, v.raw_embedding_norm * 4.0, atol=1e-5)  # sqrt(16)
    assert np.allclose(v.position_norm, np.sqrt(8), atol=1e-5)
