"""Random words for simulated learners: fresh ones, so that no answer comes from a cache another learner filled."""

from __future__ import annotations

import random

LETTERS = "abcdefghijklmnopqrstuvwxyz"


def random_word(rng: random.Random, length: int) -> str:
    return "".join(rng.choice(LETTERS) for _ in range(length))


def new_word(rng: random.Random) -> str:
    """A word of 3 to 24 letters, as a class types them."""
    return random_word(rng, rng.randint(3, 24))
