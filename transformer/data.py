"""The tasks (a rule of task_rules: reverse, copy, sort, rotate:2, ...), random strings, and a held-out split no training batch
touches.

Which side of the split a string belongs to is decided by a hash of the string itself, so the two
sides are disjoint by construction: the training sampler discards every held-out string it draws.
"""

from __future__ import annotations

import itertools
import random
import zlib
from typing import Iterator, NamedTuple

import torch

from .task_rules import LATIN, parse_rule
from .vocab import EOS, PAD, SOS, Vocab

LETTERS = LATIN
HELD_OUT_SALT = b"held-out:"
HELD_OUT_ONE_IN = 10  # one string in ten (by hash) is reserved for evaluation


def is_held_out(text: str) -> bool:
    return zlib.crc32(HELD_OUT_SALT + text.encode()) % HELD_OUT_ONE_IN == 0


TASKS = ("reverse", "copy", "sort")   # the tasks of the bundled checkpoints; any rule of task_rules is a task too
BY_CONTENT_REPEATS = 0.5   # the share of training strings with repeated letters for a rule that sorts or dedupes


def target(text: str, task: str = "reverse", letters: str = LATIN) -> str:
    """What the task writes for `text`: the rule applied (letters: the alphabet, which `shift` moves along)."""
    return parse_rule(task).apply(text, letters)


def source_positions(text: str, task: str = "reverse", letters: str = LATIN) -> list[int]:
    """For each output character, the source position it is taken from: the pattern a task's cross-attention
    would follow (reverse: the anti-diagonal; copy: the diagonal; sort: the i-th smallest character, equal
    ones in their source order; any rule: its operations' position maps composed)."""
    return parse_rule(task).source_positions(text, letters)


def output_limit(max_len: int, task: str) -> int:
    """The longest output of a task at texts of max_len characters (double and mirror write two per character)."""
    return parse_rule(task).length_factor * max_len


def expected_keys(text: str, task: str = "reverse", letters: str = LATIN) -> list[set[int]]:
    """For each output character, the source positions a head following the task's pattern may attend to:
    the one position of source_positions, except for a rule decided by content (sort, dedupe), where every
    position holding the same character counts (which of two equal letters is read first does not change the
    output)."""
    positions = source_positions(text, task, letters)
    if not parse_rule(task).by_content:
        return [{p} for p in positions]
    where = {c: {i for i, d in enumerate(text) if d == c} for c in set(text)}
    return [where[text[p]] for p in positions]


def expected_grid(texts: list[str], task: str, steps: int, keys: int, letters: str = LATIN) -> torch.Tensor:
    """(B, steps, keys) bool: key j is on the task's pattern for output step i of text b (no key is for the end
    step and beyond)."""
    grid = torch.zeros(len(texts), steps, keys, dtype=torch.bool)
    for b, text in enumerate(texts):
        for i, allowed in enumerate(expected_keys(text, task, letters)[:steps]):
            grid[b, i, sorted(allowed)] = True
    return grid


def random_string(rng: random.Random, length: int, space_rate: float = 1 / 27, letters: str = LETTERS) -> str:
    """Letters and single spaces, never a space at either end or two in a row."""
    chars = []
    for i in range(length):
        inner = 0 < i < length - 1
        if inner and chars[-1] != " " and rng.random() < space_rate:
            chars.append(" ")
        else:
            chars.append(rng.choice(letters))
    return "".join(chars)


FEW_LETTERS = 4   # the most distinct letters in a string drawn for repeats


def string_stream(seed: int, max_len: int, held_out: bool, min_len: int = 1, repeats: float = 0.0,
                  letters: str = LATIN) -> Iterator[str]:
    """Endless strings with lengths uniform in [min_len, max_len], all on one side of the split. A share
    `repeats` of them draw from 1 to FEW_LETTERS letters only, so that letters repeat: sorting must count each
    letter, and a short string of 26 letters rarely holds one twice."""
    rng = random.Random(seed)
    while True:
        length = rng.randint(min_len, max_len)
        few = repeats and rng.random() < repeats
        pool = "".join(rng.sample(letters, rng.randint(1, min(FEW_LETTERS, len(letters))))) if few else letters
        s = random_string(rng, length, space_rate=1 / (len(letters) + 1), letters=pool)
        if is_held_out(s) == held_out:
            yield s


def training_stream(seed: int, max_len: int, task: str, letters: str = LATIN, min_len: int = 1) -> Iterator[str]:
    """The strings a model of `task` trains on (the command line, live runs and the seed benchmark alike)."""
    repeats = BY_CONTENT_REPEATS if parse_rule(task).by_content else 0.0
    return string_stream(seed, max_len, held_out=False, min_len=min_len, repeats=repeats, letters=letters)


def sample_strings(n: int, seed: int, max_len: int, held_out: bool, min_len: int = 1,
                   letters: str = LATIN) -> list[str]:
    return list(itertools.islice(string_stream(seed, max_len, held_out, min_len, letters=letters), n))


TEST_SEED = 20261121  # the held-out strings every report, the lab and the lesson use; training never draws them


def held_out_strings(n: int, max_len: int, seed: int = TEST_SEED, min_len: int = 1,
                     letters: str = LATIN) -> list[str]:
    return sample_strings(n, seed, max_len, held_out=True, min_len=min_len, letters=letters)


def similar_lengths(stream: Iterator[str], batch_size: int, pool: int = 8) -> Iterator[list[str]]:
    """Batches of strings of similar length: draw pool × batch_size strings, sort them by length, cut them into
    pool batches and hand those out in a random order. Every string is still used once and the lengths keep
    their distribution, but a batch is padded to its own longest string, not to the longest of all: at lengths
    1-48 a step computes on about half as many positions."""
    while True:
        drawn = sorted(itertools.islice(stream, pool * batch_size), key=len)
        chunks = [drawn[i:i + batch_size] for i in range(0, len(drawn), batch_size)]
        for k in torch.randperm(len(chunks)).tolist():   # torch's generator: train.py seeds it
            yield chunks[k]


class Batch(NamedTuple):
    src: torch.Tensor      # (B, S) characters, PAD after the end
    tgt_in: torch.Tensor   # (B, T) SOS + target, the decoder's input (the target shifted right)
    tgt_out: torch.Tensor  # (B, T) target + EOS, what each position must predict; PAD is not scored


def pad(rows: list[list[int]], length: int | None = None) -> torch.Tensor:
    length = length or max(len(r) for r in rows)
    return torch.tensor([r + [PAD] * (length - len(r)) for r in rows], dtype=torch.long)


def correct_tokens(vocab: Vocab, text: str, max_len: int, task: str = "reverse") -> list[int]:
    """The task's target (the reversal, the copy, the sorted text), then EOS: what every step should write, the
    decoder's draft when greedy decoding checks one, and the labels of training."""
    return [*vocab.encode_output(target(text, task, vocab.letters), output_limit(max_len, task)), EOS]


def make_batch(texts: list[str], vocab: Vocab, max_len: int, task: str = "reverse") -> Batch:
    src = [vocab.encode(t, max_len) for t in texts]
    out = [correct_tokens(vocab, t, max_len, task) for t in texts]           # each ends in EOS
    return Batch(pad(src), pad([[SOS] + o[:-1] for o in out]), pad(out))
