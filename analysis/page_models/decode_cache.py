"""What incremental decoding holds at step t: the keys and values kept from the steps before, the one row
computed new, and what the cache saves over the whole decoding. Decoded again here, step by step through
the cache, and set against the one traced pass the rest of the page reads."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from transformer.model import Transformer

from ..labels import EOS_LABEL, visible
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
    largest_difference: float     # every layer's cached keys and values (kept, new, cross) against the traced pass's
    held_numbers: int             # what the cache holds after step t, over every layer, head, key and value
    positions_with: int           # decoder positions one layer computes over the whole decoding, with the cache
    positions_without: int        # and without it, each step running its whole prefix again
    reads_sentence: str
    same_sentence: str
    cost_sentence: str
    draft_sentence: str


def _pairs(n: int) -> str:
    return "1 key and value" if n == 1 else f"{n:,} keys and values"


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
    kept_difference, difference = 0.0, 0.0
    for i, layer_cache in enumerate(cache.layers):
        pairs = ((layer_cache.self_k, "decoder_self", "keys"), (layer_cache.self_v, "decoder_self", "values"),
                 (layer_cache.cross_k, "cross", "keys"), (layer_cache.cross_v, "cross", "values"))
        for cached, kind, name in pairs:
            gap = np.abs(cached[0].numpy() - trace.attention(kind, i, name)[:, :cached.size(2)])   # (H, rows, d_k)
            difference = max(difference, float(gap.max()))
            if kind == "decoder_self" and t > 0:
                kept_difference = max(kept_difference, float(gap[:, :t].max()))
    chosen = cache.layers[layer]
    held = sum(k.numel() + v.numel() for c in cache.layers for k, v in ((c.self_k, c.self_v), (c.cross_k, c.cross_v)))
    steps, source, n_layers = len(run.chosen_ids), len(run.source_ids), len(cache.layers)
    names = [f"{p}: {label}" + (" (new)" if p == t else " (kept)") for p, label in enumerate(run.decoder_in[:t + 1])]
    reads = (
        f"When step {t} is taken on its own (every sampled step, and greedy decoding's after a refused draft), "
        f"self-attention in each of the {n_layers} decoder layers reads, per head, "
        + (f"{_pairs(t + 1)}: {t} kept in the cache from the steps before, and 1 computed now" if t else
           "1 key and value, computed now (none kept yet)")
        + f", from position {t} ({run.decoder_in[t]}), the only position the step runs through the layer. "
        f"Cross-attention reads {_pairs(source)} computed once from the encoder's output, before step 0: the "
        f"source does not change while the decoder writes.")
    traced = ("the traced pass (one pass over the whole decoding, which every other chart on this page reads)")
    same = (
        (f"The {t} kept rows are the numbers {traced} computes at those positions, up to float32 rounding: largest "
         f"difference {kept_difference:.1e} over every layer and head; the new row and cross-attention's keys and "
         f"values differ from it by at most {difference:.1e}. " if t else
         f"The new row and cross-attention's keys and values are the numbers {traced} computes, up to float32 "
         f"rounding: largest difference {difference:.1e} over every layer and head. ")
        + "The causal mask is why a cache is possible: no position reads a later one, so nothing a later step "
          "writes can change an earlier key or value.")
    cost = (
        f"Over the whole decoding ({steps} step{'s' if steps > 1 else ''}), one step at a time, each decoder layer "
        f"computes {steps} position{'s' if steps > 1 else ''} with the cache; without it, step t would run all "
        f"t + 1 positions, not 1: {steps * (steps + 1) // 2:,} positions, and cross-attention's "
        f"{_pairs(source)} computed at every step. After this step the cache holds {held:,} numbers "
        f"({held * 4 / 1024:.1f} KiB in float32).")
    return CacheStep(t, layer, head, names, chosen.self_k[0, head].numpy().copy(),
                     chosen.self_v[0, head].numpy().copy(), difference, held, steps, steps * (steps + 1) // 2,
                     reads, same, cost, draft_sentence(run))


def draft_sentence(run: Run) -> str:
    """How the run's tokens were decided, in its own numbers."""
    steps = len(run.chosen_ids)
    if run.draft_kept is None:
        return f"These tokens were sampled: each of the {steps} steps ran one at a time, through the cache."
    draft = [visible(c) for c in run.target] + [EOS_LABEL]              # the task's answer and the end symbol
    kept = run.draft_kept
    said = (f"Greedy decoding read the task's answer as a draft ({len(draft)} tokens, the end symbol included) "
            f"through the decoder in one pass (the draft pass)")
    if kept >= min(len(draft), steps):
        return f"{said}, and the model's own choice agreed at every position, so all {steps} steps came from it."
    alone = steps - kept - 1
    return (f"{said} and kept its first {kept} token{'' if kept == 1 else 's'}: at step {kept} the model's own "
            f"choice, read from the same pass, is {run.decoder_out[kept]}, not the draft's {draft[kept]}"
            + (f", and the decoding ended there, so all {steps} steps came from the draft pass." if alone == 0 else
               f"; the {alone} step{'' if alone == 1 else 's'} after it ran one at a time, through the cache."))
