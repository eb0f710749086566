"""Turning next-token distributions into words: greedy, sampled or with forced tokens, and in batches.

The decoder is auto-regressive: at step t its input is SOS followed by the t tokens it has produced,
and the last position's distribution chooses token t+1. Sampling is reproducible from a seed.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from .intervention import NO_INTERVENTION, Intervention
from .model import Transformer
from .vocab import EOS, PAD, SOS


@dataclass(frozen=True)
class Decoded:
    """The tokens of one decoding, decided step by step without a trace (a traced pass over them follows:
    because of the causal mask, its row t is what step t saw)."""

    chosen: tuple[int, ...]  # (n_steps,) the model's choice at each step; the last is EOS unless the limit came first
    fed: tuple[int, ...]     # (n_steps,) what went onward: the choice, or the token forced at that step

    @property
    def tokens(self) -> list[int]:
        """What was written: the fed tokens before EOS."""
        return list(self.fed[: self.fed.index(EOS)] if EOS in self.fed else self.fed)


def next_token_probs(logits: torch.Tensor, temperature: float | None, top_k: int | None) -> torch.Tensor:
    """(..., vocab) logits -> probabilities, divided by the temperature and cut to the top k."""
    if temperature is not None:
        if temperature <= 0:
            raise ValueError(f"temperature must be positive, got {temperature}")
        logits = logits / temperature
    if top_k is not None:
        if top_k < 1:
            raise ValueError(f"top_k must be at least 1, got {top_k}")
        kth = torch.topk(logits, min(top_k, logits.size(-1)), dim=-1).values[..., -1:]
        logits = logits.masked_fill(logits < kth, float("-inf"))
    return torch.softmax(logits, dim=-1)


def choose(probs: torch.Tensor, temperature: float | None, seed: int, position: int) -> int:
    """Greedy (argmax) when temperature is None; otherwise a draw seeded by (seed, position),
    so a whole sampled decoding and the same decoding stepped through agree token for token."""
    if temperature is None:
        return int(probs.argmax())
    generator = torch.Generator().manual_seed(seed * 1_000_003 + position)
    return int(torch.multinomial(probs.float().cpu(), 1, generator=generator))


def _device(model: Transformer) -> torch.device:
    return next(model.parameters()).device


EXTRA_TOKENS = 8  # steps allowed past the source's length plus EOS: a wrong answer can show that it runs on


def max_output_tokens(model: Transformer, source_length: int) -> int:
    """The length limit of a decoding: every task writes as many characters as it reads, then EOS, so a few
    steps more are enough to show a runaway answer. Bounded by the text, not by the model's own max_len: an
    uploaded model that claims 511 positions and never writes EOS must not decode 511 steps per word."""
    return min(source_length + 1 + EXTRA_TOKENS, model.config.max_positions - 1)


@torch.inference_mode()
def decide(
    model: Transformer,
    src: list[int],
    temperature: float | None = None,
    top_k: int | None = None,
    seed: int = 0,
    edit: Intervention = NO_INTERVENTION,
    forced: dict[int, int] | None = None,
) -> Decoded:
    """Decode one source until EOS or the length limit. Encodes once, then feeds the decoder its own output.

    `forced` maps a step to a token fed onward instead of the model's choice (the choice is still kept):
    the learner overrules one step and watches the rest react."""
    device = _device(model)
    encoded = model.encode(torch.tensor([src], dtype=torch.long, device=device), edit=edit)
    chosen: list[int] = []
    fed: list[int] = []
    for t in range(max_output_tokens(model, len(src))):
        tgt = torch.tensor([[SOS, *fed]], dtype=torch.long, device=device)          # (1, t+1)
        logits = model.decode(tgt, encoded, edit=edit)                               # (1, t+1, vocab)
        chosen.append(choose(next_token_probs(logits[0, -1], temperature, top_k), temperature, seed, t))
        fed.append((forced or {}).get(t, chosen[-1]))
        if fed[-1] == EOS:
            break
    return Decoded(tuple(chosen), tuple(fed))


def generate(
    model: Transformer,
    src: list[int],
    temperature: float | None = None,
    top_k: int | None = None,
    seed: int = 0,
    edit: Intervention = NO_INTERVENTION,
) -> list[int]:
    """Decode one source: the tokens before EOS."""
    return decide(model, src, temperature, top_k, seed, edit).tokens


@torch.inference_mode()
def greedy_batch(model: Transformer, sources: list[list[int]], batch_size: int = 128,
                 edit: Intervention = NO_INTERVENTION) -> list[list[int]]:
    """Greedy decoding of many sources at once, for evaluation. Returns tokens before EOS, in the order given.

    Sources are decoded in batches of similar length (sorted by length), so a batch of short words stops
    after a few steps instead of running as long as the longest word of the whole list."""
    device = _device(model)
    order = sorted(range(len(sources)), key=lambda i: len(sources[i]))
    results: list[list[int]] = [[] for _ in sources]
    for start in range(0, len(order), batch_size):
        chunk = [sources[i] for i in order[start:start + batch_size]]
        width = max(len(s) for s in chunk)
        src = torch.full((len(chunk), width), PAD, dtype=torch.long, device=device)  # (B, S)
        for i, s in enumerate(chunk):
            src[i, : len(s)] = torch.tensor(s, dtype=torch.long)
        encoded = model.encode(src, edit=edit)
        tgt = torch.full((len(chunk), 1), SOS, dtype=torch.long, device=device)      # (B, 1)
        done = torch.zeros(len(chunk), dtype=torch.bool, device=device)
        limits = torch.tensor([max_output_tokens(model, len(s)) for s in chunk], device=device)  # (B,)
        for t in range(int(limits.max())):
            logits = model.decode(tgt, encoded, edit=edit)                            # (B, t, vocab)
            token = logits[:, -1].argmax(-1)                                          # (B,)
            token = token.masked_fill(done, PAD)
            tgt = torch.cat([tgt, token[:, None]], dim=1)
            done |= (token == EOS) | (limits <= t + 1)   # each row stops at its own limit, as one at a time
            if bool(done.all()):
                break
        for index, row in zip(order[start:start + batch_size], tgt[:, 1:].tolist()):
            results[index] = row[: row.index(EOS)] if EOS in row else [t for t in row if t != PAD]
    return results
