"""What Decode step by step says the key/value cache holds, against the model run again without a cache."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from analysis.page_models.decode_cache import cache_walk, draft_sentence
from analysis.run import Decoding, make_run
from transformer.data import correct_tokens
from transformer.intervention import Head, Intervention
from transformer.vocab import SOS

from .conftest import run_of

PANGRAM = "the quick brown fox jumps over the lazy dog abcd"     # 48 characters, the trained length


@pytest.mark.parametrize("text, layer, head", [("banana", 0, 1), ("banana", 1, 3), (PANGRAM, 1, 2)])
def test_the_kept_rows_and_the_new_one_are_the_keys_and_values_of_the_prefix_run_alone(reverser, text, layer, head):
    run = run_of(text)
    walk = cache_walk(reverser.model, run, layer, head)
    src = reverser.vocab.encode(text, reverser.model.config.max_len)
    config, steps, source = reverser.model.config, len(run.chosen_ids), len(src)
    assert walk.self_keys.shape == walk.self_values.shape == (steps, config.d_k)
    assert walk.row_labels == run.decoder_in
    for t in sorted({0, 1, 4, steps - 1}):
        with torch.inference_mode():                          # the decoder over step t's prefix, no cache at all
            alone = reverser.model(torch.tensor([src]), torch.tensor([[SOS, *run.fed_ids[:t]]]), trace=True).trace
        keys = alone.attention("decoder_self", layer, "keys")[0, head].numpy()          # (t + 1, d_k)
        values = alone.attention("decoder_self", layer, "values")[0, head].numpy()
        assert np.allclose(walk.self_keys[:t + 1], keys, atol=1e-5)
        assert np.allclose(walk.self_values[:t + 1], values, atol=1e-5)
        assert walk.largest_difference[t] < 1e-5
        assert walk.held_numbers[t] == 2 * config.n_decoder_layers * config.d_model * (t + 1 + source)
        assert (f"reads, per head, {t + 1} keys and values: {t} kept" if t else
                "reads, per head, 1 key and value, computed now (none kept yet)") in walk.reads_sentences[t]
        assert f"Cross-attention reads {source} keys and values computed once" in walk.reads_sentences[t]
        assert f"at most {walk.largest_difference[t]:.1e}" in walk.same_sentences[t] if t else (
            f"difference {walk.largest_difference[t]:.1e}" in walk.same_sentences[t])
        assert f"the cache holds {walk.held_numbers[t]:,} numbers" in walk.cost_sentences[t]
        if t:
            assert walk.same_sentences[t].startswith(f"The {t} kept row{'s hold' if t > 1 else ' holds'} the numbers")
    assert (walk.positions_with, walk.positions_without) == (steps, steps * (steps + 1) // 2)
    assert f"{steps * (steps + 1) // 2:,} positions" in walk.cost_sentences[0]


def test_how_the_tokens_were_decided_is_said_in_the_runs_own_numbers(reverser):
    assert "the model's own choice agreed at every position, so all 7 steps came from it" in draft_sentence(
        run_of("banana"))
    sampled = run_of("banana", how=Decoding(temperature=3.0, seed=1))
    assert sampled.draft_kept is None and "sampled: each of the 7 steps ran one at a time" in draft_sentence(sampled)
    # with its costliest head off the reverser refuses the draft part way: the sentence names where
    broken = make_run(reverser.model, reverser.vocab, PANGRAM, edit=Intervention(ablated=frozenset({
        Head("cross", 0, 3)})))
    draft = correct_tokens(reverser.vocab, PANGRAM, 48, "reverse")
    refused = next(t for t, (fed, wanted) in enumerate(zip(broken.fed_ids, draft)) if fed != wanted)
    assert broken.draft_kept == refused < len(draft) - 1
    sentence = draft_sentence(broken)
    wanted = "␣" if PANGRAM[::-1][refused] == " " else PANGRAM[::-1][refused]
    assert (f"kept its first {refused} token{'' if refused == 1 else 's'}: at step {refused} the model's own choice, read from the same pass, is "
            f"{broken.decoder_out[refused]}, not the draft's {wanted}") in sentence
    assert f"the {len(broken.chosen_ids) - refused - 1} steps after it ran one at a time" in sentence


def test_a_draft_refused_at_its_end_says_every_step_came_from_the_draft_pass(reverser):
    """On 48 a's the reverser writes its end symbol one step early: the pass that refused the draft ended it."""
    run = run_of("a" * 48)
    assert run.draft_kept == len(run.chosen_ids) - 1 < 49                   # refused at its last step
    sentence = draft_sentence(run)
    assert f"is ⟨/s⟩, not the draft's a, and the decoding ended there, so all {len(run.chosen_ids)} steps" in sentence


def test_a_one_character_text_reads_one_key_and_value(reverser):
    walk = cache_walk(reverser.model, run_of("a"), 0, 0)
    assert "Cross-attention reads 1 key and value computed once" in walk.reads_sentences[0]
    assert "1 keys" not in " ".join(walk.reads_sentences + walk.cost_sentences)
