"""Lab: no positions. What the model writes and where it looks once the position codes are zeroed or shuffled.

Three records, in the order the page draws them, because two of the lab's whole-sample exact matches stand
between them: for an own model each is computed only when the learner asks (explorer.on_request stops the page
until then), and what the page has drawn so far must stay on screen meanwhile.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from transformer.config import ModelConfig

from ..labels import visible, weight_text
from ..repeats import copies_gap
from ..run import Run
from ..tasks import words

MODES = {"zero": "Removed (zeroed)", "shuffle": "Shuffled"}
SIDES = {"source": "Source (encoder)", "target": "Target (decoder)"}


def target_codes_caption(target_only: float, sample_size: int) -> str:
    """The caption above the controls: `target_only` is the exact match on `sample_size` held-out words with the
    decoder's codes zeroed, which says whether this model learnt to rely on them."""
    return (f"With the codes zeroed in the decoder alone, this model gets {target_only:.1%} of {sample_size} "
            "held-out words exactly right: "
            + ("it cannot do without its target codes; it learnt to rely on them too." if target_only < 0.5 else
               "it copes without its target codes."))


@dataclass(frozen=True)
class TakenAway:
    """What the model writes with its positions and without them (the right one's metric marks it right or wrong)."""

    before_output: str     # what the model writes with its positions, visible
    after_label: str       # the label over what it writes without them


def taken_away(before: Run, mode: str, sides: tuple[str, ...]) -> TakenAway:
    """`before` is the model's own decoding; `mode` and `sides` the chosen set-up (sides in SIDES order)."""
    return TakenAway(before_output=visible(before.output),
                     after_label=f"Positions {MODES[mode].lower()} in the {' and '.join(sides)}")


@dataclass(frozen=True)
class NoPositions:
    """Exact match on the lab's sample with and without positions, and one layer's cross-attention on the
    learner's text (head average) with the correct output fed in. T decoder positions, S source characters."""

    kept: str                  # exact match with every position code, as shown
    lost: str                  # the same with the codes taken away
    change: str                # lost minus kept, signed
    maps: list[np.ndarray]     # (2,) of (T, S): with positions, then without
    map_names: list[str]       # (2,)
    rows: list[str]            # (T,) what each decoder position reads
    cols: list[str]            # (S,) the source characters
    title: str
    caption: str               # the task's pattern, and what the set-up leaves of the positions


def no_positions(config: ModelConfig, taught: Run, taught_after: Run, mode: str, sides: tuple[str, ...],
                 kept: float, lost: float, layer: int) -> NoPositions:
    """`taught` and `taught_after` read the correct output (teacher forcing) with and without positions, so every
    row of both maps reads the same character; `kept` and `lost` are exact matches on the lab's held-out sample."""
    with_codes = taught.trace["cross", layer].mean(0)                    # (T, S)
    without = taught_after.trace["cross", layer].mean(0)                 # (T, S)
    task = words(taught.task)
    gap = copies_gap(without, taught.source)                             # the right-hand map
    return NoPositions(
        kept=f"{kept:.1%}", lost=f"{lost:.1%}", change=f"{lost - kept:+.1%}",
        maps=[with_codes, without], map_names=["with positions", f"positions {MODES[mode].lower()}"],
        rows=taught.decoder_in, cols=taught.source,
        title=f"Cross-attention, layer {layer}, average of the {config.n_heads} heads (a summary)",
        caption=f"The task's pattern is {task.pattern}: {task.rule}. "
                + positions_text(mode, sides, gap, config.max_positions, config.max_len + 1))


def positions_text(mode: str, sides: tuple[str, ...], gap: float | None, table_rows: int, trained: int) -> str:
    """What this set-up leaves of the positions, held to the right-hand map: how differently its queries weigh
    the copies of one letter (gap, None when no letter repeats). table_rows: the code table's length, which the
    target's shuffle draws from (transformer.intervention); trained: the decoder positions training reached."""
    if mode == "zero" and "source" in sides:
        said = ("With the source codes zeroed, the copies of a letter enter the encoder as the same vector, and "
                "without positions nothing in the encoder can make them differ, so a query can only follow *which* "
                "letter, not *where*.")
    elif mode == "zero":
        said = ("Only the decoder lost its codes: the source keeps its own, so the copies of a letter still carry "
                "different codes. One reading of what is lost: each step no longer knows which step it is.")
    else:
        said = (f"Shuffled, every position in the {' and '.join(sides)} still has a code of its own, only another "
                "position's: " + ("the copies of a letter still carry different codes, so the model reads each "
                                  "source character as if it stood somewhere else." if "source" in sides else
                                  "the source keeps its own codes, so the copies of a letter still carry different "
                                  "codes.")
                 + (f" Each decoder step gets the code of a position drawn from all {table_rows} rows of the code "
                    f"table, {'most of them' if table_rows - trained > table_rows / 2 else 'some of them'} past the "
                    f"{trained} positions the decoder met in training: codes it never learned to read."
                    if "target" in sides else ""))
    if gap is None:
        return said + " Your text repeats no character, so this map cannot show it: try one that does, like hello."
    if gap == 0:
        alike = "exactly the same weight from every query."
    elif gap < 1e-6:   # float rounding in the encoder's sums
        alike = f"the same weight from every query (they differ by at most {weight_text(gap)})."
    else:
        alike = f"weights that differ by up to {weight_text(gap)} from one query."
    return said + " On the right-hand map, the copies of a repeated character get " + alike
