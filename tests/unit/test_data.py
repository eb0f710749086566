import random

from transformer.data import is_held_out, make_batch, random_string, sample_strings
from transformer.vocab import EOS, PAD, SOS, Vocab


def test_random_strings_have_no_edge_or_double_spaces_and_cover_every_length():
    rng = random.Random(0)
    strings = [random_string(rng, n) for n in range(1, 25) for _ in range(200)]
    for s in strings:
        assert s == s.strip() and "  " not in s
        Vocab().check(s, 24)
    assert {len(s) for s in strings} == set(range(1, 25))
    assert any(" " in s for s in strings)


def test_held_out_and_training_sides_never_share_a_string():
    train = set(sample_strings(20_000, seed=0, max_len=6, held_out=False))
    held = set(sample_strings(2_000, seed=1, max_len=6, held_out=True))
    assert train and held and not train & held
    assert all(is_held_out(s) for s in held) and not any(is_held_out(s) for s in train)
    assert {len(s) for s in held} == set(range(1, 7))  # even length 1 has held-out strings


def test_batch_is_source_then_target_shifted_right():
    batch = make_batch(["abc", "z"], Vocab(), 24)
    v = Vocab()
    assert batch.src.tolist() == [v.encode("abc", 24), v.encode("z", 24) + [PAD, PAD]]
    assert batch.tgt_in.tolist()[0] == [SOS] + v.encode("cba", 24)
    assert batch.tgt_out.tolist()[0] == v.encode("cba", 24) + [EOS]
    assert batch.tgt_out.tolist()[1] == v.encode("z", 24) + [EOS, PAD, PAD]
