"""The lab's experiments on the bundled checkpoint, each checked against a direct computation."""

import math

import numpy as np
import pytest
import torch

from transformer import decoding, lab
from transformer.evaluate import held_out_strings
from transformer.intervention import Head, Intervention
from transformer.vocab import SOS, InputTooLongError


def test_ideal_keys_of_each_kind():
    assert lab.ideal_keys("encoder_self", 4, 4).tolist() == [0, 1, 2, 3]
    assert lab.ideal_keys("decoder_self", 4, 3).tolist() == [0, 0, 1, 2]
    assert lab.ideal_keys("cross", 4, 3).tolist() == [2, 1, 0, -1]  # the end step has no mirrored source


def test_exact_match_under_an_ablation_counts_whole_words(bundled):
    texts = held_out_strings(60, 24)
    assert lab.exact_match(bundled.model, bundled.vocab, texts) == 1.0
    edit = Intervention(ablated=frozenset({Head("decoder_self", 0, 0)}))
    outputs = [bundled.vocab.decode(decoding.generate(bundled.model, bundled.vocab.encode(t, 24), edit=edit))
               for t in texts]
    expected = sum(o == t[::-1] for o, t in zip(outputs, texts)) / len(texts)
    assert lab.exact_match(bundled.model, bundled.vocab, texts, edit) == pytest.approx(expected)
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


def test_run_word_gives_the_probability_of_each_correct_character(bundled):
    model, vocab = bundled.model, bundled.vocab
    plain = lab.run_word(model, vocab, "banana")
    assert plain.output == "ananab" and plain.p_correct.shape == (7,) and plain.p_correct.min() > 0.5
    edit = Intervention(ablated=frozenset({Head("cross", 1, h) for h in range(4)}))
    broken = lab.run_word(model, vocab, "banana", edit)
    assert broken.p_correct.mean() < plain.p_correct.mean()
    step = decoding.step(model, vocab.encode("banana", 24), vocab.encode("an", 24), edit=edit)
    assert broken.p_correct[2] == pytest.approx(float(step.probs[vocab.encode("a", 24)[0]]), abs=1e-5)
    assert broken.weights["cross"].shape == (2, 4, 7, 6)


def test_teacher_forcing_and_free_running_agree_until_a_token_is_forced(bundled):
    model, vocab = bundled.model, bundled.vocab
    agree = lab.teacher_forcing_vs_free_running(model, vocab, "banana")
    assert agree.first_divergence is None and agree.forced_choice == agree.free_choice == agree.correct
    z = vocab.encode("z", 24)[0]
    forced = lab.teacher_forcing_vs_free_running(model, vocab, "banana", forced={2: z})
    assert forced.fed[2] == z and forced.free_choice[2] == vocab.encode("a", 24)[0]  # the model wanted 'a'
    assert forced.free_input[3][-1] == z and forced.first_divergence == 3
    assert forced.forced_choice == agree.forced_choice  # teacher forcing never sees the forced token
    direct = model(torch.tensor([vocab.encode("banana", 24)]), torch.tensor([[SOS, *forced.fed[:-1]]]), trace=True)
    assert np.allclose(forced.free_cross[1], direct.trace["cross", 1][0].numpy(), atol=1e-6)


def test_exact_match_falls_beyond_the_training_length(bundled):
    by_length = lab.exact_match_by_length(bundled.model, bundled.vocab, [10, 24, 36], per_length=10)
    assert by_length[10] == 1.0 and by_length[24] == 1.0 and by_length[36] < 0.5
    with pytest.raises(ValueError, match="outside"):
        lab.exact_match_by_length(bundled.model, bundled.vocab, [lab.LONGEST_LAB_INPUT + 1], per_length=1)
    with pytest.raises(InputTooLongError):
        lab.encode_for_lab(bundled.vocab, "a" * (lab.LONGEST_LAB_INPUT + 1))


def test_queries_and_keys_give_back_the_scores(bundled):
    """q·k/√d_k of the traced vectors is exactly the score the head used: the map shows real vectors."""
    model, vocab = bundled.model, bundled.vocab
    src = vocab.encode("banana", 24)
    tgt = [SOS, *decoding.generate(model, src)]
    trace = model(torch.tensor([src]), torch.tensor([tgt]), trace=True).trace
    q, k = trace.queries["cross"][1][0, 0], trace.keys["cross"][1][0, 0]     # (T, d_k), (S, d_k)
    assert torch.allclose(q @ k.T / math.sqrt(q.size(-1)), trace.scores("cross", 1)[0, 0], atol=1e-5)
    qk = lab.query_key_map(model, vocab, "banana", "cross", 1, 0)
    assert qk.query_xy.shape == (7, 2) and qk.key_xy.shape == (6, 2)
    assert 0 < qk.explained[1] <= qk.explained[0] < 1
    assert np.allclose(qk.weights, trace["cross", 1][0, 0].numpy())
