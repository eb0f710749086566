"""The two measures of a reversal model, each defined once: evaluation, training's curves, the lab and the
pages all call these.

exact match: the share of whole words whose output is exactly the task's target (reversal by default; padding is
never counted).
mirror share: the share of output steps i whose largest cross-attention weight falls on source
position n-1-i, the mirrored position a reversal copies from.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass

import torch

from .data import pad, target
from .decoding import greedy_batch
from .intervention import NO_INTERVENTION, Intervention
from .model import Transformer
from .vocab import SOS, Vocab


@dataclass(frozen=True)
class ExactMatch:
    exact_match: float               # share of words whose whole output is the task's target
    n: int
    per_length: dict[str, float]     # input length (as text, as JSON keeps it) -> share


def exact_match(model: Transformer, vocab: Vocab, texts: list[str], edit: Intervention = NO_INTERVENTION,
                max_len: int | None = None, task: str = "reverse") -> ExactMatch:
    """Greedy decoding of every text, under an intervention if given. With shuffled positions the words are
    batched by length, so padding never changes which position codes the shuffle hands out."""
    limit = model.config.max_len if max_len is None else max_len
    groups: dict[int, list[str]] = defaultdict(list)
    for text in texts:
        groups[len(text) if edit.positions == "shuffle" else 0].append(text)
    right, total = Counter(), Counter()
    for group in groups.values():
        outputs = greedy_batch(model, [vocab.encode(t, limit) for t in group], edit=edit)
        for text, out in zip(group, outputs):
            total[len(text)] += 1
            right[len(text)] += vocab.decode(out) == target(text, task)
    return ExactMatch(sum(right.values()) / max(len(texts), 1), len(texts),
                      {str(n): right[n] / total[n] for n in sorted(total)})


def mirror_hits(cross: torch.Tensor, lengths: torch.Tensor) -> tuple[torch.Tensor, int]:
    """cross (B, H, T, S) weights of one layer, lengths (B,) source lengths -> (hits (H,), steps counted).

    A step i counts when a mirrored position n-1-i exists (the end step has none)."""
    t_steps = min(cross.size(-2), cross.size(-1))
    want = lengths[:, None] - 1 - torch.arange(t_steps)[None, :]     # (B, T') source n-1-i
    valid = want >= 0
    best = cross[:, :, :t_steps, :].argmax(-1)                         # (B, H, T')
    hits = ((best == want[:, None, :]) & valid[:, None, :]).sum(dim=(0, 2)).float()
    return hits, int(valid.sum())


def mirror_share(cross: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """(H,) the share of output steps whose largest cross-attention weight is on the mirrored source position."""
    hits, steps = mirror_hits(cross, lengths)
    return hits / max(steps, 1)


@torch.inference_mode()
def cross_attention_alignment(model: Transformer, vocab: Vocab, texts: list[str], batch_size: int = 250) -> dict:
    """{'layer_l': [mirror share of each head]} over the model's own greedy decodings of the texts. Batches
    are small because a traced pass keeps every activation."""
    layers, heads = model.config.n_decoder_layers, model.config.n_heads
    hits = torch.zeros(layers, heads)
    steps = 0
    for start in range(0, len(texts), batch_size):
        chunk = texts[start:start + batch_size]
        sources = [vocab.encode(t, model.config.max_len) for t in chunk]
        decoded = greedy_batch(model, sources)
        tgt = pad([[SOS, *d] for d in decoded])                                    # (B, T)
        trace = model(pad(sources), tgt, trace=True).trace
        lengths = torch.tensor([len(s) for s in sources])                          # (B,)
        for layer in range(layers):
            layer_hits, counted = mirror_hits(trace["cross", layer], lengths)
            hits[layer] += layer_hits
        steps += counted
    share = hits / max(steps, 1)
    return {f"layer_{layer}": [round(float(x), 4) for x in share[layer]] for layer in range(layers)}
