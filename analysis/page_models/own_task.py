"""A task of the learner's own, before it is trained: the rule checked and shown on a sample of its own texts, and
the search from examples put into sentences (the question to ask while several rules fit)."""

from __future__ import annotations

import random
from dataclasses import dataclass

from transformer.data import random_string, source_positions, target
from transformer.rule_search import SearchResult
from transformer.task_rules import TaskSpec

from ..tasks import words

SAMPLES = 3   # texts of the task shown with their answers


@dataclass(frozen=True)
class TaskPreview:
    spec: TaskSpec
    sentence: str                           # what the rule does and the pattern it asks of cross-attention
    examples: tuple[tuple[str, str], ...]   # (text, answer) drawn from the task's own alphabet and lengths
    positions: tuple[tuple[int, ...], ...]  # for each example, the source position of each answer character


def sample_texts(spec: TaskSpec, n: int = SAMPLES, seed: int = 0) -> list[str]:
    """Texts of the task's alphabet at its lengths, the longest first: what the preview shows."""
    rng = random.Random(seed)
    lengths = sorted({spec.max_len, (spec.min_len + spec.max_len) // 2, spec.min_len}, reverse=True)
    return [random_string(rng, lengths[i % len(lengths)], letters=spec.alphabet) for i in range(n)]


def task_preview(spec: TaskSpec) -> TaskPreview:
    w = words(spec.spec)
    texts = sample_texts(spec)
    examples = tuple((t, target(t, spec.spec, spec.alphabet)) for t in texts)
    positions = tuple(tuple(source_positions(t, spec.spec, spec.alphabet)) for t in texts)
    sentence = (f"**{spec.spec}**: {w.verb}. Its texts are drawn from {len(spec.alphabet)} letters "
                f"({spec.alphabet}) and single spaces, {spec.min_len} to {spec.max_len} characters long; its "
                f"answers are up to {spec.max_output}. The pattern it asks of cross-attention: {w.rule}.")
    return TaskPreview(spec, sentence, examples, positions)


@dataclass(frozen=True)
class SearchView:
    found: str | None          # the one rule left, if there is one
    sentence: str
    question: str | None       # the text to ask the learner about
    candidates: tuple[str, ...]   # each fitting behaviour's simplest rule, at most SHOWN of them
    answers: tuple[tuple[str, str], ...]   # (answer to the question, the rules that give it)


SHOWN = 12


def search_view(result: SearchResult, pairs: int) -> SearchView:
    """The search's outcome in words: none fits, one does, or several do and this text tells them apart."""
    count = len(result.behaviours)
    rules = tuple(b.rule.spec for b in result.behaviours[:SHOWN])
    if count == 0:
        return SearchView(None, f"No rule of up to three operations turns all {pairs} texts into their answers. "
                                "Check the pairs, or define the task by its rule.", None, (), ())
    if result.found is not None:
        spec = result.found.spec
        same = len(result.behaviours[0].rules) - 1
        also = (f" ({same} longer rule{'s' if same != 1 else ''} of the same behaviour fit too, such as "
                f"{result.behaviours[0].rules[1].spec})") if same else ""
        return SearchView(spec, f"One rule fits all {pairs} pairs: **{spec}**{also}.", None, rules, ())
    by_answer: dict[str, list[str]] = {}
    for answer, behaviour in result.answers:
        by_answer.setdefault(answer, []).append(behaviour.rule.spec)
    answers = tuple((a, ", ".join(r[:4]) + (f" and {len(r) - 4} more" if len(r) > 4 else ""))
                    for a, r in by_answer.items())
    return SearchView(None, f"{count} rules behave differently and fit all {pairs} pairs (the simplest: "
                            f"{', '.join(rules[:4])}). They part on **{result.question}**: what should it become?",
                      result.question, rules, answers)
