"""Timing helpers: medians of repeated runs, measured side by side in one process."""

from __future__ import annotations

import statistics
import time
from typing import Callable


def interleaved_medians(fns: dict[str, Callable[[], object]], repeats: int, warmup: int = 2) -> dict[str, float]:
    """Run the candidates in turn, round after round, so machine noise falls on all of them alike."""
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(t) for name, t in times.items()}
