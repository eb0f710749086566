"""What incremental decoding holds at step t: the keys and values kept from the steps before, the one row
computed new, and what the cache saves over the whole decoding. Decoded again here, step by step through
the cache, and set against the one traced pass the rest of the page reads."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from transformer.model import Transformer

from ..run import Run


@dataclass(frozen=True)
class CacheStep:
    """Step t of a decoding, read in one decoder layer and head. d_k per head, S source positions."""

    t: int
    layer: int
    head: int
    row_names: list[str]          # (t + 1,) the decoder positions whose keys and values self-attention reads
    self_keys: np.ndarray         # (t + 1, d_k) the head's keys: rows 0 .. t-1 kept in the cache, row t new
    self_values: np.ndarray       # (t + 1, d_k)
    largest_difference: float     # every layer's cached keys and values against the traced pass's
    held_numbers: int             # what the cache holds after step t, over every layer, head, key and value
    positions_with: int           # decoder positions one layer computes over the whole decoding, with the cache
    positions_without: int        # and without it, each step running its whole prefix again
    reads_sentence: str
    same_sentence: str
    cost_sentence: str
    draft_sentence: str


@torch.inference_mode()
def cache_at_step(model: Transformer, run: Run, t: int, layer: int, head: int) -> CacheStep:
    """Feed the run's own decoder input through the cache up to step t, then take what it holds. `run` is a
    run of `model` with no intervention (the Decode page's)."""
    cache = model.start_decoding(model.encode(torch.tensor([run.source_ids])))
    read = torch.tensor([run.decoder_in_ids[:t + 1]])                       # (1, t + 1): SOS, then what was fed
    if t > 0:
        model.decode_block(read[:, :t], cache)                               # steps 0 .. t-1: the kept positions
    model.decode_step(read[:, t], cache)                                     # step t: one new position per layer
    trace = run.trace
    difference = 0.0
    for i, kept in enumerate(cache.layers):
        pairs = ((kept.self_k, "decoder_self", "keys"), (kept.self_v, "decoder_self", "values"),
                 (kept.cross_k, "cross", "keys"), (kept.cross_v, "cross", "values"))
        for cached, kind, name in pairs:
            traced = trace.attention(kind, i, name)[:, :cached.size(2)]      # (H, t + 1 or S, d_k)
            difference = max(difference, float(np.abs(cached[0].numpy() - traced).max()))
    chosen = cache.layers[layer]
    held = sum(k.numel() + v.numel() for c in cache.layers for k, v in ((c.self_k, c.self_v), (c.cross_k, c.cross_v)))
    steps, source, n_layers = len(run.chosen_ids), len(run.source_ids), len(cache.layers)
    names = [f"{p}: {label}" + (" (new)" if p == t else " (kept)") for p, label in enumerate(run.decoder_in[:t + 1])]
    reads = (
        f"At step {t}, self-attention in each of the {n_layers} decoder layers reads "
        + (f"{t + 1} keys and values: {t} kept in the cache from the steps before, and 1 computed now" if t else
           "1 key and value, computed now (none kept yet)")
        + f", from position {t} ({run.decoder_in[t]}), the only position this step runs through the layer. "
        f"Cross-attention reads {source} keys and values computed once from the encoder's output, before step 0: "
        f"the source does not change while the decoder writes.")
    same = (
        f"The kept keys and values are the numbers the one pass over the whole decoding (every other chart on this "
        f"page) computes at those positions, up to float32 rounding: largest difference {difference:.1e}, over every "
        f"layer and head. The "
        f"causal mask is why a cache is possible: no position reads a later one, so nothing a later step writes "
        f"can change an earlier key or value.")
    cost = (
        f"Over the whole decoding ({steps} steps), each decoder layer computes {steps} positions with the cache; "
        f"without it, step t would run all t + 1 positions again: {steps * (steps + 1) // 2:,} positions, and "
        f"cross-attention's {source} keys and values recomputed at every step. After this step the cache holds "
        f"{held:,} numbers ({held * 4 / 1024:.1f} KB in float32).")
    return CacheStep(t, layer, head, names, chosen.self_k[0, head].numpy().copy(),
                     chosen.self_v[0, head].numpy().copy(), difference, held, steps, steps * (steps + 1) // 2,
                     reads, same, cost, draft_sentence(run))


def draft_sentence(run: Run) -> str:
    """How the run's tokens were decided, in its own numbers."""
    steps = len(run.chosen_ids)
    if run.draft_kept is None:
        return f"These tokens were sampled, one step at a time: all {steps} steps ran on their own."
    draft = len(run.target) + 1                                   # the task's answer and the end symbol
    kept = run.draft_kept
    if kept >= min(draft, steps):
        return (f"Greedy decoding read the task's answer as a draft ({draft} tokens, the end symbol included) in "
                f"one pass and the model's own choice agreed at every position, so all {steps} steps came from "
                f"that one pass.")
    alone = max(steps - kept - 1, 0)
    return (f"Greedy decoding read the task's answer as a draft ({draft} tokens, the end symbol included) in one "
            f"pass and kept {kept}: at step {kept} the model's own choice is {run.decoder_out[kept]}, not the "
            f"draft's, and it was taken from the same pass; the {alone} steps after it ran one at a time.")

