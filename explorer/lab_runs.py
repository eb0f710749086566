"""Cached lab experiments. Keys are plain values (heads as (kind, layer, head) tuples); each run builds its
own Intervention, so one session's experiment is an argument to the shared model, never a change to it."""

from __future__ import annotations

from transformer import lab
from transformer.evaluate import held_out_strings
from transformer.intervention import Head, Intervention

from .model import checkpoint_for, model_run

SAMPLE_SIZE = 200   # held-out words behind every exact-match figure of the lab
HeadKey = tuple[str, int, int]


def intervention(ablated: tuple[HeadKey, ...] = (), positions: str = "normal",
                 sides: tuple[str, ...] = ("source", "target"), seed: int = 0) -> Intervention:
    return Intervention(frozenset(Head(*h) for h in ablated), positions, frozenset(sides), seed)


def held_out_sample(max_len: int) -> list[str]:
    return held_out_strings(SAMPLE_SIZE, max_len)


@model_run(max_entries=4, show_spinner="Switching off each head in turn on 200 held-out words…")
def ablation_table(key: str) -> tuple[float, list[lab.HeadEffect]]:
    ckpt = checkpoint_for(key)
    return lab.ablation_ranking(ckpt.model, ckpt.vocab, held_out_sample(ckpt.model.config.max_len))


@model_run(max_entries=4, show_spinner="Scoring every head on 200 held-out words…")
def pattern_table(key: str) -> list[lab.HeadPattern]:
    ckpt = checkpoint_for(key)
    return lab.pattern_scores(ckpt.model, ckpt.vocab, held_out_sample(ckpt.model.config.max_len))


@model_run(max_entries=256)
def word_run(key: str, text: str, ablated: tuple[HeadKey, ...] = (), positions: str = "normal",
             sides: tuple[str, ...] = ("source", "target"), seed: int = 0) -> lab.WordRun:
    ckpt = checkpoint_for(key)
    return lab.run_word(ckpt.model, ckpt.vocab, text, intervention(ablated, positions, sides, seed))


@model_run(max_entries=64, show_spinner="Measuring exact match on 200 held-out words…")
def sample_exact_match(key: str, positions: str, sides: tuple[str, ...], seed: int) -> float:
    ckpt = checkpoint_for(key)
    edit = intervention((), positions, sides, seed)
    return lab.exact_match(ckpt.model, ckpt.vocab, held_out_sample(ckpt.model.config.max_len), edit)


@model_run(max_entries=256)
def forcing(key: str, text: str, forced: tuple[tuple[int, int], ...] = ()) -> lab.ForcingComparison:
    ckpt = checkpoint_for(key)
    return lab.teacher_forcing_vs_free_running(ckpt.model, ckpt.vocab, text, dict(forced))


@model_run(max_entries=4, show_spinner="Reversing random strings of every length up to 48…")
def length_curve(key: str, per_length: int = 20) -> dict[int, float]:
    ckpt = checkpoint_for(key)
    return lab.exact_match_by_length(ckpt.model, ckpt.vocab, list(range(1, lab.LONGEST_LAB_INPUT + 1)), per_length)


@model_run(max_entries=256)
def query_key_map(key: str, text: str, kind: str, layer: int, head: int) -> lab.QueryKeyMap:
    ckpt = checkpoint_for(key)
    return lab.query_key_map(ckpt.model, ckpt.vocab, text, kind, layer, head)
