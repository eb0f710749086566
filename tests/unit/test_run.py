import numpy as np
import pytest
import torch

from analysis.lesson import companions, input_vectors, pattern_shares, scaling_experiment
from analysis.run import TEACHER, Decoding, correct_tokens, make_batch_runs, make_run
from transformer.decoding import next_token_probs
from transformer.metrics import pattern_share
from transformer.vocab import EOS, PAD, SOS, Vocab

vocab = Vocab()


@pytest.mark.parametrize("how", [Decoding(), Decoding(temperature=3.0, seed=2), Decoding(forced=((1, 7),))])
@torch.no_grad()
def test_row_t_of_the_one_traced_pass_is_what_step_t_saw(tiny_model, how):
    """Because of the causal mask, the pass over the whole decoder input holds, at row t, exactly what a pass
    over step t's own prefix computes: its logits and every attention row."""
    run = make_run(tiny_model, vocab, "abc", how)
    src = torch.tensor([run.source_ids])
    for t in range(len(run.fed_ids)):
        alone = tiny_model(src, torch.tensor([run.decoder_in_ids[: t + 1]]), trace=True)
        assert np.allclose(run.logits[t], alone.logits[0, -1].numpy(), atol=1e-6)
        for layer in range(2):
            for kind in ("cross", "decoder_self"):
                assert np.allclose(run.trace[kind, layer][:, t, : t + 1 if kind == "decoder_self" else None],
                                   alone.trace[kind, layer][0, :, -1].numpy(), atol=1e-6)
        expected = next_token_probs(alone.logits[0, -1], how.temperature, how.top_k).numpy()
        assert np.allclose(run.probs[t], expected, atol=1e-6)
        if how.temperature is None:
            assert run.chosen_ids[t] == int(np.argmax(run.logits[t]))
    assert np.all(np.triu(run.trace["decoder_self", 0], k=1) == 0)    # the future is never seen


def test_a_forced_token_is_read_by_the_next_step(tiny_model):
    run = make_run(tiny_model, vocab, "abc", Decoding(forced=((1, 7),)))
    assert run.fed_ids[1] == 7 and run.decoder_in_ids[2] == 7


def test_teacher_forcing_feeds_the_correct_reversal(tiny_model):
    run = make_run(tiny_model, vocab, "abc", TEACHER)
    correct = correct_tokens(vocab, "abc", 8)
    assert run.decoder_in_ids == [SOS, *correct[:-1]] and run.output == "cba"
    assert run.chosen_ids == tuple(int(i) for i in run.logits.argmax(-1))
    p = run.probability_of(correct)
    assert p.shape == (4,) and np.allclose(p, [run.probs[t, c] for t, c in enumerate(correct)])


def test_run_labels_and_shapes(tiny_model):
    run = make_run(tiny_model, vocab, "aba")
    assert run.source == ["a", "b", "a"]
    t = len(run.decoder_in)
    assert run.decoder_in[0] == "⟨s⟩"
    assert run.trace.stack_attention("cross").shape == (2, 4, t, 3)
    assert run.trace.mask("decoder_self").tolist() == np.tril(np.ones((t, t), bool)).tolist()
    assert run.trace.mask("cross").shape == (t, 3)


def test_companions_are_longer_when_they_can_be():
    assert all(len(w) > 5 for w in companions("hello", 24))
    assert len(companions("a" * 24, 24)) == 2
    assert all(len(w) <= 8 for w in companions("abcdefgh", 8))


def test_batch_runs_pad_and_mask(tiny_model):
    short, long = make_batch_runs(tiny_model, vocab, ["ab", "abcd"])
    assert short.trace["masks.source"][0, 0].tolist() == [True, True, False, False]
    assert long.trace["masks.source"][0, 0].tolist() == [True, True, True, True]
    assert short.source[2:] == ["·", "·"]



def test_a_shorter_row_reads_padding_after_its_end(bundled):
    short, long = make_batch_runs(bundled.model, bundled.vocab, ["ab", "abcd"])
    assert (short.output, long.output) == ("ba", "dcba")
    assert short.chosen_ids[2] == EOS and short.fed_ids[2:] == (PAD, PAD, PAD)   # what the pass read after EOS
    assert short.decoder_in_ids == [SOS, *bundled.vocab.encode("ba", 24), PAD, PAD]
    assert long.fed_ids[-1] == EOS                                               # its output fills the width
    weights = short.trace.stack_attention("encoder_self")            # (L, H, S, S) of the short row
    assert np.all(weights[..., 2:] == 0)


def test_without_scaling_scores_spread_with_d_k_and_softmax_saturates():
    small, large = scaling_experiment(4), scaling_experiment(256)
    assert small.score_std == pytest.approx(2, rel=0.05) and large.score_std == pytest.approx(16, rel=0.05)
    assert small.scaled_std == pytest.approx(1, rel=0.05) == large.scaled_std
    assert large.top_weight > 0.9 > small.top_weight and large.gradient < small.gradient / 3
    assert abs(large.scaled_top_weight - small.scaled_top_weight) < 0.05
    assert abs(large.scaled_gradient - small.scaled_gradient) < 0.05


def test_input_vectors_show_the_sqrt_d_model_scaling(tiny_model):
    v = input_vectors(make_run(tiny_model, vocab, "abc"))
    assert np.allclose(v.embedding_norm, v.raw_embedding_norm * 4.0, atol=1e-5)  # sqrt(16)
    assert np.allclose(v.position_norm, np.sqrt(8), atol=1e-5)


def test_pattern_share_counts_the_steps_on_the_anti_diagonal():
    cross = torch.zeros(1, 2, 4, 3)                  # (B, H, T, S): 3 source characters, 4 steps
    for i in range(3):
        cross[0, 0, i, 2 - i] = 1.0                  # head 0 reads the mirror at every step
        cross[0, 1, i, 0] = 1.0                      # head 1 always reads position 0: right at step 2 only
    cross[0, :, 3, 1] = 1.0                          # the end step has no mirror and is not counted
    assert pattern_share(cross, ["abc"]).tolist() == pytest.approx([1.0, 1 / 3])
    assert pattern_share(cross, ["abc"], "copy").tolist() == pytest.approx([1 / 3, 1 / 3])  # the diagonal


def test_pattern_share_for_sort_follows_the_characters_and_accepts_either_of_two_equal_ones():
    cross = torch.zeros(1, 2, 4, 3)                  # "bab" sorts to "abb": source 1, then 0 and 2 (either)
    for i, key in enumerate([1, 2, 0]):
        cross[0, 0, i, key] = 1.0                    # head 0 takes the second b first: still on the pattern
    cross[0, 1, :3, 0] = 1.0                         # head 1 always reads source 0 (a 'b'): right at steps 1, 2
    assert pattern_share(cross, ["bab"], "sort").tolist() == pytest.approx([1.0, 2 / 3])


def test_a_runs_pattern_shares_use_the_one_definition(bundled):
    run = make_run(bundled.model, bundled.vocab, "banana")
    cross = torch.tensor(run.trace["cross", 1])[None]
    assert pattern_shares(run, 1).tolist() == pattern_share(cross, ["banana"]).tolist()
    assert max(pattern_shares(run, 1)) == 1.0


@torch.no_grad()
def test_the_runs_own_recorder_holds_what_the_models_traced_pass_holds(tiny_model):
    """make_run records through its own recorder (traced_pass), not through forward(trace=True): the two
    must hold the same entries with the same values, under an experiment too."""
    from transformer.intervention import intervention
    edit = intervention((("cross", 0, 1), ("encoder_self", 1, 0)))
    run = make_run(tiny_model, vocab, "abca", edit=edit)
    model_trace = tiny_model(torch.tensor([run.source_ids]), torch.tensor([run.decoder_in_ids]), trace=True,
                             edit=edit).trace.row(0)
    assert set(run.trace) == set(model_trace)
    for name in model_trace:
        assert np.array_equal(run.trace[name], model_trace[name]), name
