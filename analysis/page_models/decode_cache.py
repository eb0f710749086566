"""What incremental decoding holds at each step t: the keys and values kept from the steps before, the one row
computed new, and what the cache saves over the whole decoding. Decoded again here through the cache, and set
against the one traced pass the rest of the page reads. Every step at once: the page steps through them in the
browser."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from transformer.model import Transformer

from ..labels import EOS_LABEL, visible
from ..run import Run


@dataclass(frozen=True)
class CacheWalk:
    """Every step of a decoding through the cache, read in one decoder layer and head. T steps, d_k per head.
    A kept row never changes, so step t's keys and values are rows 0 .. t of the last step's."""

    layer: int
    head: int
    row_labels: list[str]         # (T,) what each decoder position reads
    self_keys: np.ndarray         # (T, d_k) the head's keys, row t computed at step t and kept after it
    self_values: np.ndarray       # (T, d_k)
    largest_difference: list[float]   # (T,) every layer's cached keys and values at step t against the traced pass's
    held_numbers: list[int]       # (T,) what the cache holds after step t, over every layer, head, key and value
    positions_with: int           # decoder positions one layer computes over the whole decoding, with the cache
    positions_without: int        # and without it, each step running its whole prefix again
    reads_sentences: list[str]    # (T,)
    same_sentences: list[str]     # (T,)
    cost_sentences: list[str]     # (T,)
    draft_sentence: str


def _pairs(n: int) -> str:
    return "1 key and value" if n == 1 else f"{n:,} keys and values"


@torch.inference_mode()
def cache_walk(model: Transformer, run: Run, layer: int, head: int) -> CacheWalk:
    """Feed the run's own decoder input through the cache and say what it holds after each step. `run` is a run
    of `model` with no intervention (the Decode page's)."""
    cache = model.start_decoding(model.encode(torch.tensor([run.source_ids])))
    trace, steps = run.trace, len(run.chosen_ids)
    model.decode_block(torch.tensor([run.decoder_in_ids]), cache)            # every step's position, as a draft
    # pass fills it (one step at a time gives the same rows up to float32 rounding: tests); a kept row never
    # changes, so step t's cache is the first t + 1 rows of this one
    row_gap = np.zeros(steps)                                                # (T,) each row against the trace
    for i, layer_cache in enumerate(cache.layers):
        for cached, name in ((layer_cache.self_k, "keys"), (layer_cache.self_v, "values")):
            gap = np.abs(cached[0].numpy() - trace.attention("decoder_self", i, name))   # (H, T, d_k)
            row_gap = np.maximum(row_gap, gap.max(axis=(0, 2)))
    cross_gap = max(float(np.abs(c[0].numpy() - trace.attention("cross", i, name)).max())
                    for i, layer_cache in enumerate(cache.layers)
                    for c, name in ((layer_cache.cross_k, "keys"), (layer_cache.cross_v, "values")))
    source, n_layers, config = len(run.source_ids), len(cache.layers), model.config
    cross_held = 2 * n_layers * config.d_model * source                     # every layer's cross keys and values
    kept_gap = np.maximum.accumulate(np.concatenate([[0.0], row_gap[:-1]]))   # (T,) rows 0 .. t-1
    differences = [max(float(kept_gap[t]), float(row_gap[t]), cross_gap) for t in range(steps)]
    held = [cross_held + 2 * n_layers * config.d_model * (t + 1) for t in range(steps)]
    traced = "the traced pass (one pass over the whole decoding, which every other chart on this page reads)"
    reads, same, cost = [], [], []
    for t in range(steps):
        reads.append(
            f"When step {t} is taken on its own (every sampled step, and greedy decoding's after a refused draft), "
            f"self-attention in each of the {n_layers} decoder layers reads, per head, "
            + (f"{_pairs(t + 1)}: {t} kept in the cache from the steps before, and 1 computed now" if t else
               "1 key and value, computed now (none kept yet)")
            + f", from position {t} ({run.decoder_in[t]}), the only position the step runs through the layer. "
            f"Cross-attention reads {_pairs(source)} computed once from the encoder's output, before step 0: the "
            f"source does not change while the decoder writes.")
        same.append(
            (f"The {t} kept row{'s hold' if t > 1 else ' holds'} the numbers {traced} computes at "
             f"{'those positions' if t > 1 else 'that position'}, up to float32 rounding: "
             f"largest difference {kept_gap[t]:.1e} over every layer and head; the new row and cross-attention's "
             f"keys and values differ from it by at most {differences[t]:.1e}. " if t else
             f"The new row and cross-attention's keys and values are the numbers {traced} computes, up to float32 "
             f"rounding: largest difference {differences[t]:.1e} over every layer and head. ")
            + "The causal mask is why a cache is possible: no position reads a later one, so nothing a later step "
              "writes can change an earlier key or value.")
        cost.append(
            f"Over the whole decoding ({steps} step{'s' if steps > 1 else ''}), one step at a time, each decoder "
            f"layer computes {steps} position{'s' if steps > 1 else ''} with the cache; without it, step t would run "
            f"all t + 1 positions, not 1: {steps * (steps + 1) // 2:,} positions, and cross-attention's "
            f"{_pairs(source)} computed at every step. After this step the cache holds {held[t]:,} numbers "
            f"({held[t] * 4 / 1024:.1f} KiB in float32).")
    chosen = cache.layers[layer]
    return CacheWalk(layer, head, list(run.decoder_in), chosen.self_k[0, head].numpy().copy(),
                     chosen.self_v[0, head].numpy().copy(), differences, held, steps, steps * (steps + 1) // 2,
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
