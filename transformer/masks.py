"""The masks, in one convention: boolean, True means "this query may attend to this key".

Every mask broadcasts against attention scores of shape (B, H, T_query, T_key).
The additive -inf form exists only inside attention (layers.scaled_dot_product_attention).
"""

from __future__ import annotations

import torch


def padding_mask(ids: torch.Tensor, pad_id: int) -> torch.Tensor:
    """(B, L) token ids -> (B, 1, 1, L): True where the key is a real token, False on padding."""
    return (ids != pad_id)[:, None, None, :]


def causal_mask(length: int, device: torch.device | str | None = None) -> torch.Tensor:
    """(1, 1, T, T) lower triangle: query t may attend to keys 0..t, never to the future."""
    return torch.ones(length, length, dtype=torch.bool, device=device).tril()[None, None]


def decoder_mask(tgt: torch.Tensor, pad_id: int) -> torch.Tensor:
    """(B, T) decoder input -> (B, 1, T, T): causal AND not padding."""
    return causal_mask(tgt.size(1), tgt.device) & padding_mask(tgt, pad_id)
