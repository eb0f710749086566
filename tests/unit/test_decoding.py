import pytest
import torch

from transformer.decoding import EXTRA_TOKENS, decide, generate, greedy_batch, max_output_tokens, next_token_probs
from transformer.vocab import EOS, SOS


def test_each_step_chooses_the_argmax_of_its_own_prefix(tiny_model):
    src = [5, 9, 9, 14]
    decided = decide(tiny_model, src)
    assert decided.tokens == generate(tiny_model, src)
    assert decided.fed == decided.chosen
    for t, token in enumerate(decided.chosen):  # step t reads SOS + the t tokens so far
        prefix = torch.tensor([[SOS, *decided.fed[:t]]])
        logits = tiny_model(torch.tensor([src]), prefix).logits[0, -1]
        assert token == int(logits.argmax())


def test_decoding_stops_at_the_length_limit(tiny_model, tiny_config):
    decided = decide(tiny_model, [5, 6])
    assert len(decided.chosen) <= max_output_tokens(tiny_model, 2) == 2 + 1 + EXTRA_TOKENS
    assert len(generate(tiny_model, [5, 6])) <= 2 + 1 + EXTRA_TOKENS


def test_a_model_that_never_ends_decodes_as_far_as_the_text_needs_not_as_far_as_it_claims():
    """Issue 24: an accepted upload claiming 511 positions that never writes EOS ran 511 steps per word."""
    from drivers.payloads import endless_model

    model = endless_model()
    words = [[5] * n for n in (1, 12, 48)]
    for src in words:
        decided = decide(model, src)
        assert EOS not in decided.chosen
        assert len(decided.chosen) == len(src) + 1 + EXTRA_TOKENS < model.config.max_len
    assert [len(out) for out in greedy_batch(model, words)] == [len(s) + 1 + EXTRA_TOKENS for s in words]


def test_a_forced_token_is_fed_on_while_the_choice_is_kept(tiny_model):
    src = [5, 6, 7, 8]
    free = decide(tiny_model, src)
    forced_token = next(t for t in range(3, 29) if t != free.chosen[1])
    forced = decide(tiny_model, src, forced={1: forced_token})
    assert forced.fed[1] == forced_token and forced.chosen[1] == free.chosen[1]
    assert forced.fed[:2] == (free.chosen[0], forced_token)


def test_sampling_is_reproducible_from_a_seed(tiny_model):
    src = [5, 6, 7, 8]
    a = generate(tiny_model, src, temperature=2.0, seed=3)
    b = generate(tiny_model, src, temperature=2.0, seed=3)
    assert a == b
    assert decide(tiny_model, src, temperature=2.0, seed=3).tokens == a
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


def test_the_tokens_end_at_eos(tiny_model):
    decided = decide(tiny_model, [5, 6, 7])
    assert EOS not in decided.tokens
    assert decided.fed[-1] == EOS or len(decided.fed) == max_output_tokens(tiny_model, 3)
