"""Lab: longer than trained. Exact match at every length up to twice the trained one, where the output first goes
wrong, and the learner's good text beside a long one.

One record per section: the page draws each before it asks for the next whole-sample table, which for an own
model is computed only when the learner asks (explorer.on_request stops the page until then).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from transformer.data import expected_keys
from transformer.vocab import Vocab

from ..lab import FirstFailure, encode_for_lab
from ..labels import visible
from ..run import Run
from ..tasks import words


@dataclass(frozen=True)
class LengthCurve:
    curve: dict[int, float]         # input length -> exact match of random strings that long
    caption: str                    # the worst within training, and the first and last lengths beyond it


def exact_match_curve(curve: dict[int, float], max_len: int) -> LengthCurve:
    """`curve` as analysis.lab.exact_match_by_length returns it, for a model trained on 1 to `max_len`
    characters; at least one length beyond that."""
    beyond = [n for n in curve if n > max_len]
    return LengthCurve(curve, f"Within training: {min(curve[n] for n in curve if n <= max_len):.0%} at worst. "
                              f"Beyond it: {curve[beyond[0]]:.0%} at length {beyond[0]}, {curve[beyond[-1]]:.0%} at "
                              f"length {beyond[-1]}.")


@dataclass(frozen=True)
class FailureTable:
    table: pd.DataFrame             # one row per length: exact, wrong at once, first wrong step, p(first character)
    caption: str | None             # the lengths past training, summed up (None when the table has none)


def first_wrong_cell(step: float | None) -> str:
    """A median step as the table writes it; none where no string of that length went wrong."""
    return "none went wrong" if step is None else f"{step:g}"


def first_wrong_table(failures: list[FirstFailure], max_len: int, task: str) -> FailureTable:
    """`failures` as analysis.lab.first_failures returns them, for a model trained on 1 to `max_len` characters."""
    table = pd.DataFrame({
        "length": [f.length for f in failures],
        "exactly right": [f.exact for f in failures],
        "wrong from the first character": [f.wrong_at_step_0 for f in failures],
        "first wrong step (median)": [first_wrong_cell(f.first_wrong) for f in failures],
        "p(correct first character)": [f.p_step_0 for f in failures],
    })
    past = [f for f in failures if f.length > max_len]
    if not past:
        return FailureTable(table, None)
    at_once = sum(f.wrong_at_step_0 for f in past) / len(past)
    caption = (f"10 random strings per length. Past {max_len} characters, {at_once:.0%} of the strings go wrong at "
               f"the very first output character, and the first step gives the right one a mean probability of "
               f"{min(f.p_step_0 for f in past):.3f}–{max(f.p_step_0 for f in past):.3f}.")
    if task == "reverse" and at_once >= 0.5:
        caption += (
            " The failure is not at the far end of the text: step 0 must copy source position n−1, a position the "
            f"first step never had to find in training (n ≤ {max_len}). The mirror depends on the length "
            "(*Positional encoding* shows the reflection changes with n), so one reading is that the model's sense "
            "of where the text ends breaks first, and every step after it inherits the wrong start. *Build a head* "
            "tests it, with a mirror handed the true length.")
    return FailureTable(table, caption)


def default_long_text(text: str, max_len: int, longest: int) -> str:
    """The learner's text repeated past the trained length: 8 characters beyond it, at most `longest`."""
    return " ".join([text] * (longest // max(len(text), 1) + 2))[:min(max_len + 8, longest)].strip()


def long_text(vocab: Vocab, typed: str, longest: int) -> str:
    """The typed text as the model reads it (lowercased, spaces tidied); raises InputError for a text the lab
    cannot read (empty, a character outside the vocabulary, longer than `longest`)."""
    cleaned = vocab.clean(typed).text
    encode_for_lab(vocab, cleaned, longest)
    return cleaned


@dataclass(frozen=True)
class TextMap:
    """One text's cross-attention in the last layer, averaged over heads, the correct output fed in. T decoder rows,
    S source columns."""

    label: str                      # the metric's label: the text's length
    weights: np.ndarray             # (T, S)
    rows: list[str]                 # (T,) what each position reads
    cols: list[str]                 # (S,)


@dataclass(frozen=True)
class TwoTexts:
    maps: list[TextMap]             # the learner's text, then the long one
    caption: str                    # where step 0 of the long text should put its weight


def two_texts(good: Run, long: Run) -> TwoTexts:
    """`good` and `long` read the learner's text and the long one with the task's correct output fed in (teacher
    forcing), so each row reads the right prefix."""
    maps = []
    for taught in (good, long):
        last = taught.trace.n_layers("cross") - 1
        maps.append(TextMap(f"{len(taught.text)} characters", taught.trace["cross", last].mean(0),   # (T, S)
                            taught.decoder_in, taught.source))
    allowed = sorted(expected_keys(long.text, long.task, long.letters)[0])   # the source positions step 0 may copy from
    if len(allowed) == 1:
        should = f"against source position {allowed[0]} that it should copy."
    else:
        letter = visible(long.text[allowed[0]])
        should = (f"against the {len(allowed)} source positions holding '{letter}', the character it should write "
                  f"first: {', '.join(map(str, allowed))}. Any of them counts, as in the task's pattern.")
    return TwoTexts(maps, f"Both maps feed the decoder the correct output, {words(long.task).output} (each row reads "
                          f"the right prefix). On the long text, look at the first row: where step 0 puts its "
                          f"weight, {should}")
