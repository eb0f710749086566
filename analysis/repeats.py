"""Repeated letters: whether an attention map can tell the copies of one letter apart."""

from __future__ import annotations

import numpy as np


def copies_gap(weights: np.ndarray, source: list[str]) -> float | None:
    """weights (T, S) over the source characters -> the largest difference, over every query row and every letter
    the source holds more than once, between the weights its copies receive. 0 means every query treats the
    copies alike (only *which* letter counts, not *where*); None when no letter repeats."""
    weights = np.asarray(weights, dtype=float)                          # (T, S)
    groups = [[j for j, c in enumerate(source) if c == letter] for letter in set(source)]
    groups = [g for g in groups if len(g) > 1]
    if not groups:
        return None
    return max(float((weights[:, g].max(axis=1) - weights[:, g].min(axis=1)).max()) for g in groups)
