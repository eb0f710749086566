"""Rules that answer a quiz item from its text alone (the prompt and the options, never the model): the quiz
must give none of them an edge over chance (tests/unit/test_quiz.py, benchmarks/quiz_gain.py)."""

from __future__ import annotations

import math
import re
from collections import Counter


def _numbers(text: str) -> list[float]:
    return [float(n) for n in re.findall(r"\d+(?:\.\d+)?", text)]


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+|⟨/?s⟩", text.lower()))


def _by(key):
    """A rule that picks the option with the largest key (the first such in order)."""
    return lambda prompt, options: max(range(len(options)), key=lambda i: (key(prompt, options[i]), -i))


TEXT_ONLY_RULES = {
    "first": lambda p, o: 0,
    "second": lambda p, o: 1,
    "last": lambda p, o: len(o) - 1,
    "longest": _by(lambda p, x: len(x)),
    "shortest": _by(lambda p, x: -len(x)),
    "most words shared with the prompt": _by(lambda p, x: len(_words(x) & _words(p))),
    "fewest words shared with the prompt": _by(lambda p, x: -len(_words(x) & _words(p))),
    "most letters shared with the prompt": _by(lambda p, x: sum((Counter(x) & Counter(p)).values())),
    "largest number": _by(lambda p, x: max(_numbers(x), default=-math.inf)),
    "smallest number": _by(lambda p, x: -min(_numbers(x), default=math.inf)),
    "a number the prompt names": _by(lambda p, x: len(set(_numbers(x)) & set(_numbers(p)))),
    "appears in the prompt": _by(lambda p, x: x in p),
    "the odd one out in length": _by(lambda p, x: 0),   # replaced per item below
}


def odd_one_out(options: tuple[str, ...]) -> int:
    lengths = Counter(len(o) for o in options)
    return min(range(len(options)), key=lambda i: (lengths[len(options[i])], i))
