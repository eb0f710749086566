import math

import pytest
import torch
from torch import nn

from transformer.layers import MultiHeadAttention, TokenEmbedding, sinusoidal_encoding
from transformer.masks import causal_mask, padding_mask
from transformer.trace import Recorder


def test_sinusoid_uses_sin_on_even_and_cos_on_odd_dimensions():
    pe = sinusoidal_encoding(50, 16)
    pos, i = 7, 3  # the pair (2i, 2i+1)
    angle = pos / 10000 ** (2 * i / 16)
    assert pe[pos, 2 * i].item() == pytest.approx(math.sin(angle), abs=1e-6)
    assert pe[pos, 2 * i + 1].item() == pytest.approx(math.cos(angle), abs=1e-6)
    assert pe.abs().max() <= 1.0
    assert len({tuple(row.tolist()) for row in pe}) == 50  # every position has its own code


def test_sinusoid_rejects_odd_width():
    with pytest.raises(ValueError):
        sinusoidal_encoding(4, 7)


def test_embedding_is_scaled_by_sqrt_d_model():
    emb = TokenEmbedding(10, 64)
    ids = torch.tensor([[3, 4]])
    assert torch.allclose(emb(ids), emb.lookup(ids) * 8.0)


def copy_into_torch_mha(ours: MultiHeadAttention, ref: nn.MultiheadAttention) -> None:
    with torch.no_grad():
        ref.in_proj_weight.copy_(torch.cat([ours.w_q.weight, ours.w_k.weight, ours.w_v.weight]))
        ref.in_proj_bias.copy_(torch.cat([ours.w_q.bias, ours.w_k.bias, ours.w_v.bias]))
        ref.out_proj.weight.copy_(ours.w_o.weight)
        ref.out_proj.bias.copy_(ours.w_o.bias)


@pytest.mark.parametrize("trace", [True, False])
def test_multi_head_attention_equals_torch_with_padding_and_causal_masks(trace):
    torch.manual_seed(1)
    d, h = 32, 4
    ours = MultiHeadAttention(d, h, 0.0).eval()
    ref = nn.MultiheadAttention(d, h, batch_first=True).eval()
    copy_into_torch_mha(ours, ref)
    ids = torch.tensor([[5, 6, 7, 8, 9], [5, 6, 7, 0, 0], [5, 0, 0, 0, 0]])
    x = torch.randn(3, 5, d)
    pad = padding_mask(ids, 0)  # (B, 1, 1, S) True = may attend
    # Cross-style: padding only.
    ours_out = ours(x, x, pad, Recorder() if trace else None)
    ref_out, ref_w = ref(x, x, x, key_padding_mask=~pad[:, 0, 0], average_attn_weights=False)
    assert torch.allclose(ours_out, ref_out, atol=1e-5)
    # Decoder-style: causal and padding together; compare the rows of real queries.
    both = causal_mask(5) & pad
    record = Recorder() if trace else None
    ours_out = ours(x, x, both, record)
    ref_out, ref_w = ref(x, x, x, attn_mask=~causal_mask(5)[0, 0], key_padding_mask=~pad[:, 0, 0],
                         average_attn_weights=False)
    real = ids != 0
    assert torch.allclose(ours_out[real], ref_out[real], atol=1e-5)
    if trace:
        assert torch.allclose(record.store["weights"][real[:, None, :].expand(3, h, 5)],
                              ref_w[real[:, None, :].expand(3, h, 5)], atol=1e-5)
