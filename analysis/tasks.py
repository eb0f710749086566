"""How the pages name each task and the attention pattern it needs, so every sentence follows the chosen model.

The patterns themselves are computed from the text in transformer.data (source_positions, expected_keys);
this module only holds the words: the three bundled tasks' own, and for any other rule, words made from its
operations (transformer.task_rules), so a task no one here has trained before is still named as what it does.
"""

from __future__ import annotations

from dataclasses import dataclass

from transformer.data import TASKS, source_positions
from transformer.task_rules import LATIN, Rule, Step, parse_rule


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


def _verb(step: Step) -> str:
    k = step.k
    places = f"{abs(k)} place{'s' if abs(k) != 1 else ''}"
    return {
        "reverse": "reverse the text", "copy": "copy the text",
        "sort": "sort the characters (spaces first, then in the alphabet's order)",
        "rotate": f"rotate the text {'left' if k > 0 else 'right'} by {places}",
        "swap-pairs": "swap each pair of neighbouring characters",
        "shift": f"move each letter {places} {'on' if k > 0 else 'back'} in the alphabet",
        "double": "write each character twice", "dedupe": "drop each character already seen",
        "mirror": "write the text, then its reversal", "interleave": "alternate the first half and the second",
    }[step.operation.name]


def _reads(step: Step) -> str:
    return step.operation.reads.replace("{k}", f"+{step.k}" if step.k > 0 else f"−{-step.k}")


def _pattern(rule: Rule) -> str:
    """The pattern as a noun phrase: named for the shapes the field knows, else for the rule."""
    probes = ("abcdefgh", "abacabad")    # distinct letters, and repeats (where sort and dedupe part)
    maps = [rule.source_positions(p, LATIN) for p in probes]
    if all(m == list(range(len(p))) for m, p in zip(maps, probes)):
        return "the diagonal"
    if all(m == list(range(len(p) - 1, -1, -1)) for m, p in zip(maps, probes)):
        return "the anti-diagonal"
    return f"the pattern of {rule.spec}"


def rule_words(rule: Rule) -> TaskWords:
    """Words for any rule, from its operations."""
    verbs = [_verb(s) for s in rule.steps]
    verb = verbs[0] if len(verbs) == 1 else ", then ".join(verbs)
    if len(rule.steps) == 1:
        reads = _reads(rule.steps[0])
    else:
        reads = f"the source position {rule.spec} takes it from (its operations' position maps, composed)"
    return TaskWords(rule.spec, rule.spec, verb, f"the output of {rule.spec}", _pattern(rule), reads,
                     f"{rule.spec}'s map")


def to_task(task: str) -> str:
    """'to reverse' for a bundled task, 'under rotate:2' for any other rule: how a sentence names what the step
    follows."""
    return f"to {task}" if task in WORDS else f"under {parse_rule(task).spec}"


def equal_counts(task: str) -> bool:
    """Whether a key holding an equal character counts as on the pattern (a rule decided by content: sort,
    dedupe)."""
    return parse_rule(task).by_content


def words(task: str) -> TaskWords:
    return WORDS[task] if task in WORDS else rule_words(parse_rule(task))


def expected_source(text: str, task: str, step: int, letters: str = LATIN) -> int | None:
    """The source position output step `step` copies from under the task (None for the end step)."""
    positions = source_positions(text, task, letters)
    return positions[step] if 0 <= step < len(positions) else None
