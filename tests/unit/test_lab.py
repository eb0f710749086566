"""The lab's experiments on the bundled checkpoint, each checked against a direct computation."""

import math

import numpy as np
import pytest
import torch

from analysis import lab
from analysis.run import TEACHER, Decoding, correct_tokens, make_run
from transformer import decoding
from transformer.data import held_out_strings
from transformer.metrics import exact_match
from transformer.intervention import Head, Intervention
from transformer.vocab import SOS, InputTooLongError


def ideal(kind: str, n_queries: int, text: str, task: str = "reverse") -> list[list[int]]:
    """The keys each query's hypothesis names, as lists of key indices."""
    return [list(np.flatnonzero(row)) for row in lab.ideal_keys(kind, n_queries, text, task)]


def test_ideal_keys_of_each_kind_and_task():
    assert ideal("encoder_self", 4, "abcd") == [[0], [1], [2], [3]]
    assert ideal("decoder_self", 4, "abc") == [[], [0], [1], [2]]      # row 0 sees only ⟨s⟩: not counted
    assert ideal("cross", 4, "abc") == [[2], [1], [0], []]              # the end step copies nothing
    assert ideal("cross", 4, "abc", "copy") == [[0], [1], [2], []]
    assert ideal("cross", 4, "bab", "sort") == [[1], [0, 2], [0, 2], []]  # either b counts for both b steps


def test_exact_match_under_an_ablation_counts_whole_words(bundled):
    texts = held_out_strings(60, 24)
    assert exact_match(bundled.model, bundled.vocab, texts).exact_match == 1.0
    edit = Intervention(ablated=frozenset({Head("cross", 1, h) for h in range(4)}))   # the last layer's cross heads
    outputs = [bundled.vocab.decode(decoding.generate(bundled.model, bundled.vocab.encode(t, 24), edit=edit))
               for t in texts]
    expected = sum(o == t[::-1] for o, t in zip(outputs, texts)) / len(texts)
    assert exact_match(bundled.model, bundled.vocab, texts, edit).exact_match == pytest.approx(expected)
    assert expected < 0.5


def test_ablation_ranking_covers_every_head_once_and_sorts_by_harm(bundled):
    texts = held_out_strings(40, 24)
    base, effects = lab.ablation_ranking(bundled.model, bundled.vocab, texts)
    c = bundled.model.config
    assert base == 1.0
    assert len({e.head for e in effects}) == len(effects) == c.n_heads * (c.n_encoder_layers + 2 * c.n_decoder_layers)
    drops = [e.drop for e in effects]
    assert drops == sorted(drops, reverse=True) and drops[0] > 0
    assert all(math.isclose(e.drop, base - e.exact_match) for e in effects)


def test_pattern_scores_match_the_weights_read_directly(bundled):
    model, vocab = bundled.model, bundled.vocab
    patterns = {p.head: p for p in lab.pattern_scores(model, vocab, ["level"])}
    src = vocab.encode("level", 24)
    tgt = [SOS, *vocab.encode("level"[::-1], 24)]
    cross = model(torch.tensor([src]), torch.tensor([tgt]), trace=True).trace["cross", 1][0, 2].double().numpy()
    mirror = [cross[i, 4 - i] for i in range(5)]   # steps 0..4 read source 4..0; the end step is left out
    rows = cross[:5]
    entropy = -(rows * np.log(np.where(rows > 0, rows, 1))).sum(-1)
    assert patterns[Head("cross", 1, 2)].score == pytest.approx(np.mean(mirror))
    assert patterns[Head("cross", 1, 2)].entropy == pytest.approx(entropy.mean())


def test_the_mirror_heads_score_highest_on_held_out_words(bundled):
    best = lab.pattern_scores(bundled.model, bundled.vocab, held_out_strings(50, 24))[0]
    assert best.head.kind == "cross" and best.head.layer == 1 and best.score > 0.5


def test_teacher_forced_runs_give_the_probability_of_each_correct_character(bundled):
    model, vocab = bundled.model, bundled.vocab
    correct = correct_tokens(vocab, "banana", 24)
    plain = make_run(model, vocab, "banana", TEACHER).probability_of(correct)
    assert make_run(model, vocab, "banana").output == "ananab"
    assert plain.shape == (7,) and plain.min() > 0.5
    edit = Intervention(ablated=frozenset({Head("cross", 1, h) for h in range(4)}))
    broken_run = make_run(model, vocab, "banana", TEACHER, edit)
    broken = broken_run.probability_of(correct)
    assert broken.mean() < plain.mean()
    with torch.no_grad():   # step 2 alone, reading the correct prefix "an"
        logits = model(torch.tensor([vocab.encode("banana", 24)]), torch.tensor([[SOS, *vocab.encode("an", 24)]]),
                       edit=edit).logits[0, -1]
    assert broken[2] == pytest.approx(float(torch.softmax(logits, -1)[vocab.encode("a", 24)[0]]), abs=1e-5)
    assert broken_run.trace.stack_attention("cross").shape == (2, 4, 7, 6)


def test_teacher_forcing_and_free_running_agree_until_a_token_is_forced(bundled):
    model, vocab = bundled.model, bundled.vocab
    teacher, free = make_run(model, vocab, "banana", TEACHER), make_run(model, vocab, "banana")
    assert lab.first_divergence(teacher, free) is None
    assert teacher.chosen_ids == free.chosen_ids == tuple(correct_tokens(vocab, "banana", 24))
    z = vocab.encode("z", 24)[0]
    forced = make_run(model, vocab, "banana", Decoding(forced=((2, z),)))
    assert forced.fed_ids[2] == z and forced.chosen_ids[2] == vocab.encode("a", 24)[0]  # the model wanted 'a'
    assert forced.decoder_in_ids[3] == z and lab.first_divergence(teacher, forced) == 3
    with torch.no_grad():
        direct = model(torch.tensor([vocab.encode("banana", 24)]), torch.tensor([forced.decoder_in_ids]), trace=True)
    assert np.allclose(forced.trace["cross", 1], direct.trace["cross", 1][0].numpy(), atol=1e-6)


def test_exact_match_falls_beyond_the_training_length(bundled):
    trained, limit = bundled.model.config.max_len, lab.lab_limit(bundled.model)
    assert limit == 2 * trained                      # the lab probes up to twice the trained length
    longer = trained * 3 // 2
    by_length = lab.exact_match_by_length(bundled.model, bundled.vocab, [10, trained, longer], per_length=10)
    assert by_length[10] == 1.0 and by_length[trained] == 1.0 and by_length[longer] < 0.5
    with pytest.raises(ValueError, match="outside"):
        lab.exact_match_by_length(bundled.model, bundled.vocab, [limit + 1], per_length=1)
    with pytest.raises(InputTooLongError):
        lab.encode_for_lab(bundled.vocab, "a" * (limit + 1), limit)


def test_queries_and_keys_give_back_the_scores(bundled):
    """q·k/√d_k of the traced vectors is exactly the score the head used: the map shows real vectors."""
    run = make_run(bundled.model, bundled.vocab, "banana")
    q, k = run.trace.attention("cross", 1, "queries")[0], run.trace.attention("cross", 1, "keys")[0]  # (T, d_k), (S, d_k)
    assert np.allclose(q @ k.T / math.sqrt(q.shape[-1]), run.trace.attention("cross", 1, "scores")[0], atol=1e-5)
    qk = lab.query_key_map(run, "cross", 1, 0)
    assert qk.query_xy.shape == (7, 2) and qk.key_xy.shape == (6, 2)
    assert 0 < qk.explained[1] <= qk.explained[0] < 1
    assert np.allclose(qk.weights, run.trace["cross", 1][0])
    assert np.allclose(qk.key_xy.mean(0), 0, atol=1e-9)                  # the keys are centred, the queries not
    in_plane = qk.query_xy @ qk.key_xy.T
    assert qk.agreement == pytest.approx(np.mean(in_plane.argmax(-1) == qk.weights.argmax(-1)))


def test_centring_the_keys_leaves_every_softmax_unchanged(bundled):
    run = make_run(bundled.model, bundled.vocab, "banana")
    q, k = run.trace.attention("cross", 1, "queries")[2], run.trace.attention("cross", 1, "keys")[2]
    d_k = q.shape[-1]
    plain = torch.softmax(torch.tensor(q @ k.T) / math.sqrt(d_k), -1)
    centred = torch.softmax(torch.tensor(q @ (k - k.mean(0)).T) / math.sqrt(d_k), -1)
    assert torch.allclose(plain, centred, atol=1e-5)


def test_chance_and_uniformity_are_those_of_an_even_head(bundled):
    """chance = mean 1/(keys a counted query may see); uniformity = entropy / ln(those keys)."""
    patterns = {p.head: p for p in lab.pattern_scores(bundled.model, bundled.vocab, ["level"])}
    assert patterns[Head("cross", 1, 0)].chance == pytest.approx(1 / 5)
    assert patterns[Head("encoder_self", 0, 0)].chance == pytest.approx(1 / 5)
    assert patterns[Head("decoder_self", 0, 0)].chance == pytest.approx(np.mean([1 / k for k in range(2, 7)]))
    assert all(0 <= p.uniformity <= 1 + 1e-9 for p in patterns.values())
    assert patterns[Head("cross", 1, 0)].uniformity < patterns[Head("encoder_self", 0, 0)].uniformity


def test_the_first_difference_counts_a_character_written_past_the_end():
    assert lab.first_difference("abx", "abc") == 2
    assert lab.first_difference("ab", "abc") == 2          # stopped early
    assert lab.first_difference("abcd", "abc") == 3        # went on past the end


def test_correlation_words_never_say_more_than_rho():
    assert lab.correlation_words(0.04) == "are barely related"
    assert lab.correlation_words(-0.29) == "are barely related"
    assert lab.correlation_words(0.5) == "agree in part"
    assert lab.correlation_words(0.8) == "agree"
    assert lab.correlation_words(-0.75) == "run opposite"
    assert "undefined" in lab.correlation_words(None)


def test_refitted_length_probes_match_the_intact_ones_with_nothing_off_and_read_nothing_without_encoder_attention(
        bundled):
    from analysis import mechanism
    from transformer.data import sample_strings
    c = bundled.model.config
    test = held_out_strings(100, c.max_len)
    train = [t for t in sample_strings(200, 5, c.max_len, held_out=True) if t not in set(test)]
    nothing = mechanism.length_probe(bundled.model, bundled.vocab, train, test, [])
    assert np.allclose(nothing.r2_refit, nothing.r2, equal_nan=True)
    assert np.allclose(nothing.r2_off, nothing.r2, equal_nan=True)
    every = [Head("encoder_self", layer, h) for layer in range(c.n_encoder_layers) for h in range(c.n_heads)]
    blind = mechanism.length_probe(bundled.model, bundled.vocab, train, test, every)
    low, high = mechanism.output_range(blind.r2_refit)
    assert high < 0.3 < mechanism.output_range(nothing.r2_refit)[0]   # no attention in the encoder: no length
