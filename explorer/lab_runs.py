"""Cached lab experiments. Keys are plain values (heads as (kind, layer, head) tuples); each run builds its
own Intervention, so one session's experiment is an argument to the shared model, never a change to it."""

from __future__ import annotations

import streamlit as st

from transformer import lab
from transformer.evaluate import held_out_strings
from transformer.intervention import Head, Intervention

from .model import _load, for_current_checkpoint

SAMPLE_SIZE = 200   # held-out words behind every exact-match figure of the lab
HeadKey = tuple[str, int, int]


def intervention(ablated: tuple[HeadKey, ...] = (), positions: str = "normal",
                 sides: tuple[str, ...] = ("source", "target"), seed: int = 0) -> Intervention:
    return Intervention(frozenset(Head(*h) for h in ablated), positions, frozenset(sides), seed)


def held_out_sample(max_len: int) -> list[str]:
    return held_out_strings(SAMPLE_SIZE, max_len)


@for_current_checkpoint
@st.cache_data(max_entries=4, show_spinner="Switching off each head in turn on 200 held-out words…")
def ablation_table(directory: str) -> tuple[float, list[lab.HeadEffect]]:
    ckpt = _load(directory)
    return lab.ablation_ranking(ckpt.model, ckpt.vocab, held_out_sample(ckpt.model.config.max_len))


@for_current_checkpoint
@st.cache_data(max_entries=4, show_spinner="Scoring every head on 200 held-out words…")
def pattern_table(directory: str) -> list[lab.HeadPattern]:
    ckpt = _load(directory)
    return lab.pattern_scores(ckpt.model, ckpt.vocab, held_out_sample(ckpt.model.config.max_len))


@for_current_checkpoint
@st.cache_data(max_entries=256, show_spinner=False)
def word_run(directory: str, text: str, ablated: tuple[HeadKey, ...] = (), positions: str = "normal",
             sides: tuple[str, ...] = ("source", "target"), seed: int = 0) -> lab.WordRun:
    ckpt = _load(directory)
    return lab.run_word(ckpt.model, ckpt.vocab, text, intervention(ablated, positions, sides, seed))


@for_current_checkpoint
@st.cache_data(max_entries=64, show_spinner="Measuring exact match on 200 held-out words…")
def sample_exact_match(directory: str, positions: str, sides: tuple[str, ...], seed: int) -> float:
    ckpt = _load(directory)
    edit = intervention((), positions, sides, seed)
    return lab.exact_match(ckpt.model, ckpt.vocab, held_out_sample(ckpt.model.config.max_len), edit)


@for_current_checkpoint
@st.cache_data(max_entries=256, show_spinner=False)
def forcing(directory: str, text: str, forced: tuple[tuple[int, int], ...] = ()) -> lab.ForcingComparison:
    ckpt = _load(directory)
    return lab.teacher_forcing_vs_free_running(ckpt.model, ckpt.vocab, text, dict(forced))


@for_current_checkpoint
@st.cache_data(max_entries=4, show_spinner="Reversing random strings of every length up to 48…")
def length_curve(directory: str, per_length: int = 20) -> dict[int, float]:
    ckpt = _load(directory)
    return lab.exact_match_by_length(ckpt.model, ckpt.vocab, list(range(1, lab.LONGEST_LAB_INPUT + 1)), per_length)


@for_current_checkpoint
@st.cache_data(max_entries=256, show_spinner=False)
def query_key_map(directory: str, text: str, kind: str, layer: int, head: int) -> lab.QueryKeyMap:
    ckpt = _load(directory)
    return lab.query_key_map(ckpt.model, ckpt.vocab, text, kind, layer, head)
