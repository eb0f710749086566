"""The split by role (analysis.functional_split) recomputed another way: the position-like means as the average of
single teacher-forced runs (not one batched pass), and the terms from those means with this file's own frozen
LayerNorm and projections, in float64. The review's figures, with a float64 model of its own: position·position
carries 71-87 % of what moves the reverser's cross L0 H3 and 77-84 % of the copier's sharpest head, 5-18 % of the
sorter's."""

from __future__ import annotations

import functools
import random

import numpy as np
import pytest

from analysis.circuits import CONTENT_CONTENT, POSITION_POSITION, SplitUnavailable, sharpest_head
from analysis.functional_split import (ALONE, functional_split, position_means, top_key_kept,
                                       weights_from)
from analysis.run import TEACHER, make_run
from transformer.checkpoint import bundled_checkpoint, load
from transformer.data import random_string

from .own_split import MEMORY, QUERY, own_terms, share

PANGRAM = "the quick brown fox jumps over the lazy dog"


@functools.cache
def model_of(task):
    return load(bundled_checkpoint(task))


def test_position_means_are_the_average_stream_of_single_teacher_forced_runs():
    ckpt = model_of("reverse")
    means = position_means(ckpt.model, ckpt.vocab, "reverse", 6, 7, "cross", 0, samples=8, seed=3)
    rng = random.Random("3:reverse:6")
    texts = [random_string(rng, 6) for _ in range(8)]
    runs = [make_run(ckpt.model, ckpt.vocab, t, TEACHER, task="reverse") for t in texts]
    for half, chosen in enumerate((runs[:4], runs[4:])):
        assert np.allclose(means.query_halves[half], np.mean([r.trace[QUERY] for r in chosen], 0), atol=1e-5)
        assert np.allclose(means.key_halves[half], np.mean([r.trace[MEMORY] for r in chosen], 0), atol=1e-5)
    assert means.samples == 8


@pytest.mark.parametrize("task, low, high", [("reverse", 0.65, 0.92), ("copy", 0.72, 0.90), ("sort", 0.0, 0.25)])
@pytest.mark.parametrize("text", ["hello", "attention is all you need"])
def test_position_position_carries_what_the_review_measured_and_the_terms_add_up_to_the_score(task, low, high, text):
    ckpt = model_of(task)
    run = make_run(ckpt.model, ckpt.vocab, text, task=task)
    head = sharpest_head(run.trace, "cross", 0)
    means = position_means(ckpt.model, ckpt.vocab, task, len(text), len(run.fed_ids), "cross", 0)
    split = functional_split(ckpt.model, run.trace, "cross", 0, head, means.both)
    scores = run.trace.attention("cross", 0, "scores")[head]                                # (T, S)
    assert np.allclose(split.score, scores, atol=1e-4)                                    # float32 model, float64 split
    mine = own_terms(ckpt, run, head, *means.both)
    assert np.allclose(mine["pp"], split.terms[POSITION_POSITION], atol=1e-9)
    assert np.allclose(mine["cc"], split.terms[CONTENT_CONTENT], atol=1e-9)
    assert np.allclose(sum(mine.values()), split.score, atol=1e-9)
    assert share(mine, "pp") == pytest.approx(split.shares()[POSITION_POSITION], abs=1e-9)
    assert low <= share(mine, "pp") <= high


def test_what_each_part_alone_keeps_is_its_own_softmax_argmax():
    ckpt = model_of("copy")
    run = make_run(ckpt.model, ckpt.vocab, PANGRAM, task="copy")
    head = sharpest_head(run.trace, "cross", 0)
    means = position_means(ckpt.model, ckpt.vocab, "copy", len(PANGRAM), len(run.fed_ids), "cross", 0)
    split = functional_split(ckpt.model, run.trace, "cross", 0, head, means.both)
    mine = own_terms(ckpt, run, head, *means.both)
    full = run.trace["cross", 0][head].argmax(1)
    for name, own in (("position·position alone", mine["pp"]), ("content·content alone", mine["cc"])):
        weights = weights_from(split, ALONE[name])
        assert np.allclose(weights.sum(1), 1)
        ranked = np.sort(own, 1)                           # a tie at the top picks no key (the review's)
        picks = ranked[:, -1] - ranked[:, -2] > 1e-6
        assert top_key_kept(split, ALONE[name]) == pytest.approx(float(((own.argmax(1) == full) & picks).mean()))
    assert top_key_kept(split, ALONE["position·position alone"]) == 1.0      # the copier: position alone, the review


def test_a_term_alike_for_every_key_keeps_no_step():
    """The second review: the copier's content·content alone 'kept 1 of 6 steps' on "hello", its first step, where
    every text reads ⟨s⟩ and the term is the same for every key: argmax took the first key, which the copier's
    own score picks too. A tie picks nothing."""
    ckpt = model_of("copy")
    run = make_run(ckpt.model, ckpt.vocab, "hello", task="copy")
    head = sharpest_head(run.trace, "cross", 0)
    means = position_means(ckpt.model, ckpt.vocab, "copy", 5, len(run.fed_ids), "cross", 0)
    split = functional_split(ckpt.model, run.trace, "cross", 0, head, means.both)
    content = own_terms(ckpt, run, head, *means.both)["cc"]
    assert np.ptp(content[0]) < 1e-6 and run.trace["cross", 0][head][0].argmax() == content[0].argmax() == 0
    assert round(top_key_kept(split, ALONE["content·content alone"]) * 6) == 0


def test_a_run_longer_than_its_text_and_too_few_texts_are_refused_with_a_reason():
    ckpt = model_of("reverse")
    with pytest.raises(SplitUnavailable, match="wrote 7 characters for a text of 5"):
        position_means(ckpt.model, ckpt.vocab, "reverse", 5, 8, "cross", 0)
    with pytest.raises(ValueError, match="two random texts or more"):
        position_means(ckpt.model, ckpt.vocab, "reverse", 5, 6, "cross", 0, samples=1)
