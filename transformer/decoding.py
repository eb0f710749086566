"""Turning next-token distributions into words: greedy, sampled or with forced tokens, and in batches.

The decoder is auto-regressive: at step t its input is SOS followed by the t tokens it has produced,
and the last position's distribution chooses token t+1. Sampling is reproducible from a seed.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from .data import pad
from .intervention import NO_INTERVENTION, Intervention
from .model import DecoderCache, Transformer
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
    """The length limit of a decoding: a task writes at most output_factor characters per character read (one
    for most), then EOS, so a few steps more are enough to show a runaway answer. Bounded by the text, not by the model's own max_len: an
    uploaded model that claims 511 positions and never writes EOS must not decode 511 steps per word."""
    return min(model.config.output_factor * source_length + 1 + EXTRA_TOKENS, model.config.max_positions - 1)


@torch.inference_mode()
def draftable(model: Transformer, src: list[int], draft: list[int]) -> bool:
    """Whether greedy decoding could write the draft at all: it ends in EOS, within the length limit."""
    return bool(draft) and draft[-1] == EOS and len(draft) <= max_output_tokens(model, len(src))


def decide(
    model: Transformer,
    src: list[int],
    temperature: float | None = None,
    top_k: int | None = None,
    seed: int = 0,
    edit: Intervention = NO_INTERVENTION,
    forced: dict[int, int] | None = None,
) -> Decoded:
    """Decode one source until EOS or the length limit. Encodes once, then feeds the decoder its own output,
    one new position a step (the cache keeps the past's keys and values: Transformer.decode_step).

    `forced` maps a step to a token fed onward instead of the model's choice (the choice is still kept):
    the learner overrules one step and watches the rest react."""
    device = _device(model)
    cache = model.start_decoding(model.encode(torch.tensor([src], dtype=torch.long, device=device), edit=edit), edit)
    chosen: list[int] = []
    fed: list[int] = []
    token = torch.tensor([SOS], device=device)                                      # (1,)
    for t in range(max_output_tokens(model, len(src))):
        logits = model.decode_step(token, cache, edit)                               # (1, vocab)
        chosen.append(choose(next_token_probs(logits[0], temperature, top_k), temperature, seed, t))
        fed.append((forced or {}).get(t, chosen[-1]))
        if fed[-1] == EOS:
            break
        token = torch.tensor([fed[-1]], device=device)
    return Decoded(tuple(chosen), tuple(fed))


def _drafted_batch(model: Transformer, sources: list[list[int]], drafts: list[list[int]], batch_size: int,
                   edit: Intervention) -> list[list[int]]:
    device = _device(model)
    results: list[list[int] | None] = [None] * len(sources)
    order = sorted(range(len(sources)), key=lambda i: len(sources[i]))
    for start in range(0, len(order), batch_size):
        rows = order[start:start + batch_size]
        src = pad([sources[i] for i in rows]).to(device)                                        # (B, S)
        read = pad([[SOS, *drafts[i][:-1]] for i in rows]).to(device)                            # (B, D)
        cache = model.start_decoding(model.encode(src, edit=edit), edit)
        choices = model.decode_block(read, cache, edit).argmax(-1).tolist()                    # (B, D)
        for b, i in enumerate(rows):
            draft = drafts[i]
            if draftable(model, sources[i], draft) and choices[b][:len(draft)] == draft:
                results[i] = draft[:-1]              # greedy decoding writes exactly the draft
    refused = [i for i, r in enumerate(results) if r is None]
    for i, decoded in zip(refused, greedy_batch(model, [sources[i] for i in refused], batch_size, edit)):
        results[i] = decoded
    return results  # type: ignore[return-value]


def _checked_draft(model: Transformer, src: list[int], draft: list[int],
                   edit: Intervention) -> tuple[list[int], int, DecoderCache]:
    """One pass reading SOS + the draft: greedy's choice at each position (D,), how many draft tokens it keeps
    before the first it refuses, and the cache of that pass."""
    device = _device(model)
    cache = model.start_decoding(model.encode(torch.tensor([src], dtype=torch.long, device=device), edit=edit), edit)
    read = torch.tensor([[SOS, *draft[:-1]]], dtype=torch.long, device=device)     # (1, D)
    choices = model.decode_block(read, cache, edit)[0].argmax(-1).tolist()         # (D,) greedy's choice at each
    kept = next((t for t, (c, d) in enumerate(zip(choices, draft)) if c != d), len(draft))
    return choices, kept, cache


@torch.inference_mode()
def writes_draft(model: Transformer, src: list[int], draft: list[int],
                 edit: Intervention = NO_INTERVENTION) -> bool:
    """Whether greedy decoding writes exactly the draft (its tokens, ending in EOS), in one pass: it does when
    every draft token is the argmax where it is read (drafted_greedy), and it does not where one is refused,
    since greedy writes its own choice there. A yes-or-no question needs no decoding past the refusal."""
    if not draftable(model, src, draft):
        return False
    return _checked_draft(model, src, draft, edit)[1] == len(draft)


@torch.inference_mode()
def drafted_greedy(model: Transformer, src: list[int], draft: list[int],
                   edit: Intervention = NO_INTERVENTION) -> tuple[Decoded, int]:
    """Greedy decoding, exactly, checked against a guess of its answer in one pass. Because of the causal mask,
    one pass reading SOS + draft gives at every position the distribution greedy decoding would see there, if
    it had written the draft so far; so where the argmax at each position is the draft's next token, greedy
    decoding writes the draft. Accepted up to the first position it refuses, whose argmax is then greedy's own
    choice; from there on, one step at a time as decide() does (the cache keeps the accepted positions). This
    is how speculative decoding serves large models. Returns the decoding and how many draft tokens were kept."""
    device = _device(model)
    limit = max_output_tokens(model, len(src))
    choices, kept, cache = _checked_draft(model, src, draft[:limit], edit)
    chosen = choices[:kept + 1]                       # the accepted tokens, and greedy's own at the refusal
    if EOS in chosen:
        return Decoded(tuple(chosen[:chosen.index(EOS) + 1]), tuple(chosen[:chosen.index(EOS) + 1])), kept
    cache.keep(len(chosen))                           # the positions read before each chosen token
    while len(chosen) < limit:
        logits = model.decode_step(torch.tensor([chosen[-1]], device=device), cache, edit)   # (1, vocab)
        chosen.append(int(logits[0].argmax()))
        if chosen[-1] == EOS:
            break
    return Decoded(tuple(chosen), tuple(chosen)), kept


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
                 edit: Intervention = NO_INTERVENTION, drafts: list[list[int]] | None = None) -> list[list[int]]:
    """Greedy decoding of many sources at once, for evaluation. Returns tokens before EOS, in the order given.

    Sources are decoded in batches of similar length (sorted by length), so a batch of short words stops
    after a few steps instead of running as long as the longest word of the whole list. With `drafts` (each a
    guess of the whole answer, ending in EOS: the task's target), a batch first checks its drafts in one pass
    (as drafted_greedy does); the rows whose draft is refused anywhere are then decoded step by step."""
    if drafts is not None:
        return _drafted_batch(model, sources, drafts, batch_size, edit)
    device = _device(model)
    order = sorted(range(len(sources)), key=lambda i: len(sources[i]))
    results: list[list[int]] = [[] for _ in sources]
    for start in range(0, len(order), batch_size):
        chunk = [sources[i] for i in order[start:start + batch_size]]
        width = max(len(s) for s in chunk)
        src = torch.full((len(chunk), width), PAD, dtype=torch.long, device=device)  # (B, S)
        for i, s in enumerate(chunk):
            src[i, : len(s)] = torch.tensor(s, dtype=torch.long)
        cache = model.start_decoding(model.encode(src, edit=edit), edit)
        tgt = torch.full((len(chunk), 1), SOS, dtype=torch.long, device=device)      # (B, 1)
        done = torch.zeros(len(chunk), dtype=torch.bool, device=device)
        limits = torch.tensor([max_output_tokens(model, len(s)) for s in chunk], device=device)  # (B,)
        for t in range(int(limits.max())):
            logits = model.decode_step(tgt[:, -1], cache, edit)                       # (B, vocab)
            token = logits.argmax(-1)                                                 # (B,)
            token = token.masked_fill(done, PAD)
            tgt = torch.cat([tgt, token[:, None]], dim=1)
            done |= (token == EOS) | (limits <= t + 1)   # each row stops at its own limit, as one at a time
            if bool(done.all()):
                break
        for index, row in zip(order[start:start + batch_size], tgt[:, 1:].tolist()):
            results[index] = row[: row.index(EOS)] if EOS in row else [t for t in row if t != PAD]
    return results
