"""How the pages name each task and the attention pattern it needs, so every sentence follows the chosen model.

The patterns themselves are computed from the text in transformer.data (source_positions, expected_keys);
this module only holds the words.
"""

from __future__ import annotations

from dataclasses import dataclass

from transformer.data import TASKS, source_positions


@dataclass(frozen=True)
class TaskWords:
    name: str          # the task's id: reverse, copy, sort
    label: str         # the selector's label
    verb: str          # "reverse the text"
    output: str        # "the reversal"
    pattern: str       # the cross-attention pattern the task needs, as a noun phrase
    reads: str         # where output step i copies from
    short_rule: str    # the same, for a chart's caption

    @property
    def rule(self) -> str:
        return f"output step i copies {self.reads}"


WORDS = {
    "reverse": TaskWords("reverse", "Reverse", "reverse the text", "the reversal", "the anti-diagonal",
                         "source position n−1−i", "n−1−i"),
    "copy": TaskWords("copy", "Copy", "copy the text", "the copy", "the diagonal",
                      "source position i", "i"),
    "sort": TaskWords("sort", "Sort", "sort the characters (spaces first, then a to z)", "the sorted text",
                      "the sorted order",
                      "the source position of the i-th smallest character (or of an equal one), found by content",
                      "the i-th smallest"),
}
assert set(WORDS) == set(TASKS)


def words(task: str) -> TaskWords:
    return WORDS[task]


def expected_source(text: str, task: str, step: int) -> int | None:
    """The source position output step `step` copies from under the task (None for the end step)."""
    positions = source_positions(text, task)
    return positions[step] if 0 <= step < len(positions) else None
