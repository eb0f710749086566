"""The two measures of a reversal model, each defined once: evaluation, training's curves, the lab and the
pages all call these.

exact match: the share of whole words whose output is exactly the task's target (reversal by default; padding is
never counted).
pattern share: the share of output steps i whose largest cross-attention weight falls on a source position the
task's output copies from (data.expected_keys: reverse n-1-i, the anti-diagonal; copy i, the diagonal; sort the
position of the i-th smallest character, or any position holding the same character).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass

import torch

from .data import correct_tokens, expected_grid, pad, target
from .task_rules import LATIN
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
        drafts = [correct_tokens(vocab, t, limit, task) for t in group]      # checked in one pass
        outputs = greedy_batch(model, [vocab.encode(t, limit) for t in group], edit=edit, drafts=drafts)
        for text, out in zip(group, outputs):
            total[len(text)] += 1
            right[len(text)] += vocab.decode(out) == target(text, task, vocab.letters)
    return ExactMatch(sum(right.values()) / max(len(texts), 1), len(texts),
                      {str(n): right[n] / total[n] for n in sorted(total)})


def hits_by_text(cross: torch.Tensor, texts: list[str], task: str = "reverse",
                 letters: str = LATIN) -> tuple[torch.Tensor, torch.Tensor]:
    """cross (B, H, T, S) weights of one layer, the B source texts -> (hits (B, H), steps counted (B,)): text by
    text, so a share's noise can be resampled over texts (analysis.prediction).

    A step i counts when the task names a source position for it (the end step has none)."""
    steps, keys = cross.shape[-2:]
    expected = expected_grid(texts, task, steps, keys, letters)               # (B, T, S)
    valid = expected.any(-1)                                           # (B, T)
    best = cross.argmax(-1)                                            # (B, H, T)
    on_pattern = expected[:, None].expand(-1, cross.size(1), -1, -1).gather(-1, best[..., None])[..., 0]
    return (on_pattern & valid[:, None]).sum(dim=2).float(), valid.sum(dim=1)


def pattern_hits(cross: torch.Tensor, texts: list[str], task: str = "reverse",
                 letters: str = LATIN) -> tuple[torch.Tensor, int]:
    """cross (B, H, T, S) weights of one layer, the B source texts -> (hits (H,), steps counted)."""
    hits, counted = hits_by_text(cross, texts, task, letters)
    return hits.sum(dim=0), int(counted.sum())


def pattern_share(cross: torch.Tensor, texts: list[str], task: str = "reverse", letters: str = LATIN) -> torch.Tensor:
    """(H,) the share of output steps whose largest cross-attention weight is on the task's pattern."""
    hits, steps = pattern_hits(cross, texts, task, letters)
    return hits / max(steps, 1)


@torch.inference_mode()
def cross_attention_alignment(model: Transformer, vocab: Vocab, texts: list[str], batch_size: int = 250,
                              task: str = "reverse") -> dict:
    """{'layer_l': [pattern share of each head]} over the model's own greedy decodings of the texts. Batches
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
        for layer in range(layers):
            layer_hits, counted = pattern_hits(trace["cross", layer], chunk, task, vocab.letters)
            hits[layer] += layer_hits
        steps += counted
    share = hits / max(steps, 1)
    return {f"layer_{layer}": [round(float(x), 4) for x in share[layer]] for layer in range(layers)}
