"""The longer-than-trained lab's records. The page's curve (20 strings at each of 96 lengths) and failure table
(10 strings at each of 11 lengths) are measured here on two strings at a few short lengths, read as if the model
had been trained on 1 to 4 characters (a string past the real 48 decodes for seconds); the captions' branches are
reached with tables made by hand. The two maps are read against the model's own teacher-forced pass."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from analysis import lab
from analysis.lab import FirstFailure
from analysis.page_models.lab_length import (default_long_text, exact_match_curve, first_wrong_table, long_text,
                                             two_texts)
from analysis.run import Decoding, make_run
from analysis.tasks import words
from transformer.vocab import SOS, InputError

from .conftest import checkpoint, run_of

TRAINED = 48                       # the bundled models' max_len


def test_the_curve_caption_gives_the_worst_length_within_training_and_the_ends_beyond(reverser):
    curve = lab.exact_match_by_length(reverser.model, reverser.vocab, [1, 3, 5, 7], 2)
    view = exact_match_curve(curve, 4)
    assert view.curve == curve
    assert view.caption == (f"Within training: {min(curve[1], curve[3]):.0%} at worst. Beyond it: "
                            f"{curve[5]:.0%} at length 5, {curve[7]:.0%} at length 7.")
    made = exact_match_curve({1: 1.0, 2: 0.85, 3: 0.95, 4: 0.5}, 3)
    assert made.caption == "Within training: 85% at worst. Beyond it: 50% at length 4, 50% at length 4."
    assert exact_match_curve({1: 1.0, 2: 0.9, 3: 0.2}, 1).caption == (
        "Within training: 100% at worst. Beyond it: 90% at length 2, 20% at length 3.")


def test_the_failure_table_is_the_measured_rows_and_its_caption_sums_the_lengths_past_training(reverser):
    failures = lab.first_failures(reverser.model, reverser.vocab, [4, 6], 2)
    view = first_wrong_table(failures, 4, "reverse")
    assert view.table["length"].to_list() == [4, 6]
    assert view.table["exactly right"].to_list() == [f.exact for f in failures]
    assert view.table["wrong from the first character"].to_list() == [f.wrong_at_step_0 for f in failures]
    assert view.table["first wrong step (median)"].to_list() == [
        "none went wrong" if f.first_wrong is None else f"{f.first_wrong:g}" for f in failures]
    assert view.table["p(correct first character)"].to_list() == [f.p_step_0 for f in failures]
    past = failures[1]
    assert view.caption == (f"10 random strings per length. Past 4 characters, {past.wrong_at_step_0:.0%} of the "
                            f"strings go wrong at the very first output character, and the first step gives the right "
                            f"one a mean probability of {past.p_step_0:.3f}–{past.p_step_0:.3f}.")


def made(length: int, wrong_at_step_0: float, p: float) -> FirstFailure:
    return FirstFailure(length, 1 - wrong_at_step_0, wrong_at_step_0, 0.0 if wrong_at_step_0 else None, p)


@pytest.mark.parametrize("task, at_once, reading", [("reverse", 0.5, True), ("reverse", 0.4, False),
                                                    ("copy", 0.9, False)])
def test_the_reading_of_a_failure_at_step_0_is_given_only_for_reverse_when_most_fail_there(task, at_once, reading):
    failures = [made(10, 0.0, 0.99), made(12, at_once - 0.1, 0.2), made(14, at_once + 0.1, 0.05)]
    view = first_wrong_table(failures, 10, task)
    assert view.table["first wrong step (median)"].to_list() == ["none went wrong", "0", "0"]   # not "None"
    assert f"Past 10 characters, {at_once:.0%} of the strings go wrong" in view.caption
    assert "a mean probability of 0.050–0.200." in view.caption
    assert ("step 0 must copy source position n−1" in view.caption) == reading
    assert ("(n ≤ 10)" in view.caption) == reading


def test_a_table_within_training_has_no_caption():
    view = first_wrong_table([made(8, 0.0, 1.0), made(10, 0.0, 1.0)], 10, "reverse")
    assert view.caption is None and len(view.table) == 2
    assert first_wrong_table([], 10, "reverse").table.empty


@pytest.mark.parametrize("text", ["hello", "a", "the lazy dog"])
def test_the_default_long_text_repeats_the_text_past_the_trained_length(text):
    long = default_long_text(text, TRAINED, 2 * TRAINED)
    assert TRAINED < len(long) <= TRAINED + 8
    assert long.startswith(f"{text} {text}") and long == long.strip()
    assert default_long_text(text, 10, 12) == " ".join([text] * 20)[:12].strip()    # cut at the lab's limit


def test_a_long_text_is_cleaned_and_refused_past_the_limit(reverser):
    assert long_text(reverser.vocab, "  Hello   World ", 20) == "hello world"
    for bad in ("", "héllo", "a" * 21):
        with pytest.raises(InputError):
            long_text(reverser.vocab, bad, 20)


def teacher_run(text: str, task: str = "reverse"):
    ckpt = checkpoint(task)
    limit = None if len(text) <= TRAINED else lab.lab_limit(ckpt.model)
    return make_run(ckpt.model, ckpt.vocab, text, Decoding(teacher=True), max_len=limit, task=task)


def test_the_maps_are_each_text_last_cross_layer_averaged_over_heads(reverser):
    long = "abcdefghijklmnopqrstuvwxyz" * 2
    view = two_texts(run_of("hello", how=Decoding(teacher=True)), teacher_run(long))
    assert [m.label for m in view.maps] == ["5 characters", "52 characters"]
    src = reverser.vocab.encode(long, 96)
    tgt = [SOS, *reverser.vocab.encode_output(long[::-1], 96)]
    with torch.inference_mode():
        trace = reverser.model(torch.tensor([src]), torch.tensor([tgt]), trace=True).trace
    assert np.allclose(view.maps[1].weights, trace["cross", 1][0].mean(0).numpy(), atol=1e-6)
    assert view.maps[1].rows == ["⟨s⟩", *long[::-1]] and view.maps[1].cols == list(long)
    assert view.maps[0].weights.shape == (6, 5)
    assert view.caption.endswith(f"where step 0 puts its weight, against source position {len(long) - 1} that it "
                                 "should copy.")
    assert view.caption.startswith(f"Both maps feed the decoder the correct output, {words('reverse').output} (each")


def test_for_sort_step_0_may_copy_from_every_position_holding_the_smallest_character():
    long = "bb a " * 12 + "c"
    view = two_texts(teacher_run("hello", "sort"), teacher_run(long, "sort"))
    spaces = [i for i, c in enumerate(long) if c == min(long)]
    assert (f"against the {len(spaces)} source positions holding '␣', the character it should write first: "
            f"{', '.join(map(str, spaces))}. Any of them counts") in view.caption
