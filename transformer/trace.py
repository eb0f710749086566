"""The record of one forward pass: every attention number, the masks and the positions used.

Like TransformerLens' ActivationCache, a run returns a fresh record and nothing is left on the
modules, so one shared model can serve many sessions at once. Index it as trace["cross", layer].
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import torch

Kind = Literal["encoder_self", "decoder_self", "cross"]
KINDS: tuple[Kind, ...] = ("encoder_self", "decoder_self", "cross")


@dataclass(frozen=True)
class Trace:
    # Attention weights after softmax, one tensor per layer. Rows are queries, columns keys.
    encoder_self: tuple[torch.Tensor, ...]         # (B, H, S, S)
    decoder_self: tuple[torch.Tensor, ...]         # (B, H, T, T)
    cross: tuple[torch.Tensor, ...]                # (B, H, T, S): rows target positions, columns source
    # The scaled scores QK^T / sqrt(d_k) before softmax; masked entries are -inf.
    encoder_self_scores: tuple[torch.Tensor, ...]  # (B, H, S, S)
    decoder_self_scores: tuple[torch.Tensor, ...]  # (B, H, T, T)
    cross_scores: tuple[torch.Tensor, ...]         # (B, H, T, S)
    # The boolean masks the model used (True = may attend).
    src_mask: torch.Tensor                         # (B, 1, 1, S) padding of the source
    tgt_mask: torch.Tensor                         # (B, 1, T, T) causal AND padding of the target
    # The positional encoding rows added to the scaled embeddings.
    src_positions: torch.Tensor                    # (S, d_model)
    tgt_positions: torch.Tensor                    # (T, d_model)
    # The projected queries and keys per kind and layer, (B, H, T_query or T_key, d_k): why a query finds its key.
    queries: dict[Kind, tuple[torch.Tensor, ...]] = field(default_factory=dict)
    keys: dict[Kind, tuple[torch.Tensor, ...]] = field(default_factory=dict)

    def __getitem__(self, key: tuple[Kind, int]) -> torch.Tensor:
        kind, layer = key
        return self.weights(kind, layer)

    def weights(self, kind: Kind, layer: int) -> torch.Tensor:
        _check_kind(kind)
        return getattr(self, kind)[layer]

    def scores(self, kind: Kind, layer: int) -> torch.Tensor:
        _check_kind(kind)
        return getattr(self, f"{kind}_scores")[layer]

    def mask(self, kind: Kind) -> torch.Tensor:
        """(B, 1, T_query, T_key) boolean mask of one attention kind, expanded to the full matrix."""
        _check_kind(kind)
        if kind == "decoder_self":
            return self.tgt_mask
        b, _, _, s = self.src_mask.shape
        queries = s if kind == "encoder_self" else self.tgt_mask.size(-1)
        return self.src_mask.expand(b, 1, queries, s)

    @property
    def n_layers(self) -> dict[Kind, int]:
        return {kind: len(getattr(self, kind)) for kind in KINDS}


def _check_kind(kind: str) -> None:
    if kind not in KINDS:
        raise KeyError(f"attention kind must be one of {KINDS}, not {kind!r}")
