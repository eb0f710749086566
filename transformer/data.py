"""The word-reversal task: random strings, their reversals, and a held-out split no training batch touches.

Which side of the split a string belongs to is decided by a hash of the string itself, so the two
sides are disjoint by construction: the training sampler discards every held-out string it draws.
"""

from __future__ import annotations

import itertools
import random
import zlib
from typing import Iterator, NamedTuple

import torch

from .vocab import EOS, PAD, SOS, Vocab

LETTERS = "abcdefghijklmnopqrstuvwxyz"
HELD_OUT_SALT = b"held-out:"
HELD_OUT_ONE_IN = 10  # one string in ten (by hash) is reserved for evaluation


def is_held_out(text: str) -> bool:
    return zlib.crc32(HELD_OUT_SALT + text.encode()) % HELD_OUT_ONE_IN == 0


def reverse(text: str) -> str:
    return text[::-1]


def random_string(rng: random.Random, length: int, space_rate: float = 1 / 27) -> str:
    """Letters and single spaces, never a space at either end or two in a row."""
    chars = []
    for i in range(length):
        inner = 0 < i < length - 1
        if inner and chars[-1] != " " and rng.random() < space_rate:
            chars.append(" ")
        else:
            chars.append(rng.choice(LETTERS))
    return "".join(chars)


def string_stream(seed: int, max_len: int, held_out: bool, min_len: int = 1) -> Iterator[str]:
    """Endless strings with lengths uniform in [min_len, max_len], all on one side of the split."""
    rng = random.Random(seed)
    while True:
        s = random_string(rng, rng.randint(min_len, max_len))
        if is_held_out(s) == held_out:
            yield s


def sample_strings(n: int, seed: int, max_len: int, held_out: bool, min_len: int = 1) -> list[str]:
    return list(itertools.islice(string_stream(seed, max_len, held_out, min_len), n))


class Batch(NamedTuple):
    src: torch.Tensor      # (B, S) characters, PAD after the end
    tgt_in: torch.Tensor   # (B, T) SOS + reversal, the decoder's input (the target shifted right)
    tgt_out: torch.Tensor  # (B, T) reversal + EOS, what each position must predict; PAD is not scored


def pad(rows: list[list[int]], length: int | None = None) -> torch.Tensor:
    length = length or max(len(r) for r in rows)
    return torch.tensor([r + [PAD] * (length - len(r)) for r in rows], dtype=torch.long)


def make_batch(texts: list[str], vocab: Vocab, max_len: int) -> Batch:
    src = [vocab.encode(t, max_len) for t in texts]
    rev = [ids[::-1] for ids in src]
    return Batch(pad(src), pad([[SOS] + r for r in rev]), pad([r + [EOS] for r in rev]))
