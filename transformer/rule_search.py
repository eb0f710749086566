"""A task from examples: every rule of up to three operations that turns each given text into its answer, and,
while more than one behaves differently, a text on which they disagree, to ask the learner about.

The search is exhaustive over the operations with their parameters in a bounded range (rotate by −6…6, shift by
every step of the alphabet), so its work is bounded whatever the examples: at most about 150,000 short string
operations, most rules failing on the first example.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Callable

from .task_rules import (LATIN, MAX_LENGTH, MAX_OPERATIONS, OPERATIONS, SPACE, Rule, Step, TaskSpecError,
                         check_alphabet)

MIN_EXAMPLES, MAX_EXAMPLES = 3, 20
ROTATE_REACH = 6        # rotate by −6…6 in the search (a rule typed by hand may rotate by up to 47)
PROBES = 96             # texts on which two fitting rules are compared
ARROW = re.compile(r"\s*(?:->|→|=>|=|:)\s*")


class ExampleError(TaskSpecError):
    """Examples the search cannot read; the message names the line."""


def parse_examples(text: str, alphabet: str = LATIN) -> list[tuple[str, str]]:
    """Lines of `abc -> cba` (or →, =>) into pairs, checked against the alphabet; blank lines are skipped."""
    letters = set(check_alphabet(alphabet)) | {SPACE}
    pairs = []
    for n, line in enumerate(str(text).splitlines(), 1):
        if not line.strip():
            continue
        parts = ARROW.split(line.strip(), maxsplit=1)
        if len(parts) != 2 or not parts[0].strip():
            raise ExampleError(f"Line {n} ({line.strip()[:40]!r}) is not a pair: write the text, an arrow and its "
                               f"answer, like abc -> cba.")
        source, answer = parts[0].strip(), parts[1].strip()
        for side, word in (("text", source), ("answer", answer)):
            unknown = sorted(set(word) - letters)
            if unknown:
                raise ExampleError(f"Line {n}: the {side} {word[:40]!r} holds {', '.join(map(repr, unknown[:5]))}, "
                                   f"which the alphabet does not.")
        if len(source) > MAX_LENGTH:
            raise ExampleError(f"Line {n}: the text has {len(source)} characters; at most {MAX_LENGTH}.")
        pairs.append((source, answer))
    if not MIN_EXAMPLES <= len(pairs) <= MAX_EXAMPLES:
        raise ExampleError(f"Give from {MIN_EXAMPLES} to {MAX_EXAMPLES} pairs, one a line; there are {len(pairs)}.")
    return pairs


def search_steps(alphabet: str) -> list[Step]:
    """Every operation the search tries, with each parameter in its range."""
    steps = []
    for op in OPERATIONS.values():
        if op.name == "rotate":
            steps += [Step(op, k) for k in range(-ROTATE_REACH, ROTATE_REACH + 1) if k]
        elif op.name == "shift":
            steps += [Step(op, k) for k in range(1, len(alphabet))]   # shift by −k is shift by len − k
        else:
            steps.append(Step(op))
    return steps


def _apply(step: Step, text: str, alphabet: str) -> str:
    return Rule((step,)).apply(text, alphabet)


def rules_fitting(pairs: list[tuple[str, str]], alphabet: str = LATIN,
                  progress: Callable[[float], None] | None = None) -> list[Rule]:
    """Every rule of 1 to MAX_OPERATIONS operations (copy only alone) that maps each text to its answer.
    progress(share) is told after each first operation's rules are tried."""
    alphabet = check_alphabet(alphabet)
    steps = [s for s in search_steps(alphabet) if s.operation.name != "copy"]
    (first, want), rest = pairs[0], pairs[1:]
    found = [Rule((Step(OPERATIONS["copy"]),))] if all(a == b for a, b in pairs) else []

    def extend(chain: tuple[Step, ...], text: str) -> None:
        for step in steps:
            out = _apply(step, text, alphabet)
            if len(out) > 8 * MAX_LENGTH:
                continue
            longer = chain + (step,)
            if out == want:
                rule = Rule(longer)
                if all(rule.apply(a, alphabet) == b for a, b in rest):
                    found.append(rule)
            if len(longer) < MAX_OPERATIONS:
                extend(longer, out)

    for done, step in enumerate(steps):
        out = _apply(step, first, alphabet)
        if out == want and all(Rule((step,)).apply(a, alphabet) == b for a, b in rest):
            found.append(Rule((step,)))
        extend((step,), out)
        if progress is not None:
            progress((done + 1) / len(steps))
    return found


def probe_texts(alphabet: str, longest: int, seed: int = 0) -> list[str]:
    """Texts on which fitting rules are compared: every length up to a little past the examples', some with
    repeated letters (where sort and dedupe part from the rest)."""
    rng = random.Random(seed)
    letters = check_alphabet(alphabet)
    top = min(max(longest + 2, 6), MAX_LENGTH)
    texts = []
    for i in range(PROBES):
        n = 1 + i % top
        pool = letters if i % 2 else "".join(rng.sample(letters, min(3, len(letters))))
        texts.append("".join(rng.choice(pool) for _ in range(n)))
    return list(dict.fromkeys(texts))


@dataclass(frozen=True)
class Behaviour:
    """Fitting rules that write the same answer to every probe text: one behaviour, named by its shortest rule."""
    rules: tuple[Rule, ...]

    @property
    def rule(self) -> Rule:
        return self.rules[0]


@dataclass(frozen=True)
class SearchResult:
    behaviours: tuple[Behaviour, ...]   # one per distinct behaviour, the simplest first
    question: str | None                # a text on which they disagree (None: one behaviour, or none)
    answers: tuple[tuple[str, Behaviour], ...] = ()   # the answer each behaviour gives to `question`

    @property
    def found(self) -> Rule | None:
        return self.behaviours[0].rule if len(self.behaviours) == 1 else None


def _simplest(rule: Rule) -> tuple[int, int, str]:
    return len(rule.steps), len(rule.spec), rule.spec


def search(pairs: list[tuple[str, str]], alphabet: str = LATIN,
           progress: Callable[[float], None] | None = None) -> SearchResult:
    """The fitting rules grouped by behaviour, and when there are several, the probe text that splits them
    into the most groups (the shortest such), with each group's answer to it."""
    alphabet = check_alphabet(alphabet)
    fitting = sorted(rules_fitting(pairs, alphabet, progress), key=_simplest)
    probes = probe_texts(alphabet, max(len(a) for a, _ in pairs))
    groups: dict[tuple[str, ...], list[Rule]] = {}
    for rule in fitting:
        groups.setdefault(tuple(rule.apply(p, alphabet) for p in probes), []).append(rule)
    behaviours = tuple(Behaviour(tuple(rules)) for rules in groups.values())
    if len(behaviours) < 2:
        return SearchResult(behaviours, None)
    outputs = list(groups)
    best = max(range(len(probes)), key=lambda i: (len({o[i] for o in outputs}), -len(probes[i])))
    answers = tuple((o[best], b) for o, b in zip(outputs, behaviours))
    return SearchResult(behaviours, probes[best], answers)

