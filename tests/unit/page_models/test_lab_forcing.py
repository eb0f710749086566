"""The teacher-forcing lab's record: the step table read against the two runs' own token ids, the step where the
modes part found by walking the prefixes here, and the maps against the last layer's cross-attention."""

from __future__ import annotations

import numpy as np
import pytest

from analysis.page_models.lab_forcing import READ_TAIL, forced_tokens, forcing_lab, writable_letters
from analysis.run import Decoding

from .conftest import checkpoint, run_of

TEACHER = Decoding(teacher=True)


def shown(chars: str) -> str:
    return " ".join("␣" if c == " " else c for c in chars)


def lab_of(text: str, step: int | None, token: str = "z", task: str = "reverse", escape=lambda s: s):
    vocab = checkpoint(task).vocab
    forced = forced_tokens(vocab, step, token)
    free = run_of(text, task, Decoding(forced=forced))
    return forcing_lab(vocab, run_of(text, task, TEACHER), free, run_of(text, task), forced, escape), free


def test_the_letters_are_the_single_characters_and_a_forced_token_is_its_id(reverser):
    letters = writable_letters(reverser.vocab)
    assert "z" in letters and " " in letters and all(len(t) == 1 for t in letters)
    assert not any(t.startswith("<") for t in letters)
    assert forced_tokens(reverser.vocab, None, "z") == ()
    assert forced_tokens(reverser.vocab, 2, "q") == ((2, reverser.vocab.tokens.index("q")),)


@pytest.mark.parametrize("task, text, written", [("reverse", "banana", "ananab"), ("sort", "dcba", "abcd")])
def test_without_forcing_the_modes_agree_and_one_map_is_shown(task, text, written):
    view, free = lab_of(text, None, task=task)
    n = len(text) + 1
    assert view.table["step"].to_list() == list(range(n))
    assert view.table["teacher forcing reads"].to_list() == ["—", *(shown(written[:t]) for t in range(1, n))]
    assert view.table["and picks"].to_list() == [*written, "⟨/s⟩"]
    assert view.table["free running reads"].to_list() == view.table["teacher forcing reads"].to_list()
    assert view.table["fed onward"].to_list() == [*written, "⟨/s⟩"]
    assert view.diverged is None
    assert view.verdict.startswith(f"Free running read the correct prefix at every step and wrote **{written}**")
    [cross] = view.maps
    assert cross.key == "cross_unforced" and cross.name == "no forcing"
    assert np.allclose(cross.weights, free.trace["cross", 1].mean(0))
    assert cross.rows == ["⟨s⟩", *written] and cross.cols == list(text)
    assert cross.height == min(520, 34 * n + 120)
    assert cross.title == "no forcing: cross-attention, layer 1, head average (a summary)"


def first_part(teacher_reads: list[int], free_reads: list[int]) -> int | None:
    """The first position whose input differs, walked here one position at a time."""
    for t, (a, b) in enumerate(zip(teacher_reads, free_reads)):
        if a != b:
            return t
    return None if len(free_reads) <= len(teacher_reads) else len(teacher_reads)


def test_a_forced_token_is_fed_onward_and_the_modes_part_after_it():
    view, free = lab_of("banana", 2, "z", escape=lambda s: f"<{s}>")
    teacher = run_of("banana", how=TEACHER)
    assert view.diverged == first_part(teacher.decoder_in_ids, free.decoder_in_ids) == 3
    assert view.table["fed onward"].iloc[2] == "z (forced)"
    assert not view.table["fed onward"].iloc[3].endswith("(forced)")
    assert view.table["free running reads"].iloc[3] == "a n z"
    assert view.table["and picks "].to_list()[: len(free.chosen_ids)] == free.decoder_out
    assert f"part at **step {view.diverged}**" in view.verdict
    assert f"wrote **<{free.output}>** instead of **<ananab>**" in view.verdict   # both through the page's escape
    unforced, forced_map = view.maps
    assert forced_map.key == "cross_forced" and forced_map.name == "with your forced token"
    assert np.allclose(forced_map.weights, free.trace["cross", 1].mean(0))
    assert forced_map.rows[3] == "z" and unforced.rows[3] == "a"


def test_a_long_prefix_shows_only_its_latest_tokens():
    text = "attention is all you need abc"
    view, _ = lab_of(text, None)
    written = text[::-1]
    assert view.table["teacher forcing reads"].iloc[READ_TAIL] == shown(written[:READ_TAIL])
    assert view.table["teacher forcing reads"].iloc[READ_TAIL + 1] == "… " + shown(written[1:READ_TAIL + 1])
    assert view.table["teacher forcing reads"].iloc[20] == "… " + shown(written[20 - READ_TAIL:20])


def test_forcing_the_last_step_runs_past_the_correct_output():
    view, free = lab_of("abc", 3, "z")                  # a character where ⟨/s⟩ belongs
    assert len(view.table) == len(free.fed_ids) > 4 and view.diverged == 4
    assert view.table["fed onward"].iloc[3] == "z (forced)"
    assert set(view.table["teacher forcing reads"].iloc[4:]) == {""}    # the correct output has ended
    assert set(view.table["and picks"].iloc[4:]) == {""}
    assert "instead of **cba**" in view.verdict
