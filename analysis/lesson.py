"""The lessons' numbers: input vectors and pattern shares of a run, why attention divides by √d_k, how much an
encoder head looks at the last character, and what the decoder writes after a wrong first token."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
import torch

from transformer.data import pad, target
from transformer.decoding import max_output_tokens
from transformer.metrics import pattern_share
from transformer.model import Transformer
from transformer.trace import read_only
from transformer.vocab import EOS, PAD, SOS, Vocab

from .lab import Progress, report
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
    """Seeded, so computed once per process rather than on every rerun of the Masks page, which tabulates five sizes."""
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


def last_key_shares(run: Run, layer: int, head: int) -> np.ndarray:
    """(S,) the weight each query of one encoder head puts on the text's last character: the clue, in step 3,
    that the encoder can mark where the text ends (which reversing needs to start)."""
    return np.asarray(run.trace["encoder_self", layer][head][:, -1], dtype=float)


FORCED_OUTCOMES = ("restart", "carry on", "other")   # after a wrong first token: the whole target, the rest, else


def forced_outcome(written: str, target: str, token: str) -> str:
    """What a decoding did after `token` was forced in as its first character: wrote the whole target after it
    ('restart'), the target without its first character, as if the token had been it ('carry on'), or else."""
    if written == token + target:
        return "restart"
    if written == token + target[1:]:
        return "carry on"
    return "other"


@dataclass(frozen=True)
class ForcedOutcomes:
    token: str
    counts: dict[str, int]     # FORCED_OUTCOMES -> how many words did that
    words: int                 # the words counted: those whose target does not start with the token

    @property
    def commonest(self) -> str:
        return max(FORCED_OUTCOMES, key=lambda o: self.counts[o])


@torch.inference_mode()
def forced_outcomes(model: Transformer, vocab: Vocab, texts: list[str], token: str, task: str = "reverse",
                    batch_size: int = 50, progress: Progress = None) -> ForcedOutcomes:
    """Force `token` as the first character of every text's output, decode the rest greedily (batched, as
    transformer.decoding.greedy_batch) and count the outcomes. Texts whose target starts with the token are left
    out: there the token is not wrong."""
    texts = [t for t in texts if not target(t, task).startswith(token)]
    forced_id = vocab.encode(token, 1)[0]
    counts = dict.fromkeys(FORCED_OUTCOMES, 0)
    order = sorted(texts, key=len)
    for start in range(0, len(order), batch_size):
        report(progress, start / max(len(order), 1))
        chunk = order[start:start + batch_size]
        sources = [vocab.encode(t, model.config.max_len) for t in chunk]
        src = pad(sources)                                                              # (B, S)
        encoded = model.encode(src)
        tgt = torch.tensor([[SOS, forced_id]] * len(chunk))                             # (B, 2)
        done = torch.zeros(len(chunk), dtype=torch.bool)
        limits = torch.tensor([max_output_tokens(model, len(s)) for s in sources])      # (B,)
        for t in range(1, int(limits.max())):
            token_ids = model.decode(tgt, encoded)[:, -1].argmax(-1).masked_fill(done, PAD)   # (B,)
            tgt = torch.cat([tgt, token_ids[:, None]], dim=1)
            done |= (token_ids == EOS) | (limits <= t + 1)
            if bool(done.all()):
                break
        for text, row in zip(chunk, tgt[:, 1:].tolist()):
            counts[forced_outcome(vocab.decode(row), target(text, task), token)] += 1   # stops at EOS
    return ForcedOutcomes(token, counts, len(texts))
