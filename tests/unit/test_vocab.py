import pytest

from transformer.vocab import (
    EOS, PAD, SOS, EmptyInputError, InputError, InputTooLongError, SpacingError, UnknownCharacterError, Vocab,
)

vocab = Vocab()


def test_special_ids_are_distinct_and_not_characters():
    assert len({PAD, SOS, EOS}) == 3
    assert vocab.size == 30
    ids = vocab.encode("a z", 24)
    assert not {PAD, SOS, EOS} & set(ids)


def test_round_trip_keeps_every_character_in_order():
    text = "hello world"
    assert vocab.decode(vocab.encode(text, 24)) == text


def test_decode_stops_at_eos_and_skips_pad_and_sos():
    ids = [SOS] + vocab.encode("ab", 24) + [EOS] + vocab.encode("zz", 24) + [PAD]
    assert vocab.decode(ids) == "ab"


def test_empty_text_is_its_own_error():
    with pytest.raises(EmptyInputError, match="empty"):
        vocab.encode("", 24)


def test_unknown_characters_are_named_with_positions_and_uppercase_hint():
    with pytest.raises(UnknownCharacterError) as info:
        vocab.encode("héLlo!", 24)
    assert info.value.found == [(2, "é"), (3, "L"), (6, "!")]
    message = str(info.value)
    assert "'é' at position 2" in message and "'!' at position 6" in message
    assert "lowercased" in message


def test_too_long_names_the_limit():
    with pytest.raises(InputTooLongError, match="at most 5") as info:
        vocab.encode("abcdefg", 5)
    assert (info.value.length, info.value.limit) == (7, 5)


@pytest.mark.parametrize("text", [" ab", "ab ", "a  b"])
def test_bad_spacing_is_rejected_not_changed(text):
    with pytest.raises(SpacingError):
        vocab.encode(text, 24)


def test_all_errors_share_one_base_class():
    for cls in (EmptyInputError, UnknownCharacterError, InputTooLongError, SpacingError):
        assert issubclass(cls, InputError) and issubclass(cls, ValueError)


def test_clean_reports_each_change():
    cleaned = vocab.clean("  Hello   World ")
    assert cleaned.text == "hello world"
    assert len(cleaned.notices) == 2
    assert vocab.clean("fine").notices == ()
