"""Lab: teacher forcing against free running. Both modes step by step, where they part, and where the later steps
looked on the source with and without the learner's forced token."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import pandas as pd

from transformer.vocab import Vocab

from ..lab import first_divergence
from ..labels import token_label, visible
from ..run import Run

READ_TAIL = 12   # the latest tokens a long prefix shows: a table cell cuts text at its end, where the step's news is


def writable_letters(vocab: Vocab) -> list[str]:
    """The characters the model can write: the tokens a learner may force."""
    return [t for t in vocab.tokens if len(t) == 1]


def forced_tokens(vocab: Vocab, step: int | None, token: str) -> tuple[tuple[int, int], ...]:
    """The (step, token id) the free-running decoding feeds onward instead of its choice; none without a step."""
    return () if step is None else ((step, vocab.tokens.index(token)),)


@dataclass(frozen=True)
class CrossMap:
    """One run's cross-attention in the last decoder layer, averaged over heads. T decoder rows, S source columns."""

    name: str
    key: str                        # the chart's key
    weights: np.ndarray             # (T, S)
    rows: list[str]                 # (T,) what each position reads
    cols: list[str]                 # (S,)
    title: str
    height: int


@dataclass(frozen=True)
class ForcingLab:
    """N rows: the steps of the longer of the two decodings."""

    table: pd.DataFrame             # (N rows) what each mode reads and picks, and what free running feeds onward
    diverged: int | None            # the first step free running reads a prefix it was never trained on
    verdict: str                    # the two modes never differ, or where they part (markdown)
    maps: list[CrossMap]            # the last decoder layer's: without forcing, then (when a token is forced) with it


def forcing_lab(vocab: Vocab, teacher: Run, free: Run, unforced: Run, forced: tuple[tuple[int, int], ...],
                escape: Callable[[str], str]) -> ForcingLab:
    """`teacher` reads the correct output, `free` its own with the `forced` tokens fed in, `unforced` its own
    untouched. `escape` makes the model's output safe in markdown (explorer.text.escape_markdown)."""
    label = lambda ids: " ".join(token_label(vocab, i) for i in ids) or "—"  # noqa: E731
    latest = lambda ids: ("… " if len(ids) > READ_TAIL else "") + label(ids[-READ_TAIL:])  # noqa: E731
    reads = lambda run, t: latest(run.decoder_in_ids[1: t + 1]) if t < len(run.fed_ids) else ""  # noqa: E731
    picks = lambda run, t: run.decoder_out[t] if t < len(run.chosen_ids) else ""  # noqa: E731
    n = max(len(teacher.fed_ids), len(free.fed_ids))
    table = pd.DataFrame({
        "step": range(n),
        "teacher forcing reads": [reads(teacher, t) for t in range(n)],
        "and picks": [picks(teacher, t) for t in range(n)],
        "free running reads": [reads(free, t) for t in range(n)],
        "and picks ": [picks(free, t) for t in range(n)],
        "fed onward": [token_label(vocab, free.fed_ids[t]) + (" (forced)" if dict(forced).get(t) is not None else "")
                       if t < len(free.fed_ids) else "" for t in range(n)],
    })
    diverged = first_divergence(teacher, free)
    written = escape(visible(free.output))
    verdict = (f"Free running read the correct prefix at every step and wrote **{written}**: the two modes never "
               "differ for this model on this text." if diverged is None else
               f"The two modes part at **step {diverged}**: from there on the decoder reads a prefix it was never "
               f"trained on (rows in red). Free running wrote **{written}** instead of "
               f"**{escape(visible(free.target))}**.")

    layer = unforced.trace.n_layers("cross") - 1
    shown = [(unforced, "no forcing", "cross_unforced")] + ([(free, "with your forced token", "cross_forced")]
                                                             if forced else [])
    maps = [CrossMap(name, key, run.trace["cross", layer].mean(0), run.decoder_in, run.source,   # (T, S)
                     f"{name}: cross-attention, layer {layer}, head average (a summary)",
                     min(520, 34 * len(run.decoder_in) + 120)) for run, name, key in shown]
    return ForcingLab(table=table, diverged=diverged, verdict=verdict, maps=maps)
