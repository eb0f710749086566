import random

import pytest

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


def test_each_task_has_its_target_and_the_source_position_each_output_character_comes_from():
    from transformer.data import source_positions, target
    text = "b a ab"
    assert target(text) == "ba a b" and target(text, "copy") == text
    assert target(text, "sort") == "  aabb"                       # spaces sort before every letter
    for task in ("reverse", "copy", "sort"):
        positions = source_positions(text, task)
        assert "".join(text[p] for p in positions) == target(text, task)
        assert sorted(positions) == list(range(len(text)))        # each source character used once
    assert source_positions(text, "sort")[:2] == [1, 3]           # equal characters keep their source order
    with pytest.raises(ValueError, match="'shuffle' is not an operation"):
        target(text, "shuffle")


def test_a_batch_holds_the_tasks_target_shifted_right_for_the_decoder():
    from transformer.data import make_batch
    vocab = Vocab()
    batch = make_batch(["cab"], vocab, 8, task="sort")
    assert vocab.decode(batch.tgt_out[0].tolist()) == "abc"
    assert batch.tgt_in[0, 0].item() == SOS and vocab.decode(batch.tgt_in[0, 1:].tolist()) == "abc"


def test_a_share_of_the_stream_repeats_letters_and_the_rest_is_unchanged():
    from itertools import islice

    from transformer.data import FEW_LETTERS, string_stream

    def repeats(strings):   # strings of 8 or more characters from at most FEW_LETTERS letters
        long = [s for s in strings if len(s) >= 8]
        return sum(len(set(s) - {" "}) <= FEW_LETTERS for s in long) / len(long)

    plain = list(islice(string_stream(0, 24, held_out=False), 4000))
    mixed = list(islice(string_stream(0, 24, held_out=False, repeats=0.5), 4000))
    assert repeats(plain) < 0.01
    assert 0.4 < repeats(mixed) < 0.6
    assert not any(is_held_out(s) for s in mixed)              # the split holds for repeated strings too
    assert plain == list(islice(string_stream(0, 24, held_out=False, repeats=0.0), 4000))
