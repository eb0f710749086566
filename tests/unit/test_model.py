import dataclasses

import pytest
import torch
from torch import nn

from transformer.config import ModelConfig
from transformer.masks import causal_mask
from transformer.model import Transformer
from transformer.trace import KINDS

from .test_layers import copy_into_torch_mha


def batch():
    src = torch.tensor([[5, 6, 7, 8, 9, 10], [11, 12, 13, 0, 0, 0], [14, 0, 0, 0, 0, 0]])  # (B, S)
    tgt = torch.tensor([[1, 10, 9, 8, 7, 6, 5], [1, 13, 12, 11, 0, 0, 0], [1, 14, 0, 0, 0, 0, 0]])  # (B, T)
    return src, tgt


def copy_linear(ours: nn.Module, ref: nn.Module) -> None:
    with torch.no_grad():
        ref.weight.copy_(ours.weight)
        ref.bias.copy_(ours.bias)


def torch_reference(model: Transformer) -> nn.Transformer:
    """nn.Transformer of the same shape carrying our weights."""
    c = model.config
    ref = nn.Transformer(c.d_model, c.n_heads, c.n_encoder_layers, c.n_decoder_layers, c.d_ff, dropout=0.0,
                         batch_first=True, norm_first=c.norm == "pre").eval()
    for ours, theirs in zip(model.encoder_layers, ref.encoder.layers):
        copy_into_torch_mha(ours.self_attention, theirs.self_attn)
        copy_linear(ours.feed_forward.expand, theirs.linear1)
        copy_linear(ours.feed_forward.contract, theirs.linear2)
        copy_linear(ours.attention_residual.norm, theirs.norm1)
        copy_linear(ours.feed_forward_residual.norm, theirs.norm2)
    for ours, theirs in zip(model.decoder_layers, ref.decoder.layers):
        copy_into_torch_mha(ours.self_attention, theirs.self_attn)
        copy_into_torch_mha(ours.cross_attention, theirs.multihead_attn)
        copy_linear(ours.feed_forward.expand, theirs.linear1)
        copy_linear(ours.feed_forward.contract, theirs.linear2)
        copy_linear(ours.self_residual.norm, theirs.norm1)
        copy_linear(ours.cross_residual.norm, theirs.norm2)
        copy_linear(ours.feed_forward_residual.norm, theirs.norm3)
    if c.norm == "pre":
        copy_linear(model.encoder_norm, ref.encoder.norm)
        copy_linear(model.decoder_norm, ref.decoder.norm)
    else:  # post-norm has no final norm of its own
        ref.encoder.norm = None
        ref.decoder.norm = None
    return ref


@pytest.mark.parametrize("norm", ["pre", "post"])
def test_logits_equal_torch_transformer_with_copied_weights(tiny_config, norm):
    torch.manual_seed(2)
    model = Transformer(dataclasses.replace(tiny_config, norm=norm)).eval()
    with torch.no_grad():  # random norms, so a mix-up of norm1/norm2 could not hide behind ones and zeros
        for m in model.modules():
            if isinstance(m, nn.LayerNorm):
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.5, 0.5)
    ref = torch_reference(model)
    src, tgt = batch()
    with torch.no_grad():
        ours = model(src, tgt).logits
        src_x = model.positions(model.src_embed(src))
        tgt_x = model.positions(model.tgt_embed(tgt))
        hidden = ref(src_x, tgt_x, tgt_mask=~causal_mask(tgt.size(1))[0, 0], src_key_padding_mask=src == 0,
                     tgt_key_padding_mask=tgt == 0, memory_key_padding_mask=src == 0)
        theirs = model.generator(hidden)
    real = tgt != 0
    assert torch.allclose(ours[real], theirs[real], atol=1e-5)


def test_traced_and_fast_paths_give_the_same_logits(tiny_model):
    src, tgt = batch()
    fast = tiny_model(src, tgt)
    traced = tiny_model(src, tgt, trace=True)
    assert fast.trace is None
    assert torch.allclose(fast.logits, traced.logits, atol=1e-6)


def test_trace_has_every_layer_and_head_with_documented_shapes(tiny_model, tiny_config):
    src, tgt = batch()
    trace = tiny_model(src, tgt, trace=True).trace
    b, s, t, h = 3, src.size(1), tgt.size(1), tiny_config.n_heads
    shapes = {"encoder_self": (b, h, s, s), "decoder_self": (b, h, t, t), "cross": (b, h, t, s)}
    for kind in KINDS:
        assert len(getattr(trace, kind)) == 2
        for layer in range(2):
            weights, scores, mask = trace[kind, layer], trace.scores(kind, layer), trace.mask(kind)
            assert weights.shape == scores.shape == shapes[kind]
            full = mask.expand_as(weights)
            assert torch.all(weights[~full] == 0)
            assert torch.all(scores[~full] == float("-inf"))
            assert torch.all(torch.isfinite(scores[full]))
            assert torch.allclose(weights.sum(-1)[full.any(-1)], torch.ones(1))
    assert torch.equal(trace.src_positions, tiny_model.positions.table[:s])
    assert trace.tgt_positions.shape == (t, tiny_config.d_model)
    assert trace.tgt_mask[1, 0].tolist()[4] == [True, True, True, True, False, False, False]


def test_cross_attention_rows_are_target_positions(tiny_model):
    src = torch.tensor([[5, 6, 7]])
    tgt = torch.tensor([[1, 7, 6, 5, 2]])
    assert tiny_model(src, tgt, trace=True).trace["cross", 0].shape == (1, 4, 5, 3)


def test_each_call_returns_a_fresh_trace_and_stores_nothing_on_modules(tiny_model):
    src, tgt = batch()
    before = {name: set(vars(m)) for name, m in tiny_model.named_modules()}
    first = tiny_model(src, tgt, trace=True).trace
    second = tiny_model(src[:1], tgt[:1], trace=True).trace
    after = {name: set(vars(m)) for name, m in tiny_model.named_modules()}
    assert before == after
    assert first is not second and first["cross", 1].shape[0] == 3 and second["cross", 1].shape[0] == 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.cross = ()


def test_trace_rejects_unknown_kind(tiny_model):
    src, tgt = batch()
    trace = tiny_model(src, tgt, trace=True).trace
    with pytest.raises(KeyError):
        trace["sideways", 0]


def test_tied_embeddings_share_one_matrix(tiny_model):
    assert tiny_model.generator.weight is tiny_model.src_embed.lookup.weight
    assert tiny_model.tgt_embed is tiny_model.src_embed
    untied = Transformer(ModelConfig(d_model=16, d_ff=32, tie_embeddings=False))
    assert untied.generator.weight is not untied.src_embed.lookup.weight


def test_config_rejects_impossible_shapes():
    with pytest.raises(ValueError):
        ModelConfig(d_model=30, n_heads=4)
    with pytest.raises(ValueError):
        ModelConfig(norm="middle")


@pytest.mark.parametrize("tie", [True, False])
def test_parameter_counts_add_up_to_the_total(tie):
    model = Transformer(ModelConfig(d_model=16, d_ff=32, tie_embeddings=tie))
    assert sum(model.parameter_counts().values()) == model.n_parameters()
