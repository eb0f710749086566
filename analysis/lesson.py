"""The lessons' numbers: input vectors and pattern shares of a run, and why attention divides by √d_k."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
import torch

from transformer.metrics import pattern_share
from transformer.trace import read_only

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


@dataclass(frozen=True)
class ScalingSample:
    """The paper's argument for dividing by √d_k, on random queries and keys with unit-variance components."""

    d_k: int
    score_std: float           # std of q·k: about √d_k
    scaled_std: float          # std of q·k/√d_k: about 1
    top_weight: float          # mean largest softmax weight without the scaling
    scaled_top_weight: float   # and with it
    gradient: float            # mean Frobenius norm of the softmax's Jacobian without the scaling (0: no gradient)
    scaled_gradient: float     # and with it
    example: np.ndarray        # (n_keys,) one draw's weights without the scaling
    scaled_example: np.ndarray  # (n_keys,) the same draw's weights with it


@functools.lru_cache(maxsize=16)
def scaling_experiment(d_k: int, n_keys: int = 10, draws: int = 2000, seed: int = 0) -> ScalingSample:
    """Seeded, so computed once per process: the five sizes the Masks page tabulates took 0.87 s on every rerun."""
    generator = torch.Generator().manual_seed(seed)
    q = torch.randn(draws, 1, d_k, generator=generator, dtype=torch.float64)       # (draws, 1, d_k)
    k = torch.randn(draws, n_keys, d_k, generator=generator, dtype=torch.float64)  # (draws, n_keys, d_k)
    raw = (q @ k.transpose(1, 2))[:, 0]                                            # (draws, n_keys)
    scaled = raw / math.sqrt(d_k)
    weights = {name: torch.softmax(s, -1) for name, s in (("raw", raw), ("scaled", scaled))}
    jacobian = {name: (torch.diag_embed(p) - p[:, :, None] * p[:, None, :]).flatten(1).norm(dim=1).mean()
                for name, p in weights.items()}                                     # dp/ds = diag(p) − p pᵀ
    return ScalingSample(
        d_k, float(raw.std()), float(scaled.std()),
        float(weights["raw"].max(-1).values.mean()), float(weights["scaled"].max(-1).values.mean()),
        float(jacobian["raw"]), float(jacobian["scaled"]),
        read_only(weights["raw"][0].numpy()), read_only(weights["scaled"][0].numpy()),   # shared by every session
    )


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


def pattern_shares(run: Run, layer: int) -> np.ndarray:
    """(H,) per head of one decoder layer: the share of this run's output steps whose largest
    cross-attention weight falls on the source position its task copies from (transformer.metrics.pattern_share;
    for reversal, the mirrored position n-1-i)."""
    cross = torch.tensor(run.trace["cross", layer])[None]                    # (1, H, T, S)
    return pattern_share(cross, [run.text], run.task).numpy()
