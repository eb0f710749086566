import pytest
import torch

from transformer.decoding import generate, greedy_batch, max_output_tokens, next_token_probs, step, steps
from transformer.vocab import EOS, SOS


def test_stepping_through_gives_exactly_the_greedy_tokens(tiny_model):
    src = [5, 9, 9, 14]
    trail = steps(tiny_model, src)
    produced = [s.token for s in trail if s.token != EOS]
    assert produced == generate(tiny_model, src)
    for t, s in enumerate(trail):  # the decoder input at step t is SOS + the t tokens so far
        assert s.decoder_input == (SOS, *produced[:t])
        assert s.trace["decoder_self", 0].shape[-1] == t + 1
        assert torch.isclose(s.probs.sum(), torch.tensor(1.0))
        assert s.token == int(s.probs.argmax())


def test_decoding_stops_at_the_length_limit(tiny_model, tiny_config):
    trail = steps(tiny_model, [5, 6])
    assert len(trail) <= max_output_tokens(tiny_model, 2) == tiny_config.max_len + 1
    assert len(generate(tiny_model, [5, 6])) <= tiny_config.max_len + 1


def test_sampling_is_reproducible_from_a_seed_and_matches_its_steps(tiny_model):
    src = [5, 6, 7, 8]
    a = generate(tiny_model, src, temperature=2.0, seed=3)
    b = generate(tiny_model, src, temperature=2.0, seed=3)
    assert a == b
    stepped = [s.token for s in steps(tiny_model, src, temperature=2.0, seed=3) if s.token != EOS]
    assert stepped == a
    outputs = {tuple(generate(tiny_model, src, temperature=5.0, seed=s)) for s in range(6)}
    assert len(outputs) > 1  # different seeds really do sample differently


def test_temperature_sharpens_or_flattens_and_top_k_cuts():
    logits = torch.tensor([2.0, 1.0, 0.0, -1.0])
    cold, warm = next_token_probs(logits, 0.5, None), next_token_probs(logits, 2.0, None)
    assert cold[0] > next_token_probs(logits, 1.0, None)[0] > warm[0]
    top2 = next_token_probs(logits, 1.0, 2)
    assert top2[2:].sum() == 0 and torch.isclose(top2.sum(), torch.tensor(1.0))
    with pytest.raises(ValueError):
        next_token_probs(logits, 0.0, None)
    with pytest.raises(ValueError):
        next_token_probs(logits, 1.0, 0)


def test_batch_decoding_equals_one_at_a_time(tiny_model):
    sources = [[5], [6, 7, 8], [9, 10, 11, 12, 13], [14, 3, 15]]
    assert greedy_batch(tiny_model, sources, batch_size=3) == [generate(tiny_model, s) for s in sources]


def test_step_reports_the_trace_of_its_own_forward_pass(tiny_model):
    s = step(tiny_model, [5, 6, 7], [8, 9])
    assert s.trace["cross", 1].shape == (1, tiny_model.config.n_heads, 3, 3)
