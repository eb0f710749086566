"""A task as a rule: string operations composed left to right with `|`, over an alphabet, on a range of lengths.

    reverse|shift:1      reverse the text, then move each character one place on in the alphabet

The rule is parsed, never evaluated as code. Every operation says where each output character comes from (a
position map), so a task no one has trained before still has the pattern its cross-attention is scored against.
Every error is a TaskSpecError whose message names the part that is wrong, written for a learner.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

LATIN = "abcdefghijklmnopqrstuvwxyz"
SPACE = " "                 # every alphabet's word separator: it is in every vocabulary, and no operation moves it
MAX_ALPHABET = 40
MAX_OPERATIONS = 3
MAX_SPEC_CHARACTERS = 120
MAX_LENGTH = 48             # the longest text a task may ask for
MAX_OUTPUT = 96             # the longest output: a decoder of 97 positions at most (the output and its end)


class TaskSpecError(ValueError):
    """A rule, alphabet or length range this app cannot train; the message names the part that is wrong."""


class UnknownOperationError(TaskSpecError):
    pass


class OperationParameterError(TaskSpecError):
    pass


class TooManyOperationsError(TaskSpecError):
    pass


class AlphabetError(TaskSpecError):
    pass


class LengthRangeError(TaskSpecError):
    pass


class OutputTooLongError(TaskSpecError):
    pass


# An operation maps (characters, alphabet) -> the source position of each output character; `shift` alone also
# changes the characters it moves (it keeps their positions).
PositionMap = Callable[[str, int], list[int]]


def _reverse(text: str, k: int) -> list[int]:
    return list(range(len(text) - 1, -1, -1))


def _copy(text: str, k: int) -> list[int]:
    return list(range(len(text)))


def _sort(text: str, k: int) -> list[int]:
    """By the characters' codes, equal ones in their order: the space (code 32) first, then each script's letters
    in the order Unicode lists them, which is the alphabet's own order for the scripts here."""
    return sorted(range(len(text)), key=lambda i: (text[i], i))


def _rotate(text: str, k: int) -> list[int]:
    n = len(text)
    return [(i + k) % n for i in range(n)] if n else []


def _swap_pairs(text: str, k: int) -> list[int]:
    n = len(text)
    return [i ^ 1 if (i ^ 1) < n else i for i in range(n)]


def _double(text: str, k: int) -> list[int]:
    return [i // 2 for i in range(2 * len(text))]


def _dedupe(text: str, k: int) -> list[int]:
    seen: set[str] = set()
    first = []
    for i, ch in enumerate(text):
        if ch not in seen:
            seen.add(ch)
            first.append(i)
    return first


def _mirror(text: str, k: int) -> list[int]:
    n = len(text)
    return list(range(n)) + list(range(n - 1, -1, -1))


def _interleave(text: str, k: int) -> list[int]:
    """The first half (the longer one when n is odd) and the second alternated: abcde -> adbec."""
    n = len(text)
    half = (n + 1) // 2
    out = []
    for i in range(half):
        out.append(i)
        if half + i < n:
            out.append(half + i)
    return out


@dataclass(frozen=True)
class Operation:
    name: str
    positions: PositionMap
    reads: str                          # where output step i reads from, for a page's sentence
    length_factor: int = 1              # output length <= factor * input length
    parameter: tuple[int, int] | None = None   # the allowed range of k, when the operation takes one
    by_content: bool = False            # decided by which characters are there (equal characters interchangeable)


OPERATIONS: dict[str, Operation] = {op.name: op for op in (
    Operation("reverse", _reverse, "source position n−1−i"),
    Operation("copy", _copy, "source position i"),
    Operation("sort", _sort, "the source position of the i-th smallest character (or of an equal one)",
              by_content=True),
    Operation("rotate", _rotate, "source position (i{k}) mod n", parameter=(-(MAX_LENGTH - 1), MAX_LENGTH - 1)),
    Operation("swap-pairs", _swap_pairs, "source position i+1 for even i, i−1 for odd i"),
    Operation("shift", _copy, "source position i (the letter moved along the alphabet)",
              parameter=(-(MAX_ALPHABET - 1), MAX_ALPHABET - 1)),
    Operation("double", _double, "source position ⌊i/2⌋", length_factor=2),
    Operation("dedupe", _dedupe, "the i-th source character not seen before it", by_content=True),
    Operation("mirror", _mirror, "source position i, then 2n−1−i after the middle", length_factor=2),
    Operation("interleave", _interleave, "the two halves in turn (0, ⌈n/2⌉, 1, ⌈n/2⌉+1 and so on)"),
)}


@dataclass(frozen=True)
class Step:
    """One operation of a rule with its parameter (0 when it takes none)."""
    operation: Operation
    k: int = 0

    @property
    def spec(self) -> str:
        return f"{self.operation.name}:{self.k}" if self.operation.parameter else self.operation.name


@dataclass(frozen=True)
class Rule:
    steps: tuple[Step, ...]

    @property
    def spec(self) -> str:
        """The canonical spelling: lowercase, no spaces, `|` between operations."""
        return "|".join(s.spec for s in self.steps)

    @property
    def length_factor(self) -> int:
        factor = 1
        for s in self.steps:
            factor *= s.operation.length_factor
        return factor

    @property
    def by_content(self) -> bool:
        return any(s.operation.by_content for s in self.steps)

    @property
    def length_varies(self) -> bool:
        """Whether two texts of one length can get answers of different lengths (dedupe drops repeats)."""
        return any(s.operation.name == "dedupe" for s in self.steps)

    def trace(self, text: str, alphabet: str = LATIN) -> tuple[str, list[int]]:
        """(the output, the source position each output character comes from). Positions compose: a later
        operation's map indexes the earlier one's output."""
        chars, origin = text, list(range(len(text)))
        for s in self.steps:
            where = s.operation.positions(chars, s.k)
            chars = "".join(chars[p] for p in where)
            origin = [origin[p] for p in where]
            if s.operation.name == "shift":
                chars = shifted(chars, s.k, alphabet)
        return chars, origin

    def apply(self, text: str, alphabet: str = LATIN) -> str:
        return self.trace(text, alphabet)[0]

    def source_positions(self, text: str, alphabet: str = LATIN) -> list[int]:
        """Where each output character comes from. The alphabet matters only when a sort or dedupe follows a
        shift (shift:1|sort orders the shifted letters)."""
        return self.trace(text, alphabet)[1]


def shifted(text: str, k: int, alphabet: str) -> str:
    """Each character k places on in the alphabet (its code order), wrapping; the space stays."""
    order = "".join(sorted(alphabet))
    out = []
    for ch in text:
        if ch == SPACE:
            out.append(ch)
            continue
        at = order.find(ch)
        if at < 0:
            raise AlphabetError(f"shift: {ch!r} is not in the task's alphabet {order!r}")
        out.append(order[(at + k) % len(order)])
    return "".join(out)


def _names() -> str:
    return ", ".join(f"{op.name}:k" if op.parameter else op.name for op in OPERATIONS.values())


@lru_cache(maxsize=512)
def parse_rule(spec: str) -> Rule:
    """`reverse|shift:1` -> a Rule, or a TaskSpecError naming the part that is wrong."""
    if not isinstance(spec, str) or not spec.strip():
        raise UnknownOperationError(f"The rule is empty: write operations such as reverse, or rotate:2|shift:1. "
                                    f"They are: {_names()}.")
    if len(spec) > MAX_SPEC_CHARACTERS:
        raise TooManyOperationsError(f"The rule has {len(spec)} characters; at most {MAX_SPEC_CHARACTERS} are read.")
    parts = spec.split("|")
    if len(parts) > MAX_OPERATIONS:
        raise TooManyOperationsError(f"The rule has {len(parts)} operations; a task may chain at most "
                                     f"{MAX_OPERATIONS}.")
    steps = []
    for n, raw in enumerate(parts, 1):
        part = raw.strip().lower()
        where = f"part {n} ({raw.strip()!r})" if len(parts) > 1 else repr(raw.strip())
        name, colon, value = part.partition(":")
        name = name.strip()
        op = OPERATIONS.get(name)
        if op is None:
            raise UnknownOperationError(f"{where} is not an operation. The operations are: {_names()}.")
        if op.parameter is None:
            if colon:
                raise OperationParameterError(f"{where}: {name} takes no number; write {name} alone.")
            steps.append(Step(op))
            continue
        low, high = op.parameter
        value = value.strip()
        if not colon or not value:
            raise OperationParameterError(f"{where}: {name} needs a number of places, for example {name}:2.")
        if not (value.lstrip("-+").isascii() and value.lstrip("-+").isdigit()) or len(value) > 4:
            raise OperationParameterError(f"{where}: {value!r} is not a whole number; write {name}:2.")
        k = int(value)
        if not low <= k <= high or k == 0:
            raise OperationParameterError(f"{where}: {name} takes a whole number from {low} to {high} other "
                                          f"than 0, not {k}.")
        steps.append(Step(op, k))
    return Rule(tuple(steps))


def check_alphabet(alphabet: str) -> str:
    """The alphabet as given (its characters in code order), or an AlphabetError naming what is wrong: up to
    MAX_ALPHABET distinct letters or digits of any script, each one character on its own (no combining marks)."""
    if not isinstance(alphabet, str):
        raise AlphabetError("The alphabet must be text.")
    chars = [c for c in alphabet if c != SPACE]
    if len(chars) < 2:
        raise AlphabetError("The alphabet needs at least 2 characters (the space is always there as well).")
    if len(chars) > MAX_ALPHABET:
        raise AlphabetError(f"The alphabet has {len(chars)} characters; at most {MAX_ALPHABET} are allowed.")
    repeated = sorted({c for c in chars if chars.count(c) > 1})
    if repeated:
        raise AlphabetError(f"The alphabet repeats {', '.join(map(repr, repeated))}; write each character once.")
    bad = [c for c in chars if unicodedata.category(c)[0] not in "LN"]
    if bad:
        shown = ", ".join(f"{c!r} (U+{ord(c):04X})" for c in bad[:5])
        raise AlphabetError(f"The alphabet may hold letters and digits only, each a character on its own; not {shown}.")
    return "".join(sorted(chars))


def _shown(text: str, most: int = 24) -> str:
    """A value as a message quotes it: at most `most` characters of it."""
    return repr(text if len(text) <= most else text[:most] + "…")


def parse_lengths(lengths: str) -> tuple[int, int]:
    """`1-12` (or `12`) -> (1, 12), within 1..MAX_LENGTH, or a LengthRangeError."""
    text = str(lengths).strip()
    if len(text) > 12:
        raise LengthRangeError(f"The lengths {_shown(text)} are not a range: write two whole numbers, like 1-12.")
    low, dash, high = text.partition("-")
    if not dash:
        low = high = text
    try:
        first, last = int(low.strip()), int(high.strip())
    except ValueError:
        raise LengthRangeError(f"The lengths {_shown(text)} are not a range: write two whole numbers, like 1-12.") from None
    if not 1 <= first <= last <= MAX_LENGTH:
        raise LengthRangeError(f"The lengths {_shown(text)} must run from 1 up to at most {MAX_LENGTH}, the shorter "
                               "first.")
    return first, last


@dataclass(frozen=True)
class TaskSpec:
    """What a model is trained to do: the rule, the alphabet its texts are drawn from, their lengths."""
    rule: Rule
    alphabet: str = LATIN
    min_len: int = 1
    max_len: int = 12

    @property
    def spec(self) -> str:
        return self.rule.spec

    @property
    def characters(self) -> str:
        """The vocabulary's characters: the space, then the alphabet."""
        return SPACE + self.alphabet

    @property
    def max_output(self) -> int:
        return self.rule.length_factor * self.max_len


def task_spec(spec: str, alphabet: str = LATIN, lengths: str = "1-12") -> TaskSpec:
    """Everything a task needs, checked together: a rule whose outputs fit the decoder at these lengths."""
    rule = parse_rule(spec)
    letters = check_alphabet(alphabet)
    first, last = parse_lengths(lengths)
    task = TaskSpec(rule, letters, first, last)
    if task.max_output > MAX_OUTPUT:
        raise OutputTooLongError(f"{rule.spec} makes outputs {rule.length_factor} times as long as the text: "
                                 f"{task.max_output} characters at length {last}, above the {MAX_OUTPUT} a model "
                                 f"here writes. Shorten the lengths to at most {MAX_OUTPUT // rule.length_factor}.")
    return task
