"""Token buckets by key: how often one browser or address may do a thing, counted in this process."""

from __future__ import annotations

import threading
import time
from typing import Callable

MAX_KEYS = 4096   # keys kept; past this, those whose bucket has refilled are forgotten (as good as new)


class Buckets:
    """`burst` at once per key, then one each `every` seconds."""

    def __init__(self, burst: float, every: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.burst, self.every, self._clock = burst, every, clock
        self._lock = threading.Lock()
        self._left: dict[str, tuple[float, float]] = {}   # key -> (tokens left, when counted)

    def _now_left(self, key: str, now: float) -> float:
        left, at = self._left.get(key, (self.burst, now))
        return min(self.burst, left + (now - at) / self.every)

    def take(self, key: str) -> bool:
        """Spend one token of `key` if it has one."""
        now = self._clock()
        with self._lock:
            left = self._now_left(key, now)
            if left < 1:
                return False
            if len(self._left) > MAX_KEYS:
                self._left = {k: (n, t) for k, (n, t) in self._left.items()
                              if n + (now - t) / self.every < self.burst}
            self._left[key] = (left - 1, now)
            return True

    def wait_for(self, key: str) -> float:
        """Seconds until `key` has a token again (0 if it has one)."""
        now = self._clock()
        with self._lock:
            return max(0.0, (1 - self._now_left(key, now)) * self.every)
