import torch

from transformer.layers import MultiHeadAttention, scaled_dot_product_attention
from transformer.masks import causal_mask, decoder_mask, padding_mask
from transformer.trace import Recorder


def test_padding_mask_marks_real_tokens_true():
    ids = torch.tensor([[5, 6, 0], [7, 0, 0]])
    mask = padding_mask(ids, pad_id=0)
    assert mask.shape == (2, 1, 1, 3) and mask.dtype == torch.bool
    assert mask[:, 0, 0].tolist() == [[True, True, False], [True, False, False]]


def test_causal_mask_is_lower_triangular():
    mask = causal_mask(4)[0, 0]
    assert mask.tolist() == [[j <= i for j in range(4)] for i in range(4)]


def test_decoder_mask_is_causal_and_padding():
    tgt = torch.tensor([[1, 5, 0]])
    mask = decoder_mask(tgt, pad_id=0)[0, 0]
    assert mask.tolist() == [[True, False, False], [True, True, False], [True, True, False]]


def test_masks_follow_the_device_of_their_input():
    ids = torch.tensor([[1, 2, 0]], device="meta")
    assert decoder_mask(ids, 0).device.type == "meta"


def test_masked_weights_are_exactly_zero_and_rows_sum_to_one():
    torch.manual_seed(0)
    q, k, v = torch.randn(3, 2, 2, 4, 8).unbind(0)  # (B=2, H=2, T=4, d_k=8)
    mask = decoder_mask(torch.tensor([[1, 4, 5, 0], [1, 4, 0, 0]]), 0)
    record = Recorder()
    scaled_dot_product_attention(q, k, v, mask, record)
    weights, scores = record.store["weights"], record.store["scores"]
    full = mask.expand_as(weights)
    assert torch.all(weights[~full] == 0)
    assert torch.all(torch.isinf(scores[~full]))
    assert torch.allclose(weights.sum(-1), torch.ones(2, 2, 4))


def test_a_row_with_every_key_masked_gives_zeros_not_nan_on_both_paths():
    torch.manual_seed(0)
    attention = MultiHeadAttention(8, 2, 0.0).eval()
    x = torch.randn(2, 3, 8)
    mask = padding_mask(torch.tensor([[4, 5, 6], [0, 0, 0]]), 0)  # second sequence is all padding
    record = Recorder()
    traced = attention(x, x, mask, record)
    fast = attention(x, x, mask)
    assert not torch.isnan(record.store["weights"]).any()
    assert torch.all(record.store["weights"][1] == 0)
    assert not torch.isnan(traced).any() and not torch.isnan(fast).any()
    assert torch.allclose(traced, fast, atol=1e-6)
