"""A head's circuits: the content/position terms of every score add up to the model's own score (every kind and
layer, the three bundled models, a post-norm model), the shares are what they say, and the letter map copies
exactly when the value path is made to copy."""

import math

import numpy as np
import pytest
import torch

from analysis.circuits import (BIASES, FOUR, TERMS, WITH_WRITTEN, SplitUnavailable, letter_map, score_split,
                               sharpest_head)
from analysis.run import make_run
from transformer.checkpoint import bundled_checkpoint, load
from transformer.config import ModelConfig
from transformer.data import TASKS
from transformer.model import Transformer
from transformer.trace import KINDS
from transformer.vocab import CHARACTERS, Vocab


@pytest.fixture(scope="module")
def models():
    return {task: load(bundled_checkpoint(task)) for task in TASKS}


def assert_adds_up(split, traced_scores):
    allowed = split.allowed
    scale = max(1.0, float(np.abs(traced_scores[allowed]).max()))
    assert np.abs(split.score[allowed] - traced_scores[allowed]).max() / scale < 1e-5


@pytest.mark.parametrize("task", list(TASKS))
def test_the_terms_add_up_to_the_models_score_for_every_head(models, task):
    ckpt = models[task]
    run = make_run(ckpt.model, ckpt.vocab, "the quick brown fox", task=task)
    for kind in KINDS:
        for layer in range(run.trace.n_layers(kind)):
            for head in range(ckpt.model.config.n_heads):
                split = score_split(ckpt.model, run.trace, kind, layer, head)
                assert_adds_up(split, run.trace.attention(kind, layer, "scores")[head])
                simple = layer == 0 and kind != "cross"        # the stream is the embedding plus the position
                assert set(split.terms) == (set(FOUR) | {BIASES} if simple else set(TERMS))
                assert split.written is not simple


def test_a_masked_cell_is_split_before_the_mask(bundled):
    run = make_run(bundled.model, bundled.vocab, "banana")
    split = score_split(bundled.model, run.trace, "decoder_self", 0, 1)
    assert not split.allowed.all()
    queries = run.trace["decoder_layers.0.self_attention.queries"][1]         # (T, d_k)
    keys = run.trace["decoder_layers.0.self_attention.keys"][1]
    unmasked = queries @ keys.T / math.sqrt(queries.shape[-1])
    assert np.allclose(split.score, unmasked, atol=1e-4)                      # also where the model puts −∞


def test_shares_measure_what_moves_the_weights(bundled):
    run = make_run(bundled.model, bundled.vocab, "hello")
    split = score_split(bundled.model, run.trace, "cross", 0, sharpest_head(run.trace, "cross", 0))
    shares = split.shares()
    assert sum(shares.values()) == pytest.approx(1.0)
    for name in split.terms:
        centred = split.centred(name)
        assert np.allclose(np.nanmean(centred, axis=1), 0.0, atol=1e-9)       # softmax's blind spot taken away
    centred_score = sum(split.centred(name) for name in split.terms)
    weights = run.trace["cross", 0][split.head]
    softmax = np.exp(centred_score) / np.exp(centred_score).sum(-1, keepdims=True)
    assert np.allclose(softmax, weights, atol=1e-5)                            # and nothing else is lost
    one = make_run(bundled.model, bundled.vocab, "a")
    assert all(math.isnan(s) for s in score_split(bundled.model, one.trace, "cross", 0, 0).shares().values())


def test_the_sharpest_head_has_the_largest_mean_top_weight(bundled):
    run = make_run(bundled.model, bundled.vocab, "banana split")
    top = run.trace["cross", 0].max(-1).mean(-1)                              # (H,)
    assert top[sharpest_head(run.trace, "cross", 0)] == top.max()


def test_a_post_norm_model_splits_its_first_self_attention_only():
    torch.manual_seed(0)
    model = Transformer(ModelConfig(d_model=16, n_heads=2, n_encoder_layers=1, n_decoder_layers=1, d_ff=16,
                                    norm="post", max_len=8)).eval()
    run = make_run(model, Vocab(), "abca")
    for kind in ("encoder_self", "decoder_self"):
        split = score_split(model, run.trace, kind, 0, 1)
        assert_adds_up(split, run.trace.attention(kind, 0, "scores")[1])
    with pytest.raises(SplitUnavailable, match="post-norm"):
        score_split(model, run.trace, "cross", 0, 0)


def copying_model(sign: float) -> Transformer:
    """One head whose value path is ±identity, on embeddings that are orthonormal and centred."""
    torch.manual_seed(0)
    config = ModelConfig(d_model=64, n_heads=1, n_encoder_layers=1, n_decoder_layers=1, d_ff=16, max_len=8)
    model = Transformer(config).eval().requires_grad_(False)
    basis, _ = torch.linalg.qr(torch.randn(64, 64))
    basis = basis - basis.mean(1, keepdim=True)                     # rows of mean 0, so the LayerNorms centre nothing
    model.src_embed.lookup.weight[:] = basis[:config.vocab_size] / 8
    cross = model.decoder_layers[0].cross_attention
    cross.w_v.weight[:] = torch.eye(64)
    cross.w_o.weight[:] = sign * torch.eye(64)
    return model


@pytest.mark.parametrize("sign,copies", [(1.0, len(CHARACTERS)), (-1.0, 0)], ids=["copies", "anti-copies"])
def test_the_letter_map_finds_a_head_that_copies(sign, copies):
    model = copying_model(sign)
    run = make_run(model, Vocab(), "abc")
    letters = letter_map(model, run.trace, Vocab(), 0, 0)
    assert letters.logits.shape == (len(CHARACTERS), len(CHARACTERS))
    assert letters.letters[1:4] == ["a", "b", "c"] and letters.normed
    assert letters.copies == copies


def test_the_letter_map_is_the_heads_direct_path(bundled):
    """Row a: e_a × √d_model, centred, times γ_enc over the encoder stream's mean spread on this run, through the
    head's own rows of W_V and columns of W_O, centred, times γ_dec over the decoder's, then the generator."""
    model = bundled.model
    run = make_run(model, bundled.vocab, "hello")
    letters = letter_map(model, run.trace, bundled.vocab, 1, 2)
    cross = model.decoder_layers[1].cross_attention
    rows = slice(2 * cross.d_k, 3 * cross.d_k)
    memory = run.trace["encoder_layers.1.feed_forward_residual.output"]
    final = run.trace["decoder_layers.1.feed_forward_residual.output"]
    spread_in = np.sqrt(memory.var(-1) + 1e-5).mean()
    spread_out = np.sqrt(final.var(-1) + 1e-5).mean()
    with torch.no_grad():
        e = model.src_embed.lookup.weight[3:].double() * model.src_embed.scale
        normed = (e - e.mean(-1, keepdim=True)) * model.encoder_norm.weight.double() / spread_in
        written = normed @ cross.w_v.weight[rows].double().T @ cross.w_o.weight[:, rows].double().T
        out = (written - written.mean(-1, keepdim=True)) * model.decoder_norm.weight.double() / spread_out
        logits = (out @ model.generator.weight[3:].double().T).numpy()
    assert np.allclose(letters.logits, logits, atol=1e-8)


def test_the_terms_are_panels_two_to_a_row_on_one_signed_scale_with_masked_cells_grey():
    from viz.circuits import terms_spec
    rng = np.random.default_rng(0)
    terms = {name: rng.normal(size=(3, 4)) for name in FOUR}
    terms[FOUR[0]][0, 1] = np.nan                                                        # a masked cell
    spec = terms_spec(terms, list("xyz"), list("abcd"), "T", query_title="step", key_title="source")
    assert [p["title"] for p in spec["panels"]] == list(FOUR) and spec["columns"] == 2
    assert np.allclose(np.array(spec["panels"][3]["z"], dtype=float), terms[FOUR[3]], atol=5e-5)
    assert spec["panels"][0]["z"][0][1] is None and spec["null_text"] == "masked"
    reach = max(np.nanmax(np.abs(t)) for t in terms.values())
    assert spec["zmin"] == -spec["zmax"] and spec["zmax"] == pytest.approx(reach)
