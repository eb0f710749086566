"""Turning next-token distributions into words: greedy, sampled, one step at a time, and in batches.

The decoder is auto-regressive: at step t its input is SOS followed by the t tokens it has produced,
and the last position's distribution chooses token t+1. Sampling is reproducible from a seed.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from .intervention import NO_INTERVENTION, Intervention
from .model import Transformer
from .trace import Trace
from .vocab import EOS, PAD, SOS


@dataclass(frozen=True)
class Step:
    """One decoding step: what the decoder read, what it thought, what it chose."""

    decoder_input: tuple[int, ...]  # SOS + the tokens produced so far
    logits: torch.Tensor            # (vocab,) the generator's raw scores, before temperature and top-k
    probs: torch.Tensor             # (vocab,) the distribution the token was chosen from
    token: int                      # the chosen token
    trace: Trace                    # every attention number of this step's forward pass (batch of 1)


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


@torch.inference_mode()
def step(
    model: Transformer,
    src: list[int],
    prefix: list[int],
    temperature: float | None = None,
    top_k: int | None = None,
    seed: int = 0,
    edit: Intervention = NO_INTERVENTION,
) -> Step:
    """Source ids and the tokens produced so far in; the next-token distribution and its trace out."""
    device = _device(model)
    decoder_input = [SOS, *prefix]
    src_t = torch.tensor([src], dtype=torch.long, device=device)            # (1, S)
    tgt_t = torch.tensor([decoder_input], dtype=torch.long, device=device)  # (1, t+1)
    logits, trace = model(src_t, tgt_t, trace=True, edit=edit)
    probs = next_token_probs(logits[0, -1], temperature, top_k)             # (vocab,)
    token = choose(probs, temperature, seed, len(prefix))
    return Step(tuple(decoder_input), logits[0, -1], probs, token, trace)


def max_output_tokens(model: Transformer, source_length: int) -> int:
    """The length limit: the reversal plus EOS, never beyond the model's limit or positional table."""
    limit = max(model.config.max_len, source_length) + 1
    return min(limit, model.config.max_positions - 1)


def steps(
    model: Transformer,
    src: list[int],
    temperature: float | None = None,
    top_k: int | None = None,
    seed: int = 0,
    edit: Intervention = NO_INTERVENTION,
    forced: dict[int, int] | None = None,
) -> list[Step]:
    """Every step of one decoding, until EOS or the length limit.

    `forced` maps a step to a token fed onward instead of the model's choice (the step still records
    what the model would have chosen): the learner overrules one step and watches the rest react."""
    out: list[Step] = []
    prefix: list[int] = []
    for t in range(max_output_tokens(model, len(src))):
        s = step(model, src, prefix, temperature, top_k, seed, edit)
        out.append(s)
        token = (forced or {}).get(t, s.token)
        if token == EOS:
            break
        prefix.append(token)
    return out


@torch.inference_mode()
def generate(
    model: Transformer,
    src: list[int],
    temperature: float | None = None,
    top_k: int | None = None,
    seed: int = 0,
    edit: Intervention = NO_INTERVENTION,
) -> list[int]:
    """Decode one source: the tokens before EOS. Encodes once, then feeds the decoder its own output."""
    device = _device(model)
    encoded = model.encode(torch.tensor([src], dtype=torch.long, device=device), edit=edit)
    tokens: list[int] = []
    for _ in range(max_output_tokens(model, len(src))):
        tgt = torch.tensor([[SOS, *tokens]], dtype=torch.long, device=device)
        logits = model.decode(tgt, encoded, edit=edit)[0]
        token = choose(next_token_probs(logits[0, -1], temperature, top_k), temperature, seed, len(tokens))
        if token == EOS:
            break
        tokens.append(token)
    return tokens


@torch.inference_mode()
def greedy_batch(model: Transformer, sources: list[list[int]], batch_size: int = 1024,
                 edit: Intervention = NO_INTERVENTION) -> list[list[int]]:
    """Greedy decoding of many sources at once (padded), for evaluation. Returns tokens before EOS."""
    device = _device(model)
    results: list[list[int]] = []
    for start in range(0, len(sources), batch_size):
        chunk = sources[start:start + batch_size]
        width = max(len(s) for s in chunk)
        src = torch.full((len(chunk), width), PAD, dtype=torch.long, device=device)  # (B, S)
        for i, s in enumerate(chunk):
            src[i, : len(s)] = torch.tensor(s, dtype=torch.long)
        encoded = model.encode(src, edit=edit)
        tgt = torch.full((len(chunk), 1), SOS, dtype=torch.long, device=device)      # (B, 1)
        done = torch.zeros(len(chunk), dtype=torch.bool, device=device)
        for _ in range(max_output_tokens(model, width)):
            logits = model.decode(tgt, encoded, edit=edit)[0]                         # (B, t, vocab)
            token = logits[:, -1].argmax(-1)                                          # (B,)
            token = token.masked_fill(done, PAD)
            tgt = torch.cat([tgt, token[:, None]], dim=1)
            done |= token == EOS
            if bool(done.all()):
                break
        for row in tgt[:, 1:].tolist():
            results.append(row[: row.index(EOS)] if EOS in row else [t for t in row if t != PAD])
    return results
