"""Arbitrary Unicode into the encoder: every case encodes and round-trips, or raises a learner's InputError."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from transformer.vocab import InputError, Vocab

vocab = Vocab()
CASES = 3000


def test_any_unicode_text_encodes_or_raises_a_clear_input_error():
    outcomes = {"encoded": 0, "rejected": 0}

    @settings(max_examples=CASES, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
    @given(st.one_of(st.text(), st.text(alphabet="abcdefghijklmnopqrstuvwxyz ", max_size=30)))
    def case(text):
        try:
            ids = vocab.encode(text, 24)
        except InputError as err:
            assert str(err) and not isinstance(err, (KeyError, IndexError))
            outcomes["rejected"] += 1
            return
        assert vocab.decode(ids) == text and 1 <= len(ids) <= 24
        outcomes["encoded"] += 1

    case()
    print(f"hypothesis: {sum(outcomes.values())} texts, {outcomes['encoded']} encoded, "
          f"{outcomes['rejected']} rejected with an InputError")
    assert sum(outcomes.values()) == CASES
    assert outcomes["encoded"] > 0 and outcomes["rejected"] > 0


def test_cleaning_never_raises_and_only_ever_lowercases_and_tidies_spaces():
    @settings(max_examples=1000, deadline=None, derandomize=True)
    @given(st.text())
    def case(text):
        cleaned = vocab.clean(text)
        assert cleaned.text == " ".join(part for part in text.lower().split(" ") if part)
        assert bool(cleaned.notices) == (cleaned.text != text)

    case()
