import dataclasses
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from transformer.config import ModelConfig
from transformer.intervention import NO_INTERVENTION, Head, Intervention
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
        assert trace.n_layers(kind) == 2
        assert trace.stack_attention(kind).shape == (2, *shapes[kind])
        for layer in range(2):
            weights, scores, mask = trace[kind, layer], trace.attention(kind, layer, "scores"), trace.mask(kind)
            assert weights.shape == scores.shape == shapes[kind]
            full = mask[:, None].expand_as(weights)
            assert torch.all(weights[~full] == 0)
            assert torch.all(scores[~full] == float("-inf"))
            assert torch.all(torch.isfinite(scores[full]))
            assert torch.allclose(weights.sum(-1)[full.any(-1)], torch.ones(1))
    assert torch.equal(trace["src_positions.rows"][0], tiny_model.positions.table[:s])
    assert trace["tgt_positions.rows"].shape == (b, t, tiny_config.d_model)
    assert trace["masks.target"][1, 0].tolist()[4] == [True, True, True, True, False, False, False]
    assert trace["decoder_layers.1.feed_forward.hidden"].shape == (b, t, tiny_config.d_ff)
    assert trace["generator.logits"].shape == (b, t, tiny_config.vocab_size)


def _ln(norm: nn.LayerNorm, x: torch.Tensor) -> torch.Tensor:
    return F.layer_norm(x, norm.normalized_shape, norm.weight, norm.bias, norm.eps)


def _attention_from(a: nn.Module, record: dict, query_in: torch.Tensor, key_in: torch.Tensor) -> None:
    """Check one attention's recorded numbers, each from the one before it, with the module's own weights."""
    b, tq, d = query_in.shape
    heads = lambda x: x.view(b, x.size(1), a.n_heads, a.d_k).transpose(1, 2)  # noqa: E731
    close = lambda x, y: torch.allclose(x, y, atol=1e-6)  # noqa: E731
    assert close(record["queries"], heads(query_in @ a.w_q.weight.T + a.w_q.bias))      # q = LN(x) W_Q + b
    assert close(record["keys"], heads(key_in @ a.w_k.weight.T + a.w_k.bias))
    assert close(record["values"], heads(key_in @ a.w_v.weight.T + a.w_v.bias))
    scores = record["queries"] @ record["keys"].transpose(-2, -1) / math.sqrt(a.d_k)
    finite = torch.isfinite(record["scores"])
    assert close(record["scores"][finite], scores[finite])                              # QK^T / sqrt(d_k)
    assert close(record["weights"], torch.softmax(record["scores"], -1).nan_to_num(0.0))
    assert close(record["heads"], record["weights"] @ record["values"])                 # head output = weights @ V
    kept = record["heads"] - record.get("switched_off", torch.zeros_like(record["heads"]))
    assert close(record["concat"], kept.transpose(1, 2).reshape(b, tq, d))
    assert close(record["output"], record["concat"] @ a.w_o.weight.T + a.w_o.bias)      # W^O


@pytest.mark.parametrize("norm", ["pre", "post"])
@pytest.mark.parametrize("ablated", [False, True])
@torch.no_grad()
def test_every_traced_value_follows_from_the_one_before_it(norm, ablated):
    """Each recorded activation recomputed by hand from the previous one and the module's own weights."""
    torch.manual_seed(3)
    model = Transformer(ModelConfig(d_model=16, n_heads=4, n_encoder_layers=2, n_decoder_layers=2, d_ff=32,
                                    max_len=8, norm=norm)).eval()
    edit = Intervention(ablated=frozenset({Head("cross", 1, 2), Head("encoder_self", 0, 0)})) if ablated \
        else NO_INTERVENTION
    src, tgt = batch()
    trace = model(src, tgt, trace=True, edit=edit).trace
    close = lambda x, y: torch.allclose(x, y, atol=1e-6)  # noqa: E731
    d = model.config.d_model
    for side, ids, embed in (("src", src, model.src_embed), ("tgt", tgt, model.tgt_embed)):
        assert close(trace[f"{side}_embed.output"], embed.lookup.weight[ids] * math.sqrt(d))   # × √d_model
        assert close(trace[f"{side}_positions.output"],
                     trace[f"{side}_embed.output"] + trace[f"{side}_positions.rows"])
    stream = trace["src_positions.output"]
    for i, layer in enumerate(model.encoder_layers):
        p = f"encoder_layers.{i}"
        stream = _check_residual(trace, f"{p}.attention_residual", layer.attention_residual, stream,
                                 f"{p}.self_attention.output", norm)
        sub = {k.removeprefix(f"{p}.self_attention."): v for k, v in trace.items()
               if k.startswith(f"{p}.self_attention.")}
        inner = trace[f"{p}.attention_residual.sublayer_input"]
        _attention_from(layer.self_attention, sub, inner, inner)
        stream = _check_feed_forward(trace, p, layer, stream, norm)
    memory = trace["encoder_norm.output"]
    assert close(memory, _ln(model.encoder_norm, stream) if norm == "pre" else stream)
    stream = trace["tgt_positions.output"]
    for i, layer in enumerate(model.decoder_layers):
        p = f"decoder_layers.{i}"
        for attention, residual, keys in (("self_attention", "self_residual", None),
                                          ("cross_attention", "cross_residual", memory)):
            stream_before = stream
            stream = _check_residual(trace, f"{p}.{residual}", getattr(layer, residual), stream_before,
                                     f"{p}.{attention}.output", norm)
            sub = {k.removeprefix(f"{p}.{attention}."): v for k, v in trace.items()
                   if k.startswith(f"{p}.{attention}.")}
            inner = trace[f"{p}.{residual}.sublayer_input"]
            _attention_from(getattr(layer, attention), sub, inner, inner if keys is None else keys)
            if ablated and attention == "cross_attention" and i == 1:
                assert torch.all(sub["concat"].view(*sub["concat"].shape[:2], 4, 4)[:, :, 2] == 0)
                assert torch.any(sub["switched_off"][:, 2] != 0)
        stream = _check_feed_forward(trace, p, layer, stream, norm)
    final = trace["decoder_norm.output"]
    assert close(final, _ln(model.decoder_norm, stream) if norm == "pre" else stream)
    assert close(trace["generator.logits"], final @ model.generator.weight.T)
    assert close(trace["generator.logits"], model(src, tgt, edit=edit).logits)   # the untraced fast path agrees


def _check_residual(trace, path: str, residual, stream: torch.Tensor, sublayer_output: str, norm: str):
    """sublayer_input = LN(stream) (pre-norm) or the stream (post-norm); the new stream adds the sublayer's output."""
    inner, out = trace[f"{path}.sublayer_input"], trace[f"{path}.output"]
    if norm == "pre":
        assert torch.allclose(inner, _ln(residual.norm, stream), atol=1e-6)
        assert torch.allclose(out, stream + trace[sublayer_output], atol=1e-6)
    else:
        assert torch.allclose(inner, stream, atol=1e-6)
        assert torch.allclose(out, _ln(residual.norm, stream + trace[sublayer_output]), atol=1e-6)
    return out


def _check_feed_forward(trace, p: str, layer, stream: torch.Tensor, norm: str) -> torch.Tensor:
    out = _check_residual(trace, f"{p}.feed_forward_residual", layer.feed_forward_residual, stream,
                          f"{p}.feed_forward.output", norm)
    ff, inner = layer.feed_forward, trace[f"{p}.feed_forward_residual.sublayer_input"]
    hidden = trace[f"{p}.feed_forward.hidden"]
    assert torch.allclose(hidden, torch.relu(inner @ ff.expand.weight.T + ff.expand.bias), atol=1e-6)
    assert torch.allclose(trace[f"{p}.feed_forward.output"], hidden @ ff.contract.weight.T + ff.contract.bias,
                          atol=1e-6)
    return out


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
    with pytest.raises(TypeError):
        first["cross.weights"] = None  # a read-only mapping


def test_a_batch_row_becomes_numpy_without_its_batch_dimension(tiny_model):
    src, tgt = batch()
    trace = tiny_model(src, tgt, trace=True).trace
    row = trace.row(1)
    assert set(row) == set(trace)
    assert np.array_equal(row["cross", 1], trace["cross", 1][1].numpy())
    assert row.stack_attention("cross").shape == (2, *trace["cross", 0].shape[1:])
    assert row.mask("encoder_self").shape == (src.size(1), src.size(1))


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
