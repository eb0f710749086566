"""Lab: build a head. A pattern stated by hand in place of cross-attention weights: the two maps, what the model
then writes, and whether the pattern is enough on the lab's held-out words and past the trained length.

Three records, in the order the page draws them: the maps come before the learner's prediction, what the model
writes comes after it, and the findings after the lab's whole-sample tables, which for an own model are
computed only when the learner asks (explorer.on_request stops the page until then) while what is drawn above
them stays on screen.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from transformer.config import ModelConfig
from transformer.model import Transformer
from transformer.vocab import Vocab

from ..patching import (PatchScore, Placement, past_rescue, past_span, pattern_grid, pattern_label,
                        patterns_for, verdict)
from ..run import Run
from ..tasks import words

OUTCOMES = ["stay near its normal value (keep 90 % of it or more)", "fall part of the way (keep half or more)",
            "fall by more than half"]           # the prediction's options, in verdict order: kept, part, lost
SAID = {"kept": OUTCOMES[0], "part": OUTCOMES[1], "lost": OUTCOMES[2]}


def pattern_labels(task: str) -> dict[str, str]:
    """The patterns offered under a task, the task's own first, each with the name the page gives it."""
    return {name: pattern_label(name, task) for name in patterns_for(task)}


def places(config: ModelConfig) -> dict[str, Placement]:
    """Where a pattern may go, by the selector's label: every cross head of the last layer, or one head alone."""
    last = config.n_decoder_layers - 1
    return {f"every head of the last layer (L{last})": Placement(last),
            **{f"cross L{layer} H{head} alone": Placement(layer, head)
               for layer in range(config.n_decoder_layers) for head in range(config.n_heads)}}


@dataclass(frozen=True)
class PatchMaps:
    """The model's own cross-attention and the pattern, on the learner's text with the correct output fed in.
    Tq decoder positions, S source characters."""

    own: np.ndarray        # (Tq, S) the replaced head's weights, or the layer's head average
    yours: np.ndarray      # (Tq, S) the pattern's weights
    own_title: str
    rows: list[str]        # (Tq,) what each decoder position reads
    cols: list[str]        # (S,)
    caption: str


def patch_maps(config: ModelConfig, vocab: Vocab, taught: Run, pattern: str, placement: Placement) -> PatchMaps:
    """`taught` is the learner's text under teacher forcing; the pattern goes where `placement` says."""
    layer, head = placement.layer, placement.head
    own = taught.trace["cross", layer]                                                   # (H, Tq, S)
    yours = pattern_grid(pattern, taught.task, vocab, taught.text, own.shape[1], config.max_len)   # (Tq, S)
    return PatchMaps(
        own=own.mean(0) if head is None else own[head], yours=yours,
        own_title=f"The model's own: {'average of layer ' + str(layer) if head is None else placement.describe()}",
        rows=taught.decoder_in, cols=taught.source,
        caption=f"Both maps on your text, the decoder reading {words(taught.task).output} (teacher forcing). Your "
                "pattern is built from the text's true length n (and, for the sorted order, its characters): the "
                "model's own heads must work those out for themselves.")


def answer_caption(guess_text: str, patched: Run) -> str:
    """What the learner said about their text beside what the model wrote with the pattern in place."""
    writes = "writes" if patched.output == patched.target else "does not write"
    return (f"You answered **{guess_text}**; with your pattern the model **{writes}** "
            f"{words(patched.task).output} of your text.")


@dataclass(frozen=True)
class PatchFindings:
    """Exact match with the model's own weights and with the pattern, in and past the trained length, and what
    the numbers say."""

    table: pd.DataFrame          # words, own weights, your pattern: one row, two with the longer words
    finding: str                 # whether the pattern is enough, in words that follow the numbers
    prediction: str | None       # the learner's prediction beside the measured outcome (None: too few to judge)
    past: str | None             # what the pattern does past the trained length (None: the model reads none)


def patch_findings(model: Transformer, task: str, pattern: str, placement: Placement, base: PatchScore,
                   mine: PatchScore, guess: str, sample_size: int, noise_points: float) -> PatchFindings:
    """`base` scores the model's own weights and `mine` the pattern in place, on `sample_size` held-out words
    and as many past the trained length; `guess` is the learner's choice among OUTCOMES; `noise_points` one
    standard error of an exact-match figure at 50 %, in points."""
    rows = {f"{sample_size} held-out words (1–{model.config.max_len} characters)": (base.within, mine.within)}
    if mine.past is not None:
        rows[f"{mine.n_past} words past the trained length ({past_span(model)} characters)"] = (base.past, mine.past)
    table = pd.DataFrame({"words": list(rows), "own weights": [v[0] for v in rows.values()],
                          "your pattern": [v[1] for v in rows.values()]})
    outcome = verdict(mine.within, base.within)
    said = SAID.get(outcome)
    return PatchFindings(
        table=table, finding=_finding(outcome, pattern_label(pattern, task), placement, base, mine),
        prediction=None if said is None else (
            f"You predicted that exact match would {guess}; measured, it did **{said}**. Each figure carries up "
            f"to ±{noise_points:.1f} points of sampling noise (one standard error at 50 %)."),
        past=_past(base, mine, noise_points) if mine.past is not None and base.past is not None else None)


def _finding(outcome: str, label: str, placement: Placement, base: PatchScore, mine: PatchScore) -> str:
    where = placement.describe()
    heads = "those heads'" if placement.head is None else "that head's"   # what the pattern replaced
    if outcome == "kept":
        return (f"With {label} in place of {where}, the model keeps {mine.within:.1%} exact match "
                f"(its own weights: {base.within:.1%}). On these words the pattern is enough for the job of "
                f"{where}: the model needs nothing from {heads} queries and keys beyond the positions your "
                "pattern names.")
    if outcome == "part":
        return (f"With {label} in place of {where}, exact match falls to {mine.within:.1%} (its own weights: "
                f"{base.within:.1%}). The pattern carries part of the job, not all: {heads} own weights put "
                "something there that this pattern lacks.")
    if outcome == "lost":
        return (f"With {label} in place of {where}, exact match falls to {mine.within:.1%} (its own weights: "
                f"{base.within:.1%}). This pattern is not enough: {heads} own weights do something it does not.")
    return (f"With its own weights this model gets {base.within:.1%} of the held-out words right, too few to say "
            f"whether a pattern keeps its job; with {label} in place of {where} it gets {mine.within:.1%}.")


def _past(base: PatchScore, mine: PatchScore, noise_points: float) -> str:
    """The pattern past the trained length, read as analysis.patching.past_rescue reads it."""
    rescue = past_rescue(base, mine, noise_points)
    if rescue == "worse":
        return (f"Past the trained length the pattern does worse than the model's own weights ({mine.past:.1%} "
                f"against {base.past:.1%}).")
    if rescue == "noise" and base.past < base.within - noise_points / 100:
        return (f"Past the trained length the pattern changes little ({mine.past:.1%} against {base.past:.1%} with "
                "the model's own weights): being handed the true length n here does not rescue the longer words, "
                "so one reading is that what fails there lies elsewhere too.")
    if rescue == "noise":
        return (f"Past the trained length the pattern changes little ({mine.past:.1%} against {base.past:.1%} with "
                "the model's own weights).")
    return (f"Past the trained length the pattern does better than the model's own weights ({mine.past:.1%} "
            f"against {base.past:.1%}). The pattern is handed the true length n, so one reading is that the "
            "model's own sense of n is part of what breaks on longer words"
            + ("." if rescue == "nearly all" else
               f"; the {1 - mine.past:.0%} still wrong with n handed over fail for some other reason too."))
