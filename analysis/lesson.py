"""The lessons' numbers about one run: input vectors, mirror shares, and softmax with and without scaling."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from transformer.metrics import mirror_share

from .run import Run

COMPANIONS = (  # batch partners for the masks page, so the learner's word sits among padded rows
    "softmax", "residual", "layer norm", "attention", "feed forward", "encoder decoder",
    "query key value", "positional encoding", "multi head attention", "scaled dot product",
)


def companions(text: str, max_len: int, count: int = 2) -> list[str]:
    """Batch partners longer than the text where possible, so the text's own row gets real padding."""
    fitting = [w for w in COMPANIONS if len(w) <= max_len and w != text]
    longer = sorted((w for w in fitting if len(w) > len(text)), key=len)
    shorter = sorted((w for w in fitting if len(w) <= len(text)), key=len, reverse=True)
    return (longer + shorter)[:count]


def softmax_with_and_without_scaling(scaled_scores: np.ndarray, d_k: int) -> tuple[np.ndarray, np.ndarray]:
    """One row of scaled scores (masked = -inf) -> (softmax of QK^T/sqrt(d_k), softmax of raw QK^T)."""
    scaled = torch.from_numpy(np.asarray(scaled_scores, dtype=np.float64))
    if not torch.isfinite(scaled).any():  # a padded query: every key masked, so it attends to nothing
        return np.zeros(scaled.shape), np.zeros(scaled.shape)
    raw = scaled * math.sqrt(d_k)
    return torch.softmax(scaled, -1).numpy(), torch.softmax(raw, -1).numpy()


@dataclass(frozen=True)
class InputVectors:
    embedding_norm: np.ndarray        # (S,) ||embedding * sqrt(d_model)||
    raw_embedding_norm: np.ndarray    # (S,) ||embedding|| before scaling
    position_norm: np.ndarray         # (S,) ||PE(pos)|| = sqrt(d_model / 2)
    positions: np.ndarray             # (S, d_model) the encoding added to each source position


def input_vectors(run: Run) -> InputVectors:
    scaled, rows = run.trace["src_embed.output"], run.trace["src_positions.rows"]   # (S, d_model) each
    d_model = scaled.shape[-1]
    return InputVectors(
        embedding_norm=np.linalg.norm(scaled, axis=1),
        raw_embedding_norm=np.linalg.norm(scaled / math.sqrt(d_model), axis=1),
        position_norm=np.linalg.norm(rows, axis=1),
        positions=rows,
    )


def mirror_shares(run: Run, layer: int) -> np.ndarray:
    """(H,) per head of one decoder layer: the share of this run's output steps whose largest
    cross-attention weight falls on the mirrored source position n-1-i (transformer.metrics.mirror_share)."""
    cross = torch.tensor(run.trace["cross", layer])[None]                    # (1, H, T, S)
    return mirror_share(cross, torch.tensor([len(run.source_ids)])).numpy()
