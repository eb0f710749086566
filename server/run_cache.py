"""Cached results bounded in bytes: an LRU that forgets the least recently used runs once they weigh too much.

st.cache_resource bounds a cache by its number of entries, but a run's weight grows with its text: every
activation is kept, and attention grows with the square of the length. With 256 entries per cache, one learner
typing 180 distinct 48-character words on Masks took a server to 1,450 MB, kept after they left (issue 24).

What a result weighs, measured on the bundled models (2 + 2 layers, 4 heads, d_model 64, d_ff 256; 87 traced
arrays per run), in MB of numpy arrays:

    one run, 24 characters        0.65
    one run, 48 characters        1.52    (the longest a bundled model reads on most pages)
    one run, 96 characters        3.91    (the lab's "Longer than trained", teacher forced: 97 decoder steps)
    Masks' batch of 3 at 48       4.55    (a run per row of one padded pass)

So the runs of the server's models, every session's, share SHARED_RUN_BYTES (64 MB: ~40 runs at 48 characters,
~100 at 24, 14 of Masks' batches), enough for the current runs of a class of sixty typing words of 3–24
characters, and small enough that a learner flooding the server with long texts leaves at most that much behind
when they go (the issue's bound: back within 100 MB of the start). A run evicted and asked for again costs one
decoding (tens of ms). The lab's whole-sample tables (a few kB each, but up to a minute to compute) are kept
apart, in SHARED_TABLE_BYTES, so a flood of runs never pushes them out. A session's runs of its own models
(trained or uploaded) get OWN_RUN_BYTES of their own, released with the session (explorer.own_models.Shelf).
A result larger than its whole budget is returned and not kept.

Evicted runs are freed in glibc's per-thread heaps, which keep freed memory until trimmed; trimming costs
0.2–0.35 ms per MB freed (15 ms after freeing 43 MB of run-sized arrays, 0.28 s after 1.7 GB), so it runs once
TRIM_AFTER_BYTES have been evicted, not after each eviction.
"""

from __future__ import annotations

import contextlib
import dataclasses
import sys
import threading
import time
import types
from collections import Counter
from collections.abc import Callable, Hashable, Mapping
from typing import Any, ContextManager, TypeVar

import cachetools
import numpy as np

from server.memory import return_freed_memory

MB = 2 ** 20
SHARED_RUN_BYTES = 64 * MB    # every cached run of the server's models, all sessions together
SHARED_TABLE_BYTES = 16 * MB  # the lab's tables of the server's models (small, slow to make)
OWN_RUN_BYTES = 32 * MB       # one session's results about its own models
TRIM_AFTER_BYTES = 16 * MB    # evicted bytes between two trims of the heaps
ARRAY_HEADER = sys.getsizeof(np.empty(0))  # a numpy array's own object, without its data

T = TypeVar("T")


def result_bytes(value: Any, seen: set[int] | None = None) -> int:
    """What a cached result holds, in bytes: its numpy arrays (nearly all of a Run: logits, probabilities and
    the trace) plus the Python objects around them, walked through lists, mappings, dataclasses and objects."""
    seen = set() if seen is None else seen
    if id(value) in seen:
        return 0
    seen.add(id(value))
    if isinstance(getattr(value, "nbytes", None), int):    # a numpy array (or a tensor)
        return value.nbytes + ARRAY_HEADER
    if isinstance(value, (str, bytes, int, float, bool, type(None))):
        return sys.getsizeof(value)
    if isinstance(value, Mapping):
        parts = [*value.keys(), *(value[k] for k in value)]
    elif isinstance(value, (list, tuple, set, frozenset)):
        parts = list(value)
    elif dataclasses.is_dataclass(value):
        parts = [getattr(value, f.name) for f in dataclasses.fields(value)]
    elif hasattr(value, "__dict__") and not isinstance(value, (type, types.ModuleType, types.FunctionType)):
        parts = list(vars(value).values())              # an object's fields (a fitted probe's coefficients)
    else:
        parts = []
    return sys.getsizeof(value) + sum(result_bytes(p, seen) for p in parts)


@dataclasses.dataclass
class _Entry:
    value: Any
    nbytes: int
    group: str
    used: float = 0.0        # time.monotonic() of its last use


class _Entries(cachetools.LRUCache):
    """cachetools' LRU, bounded by the entries' bytes, that counts each function's entries and the bytes it
    evicts: the eviction happens inside cachetools (popitem, then __delitem__), where RunCache cannot see it."""

    def __init__(self, budget: int) -> None:
        super().__init__(maxsize=budget, getsizeof=lambda entry: entry.nbytes)
        self.counts: Counter[str] = Counter()   # entries per group (function)
        self.freed = 0                          # bytes evicted since the last trim

    def __setitem__(self, key: Hashable, entry: _Entry) -> None:
        if key in self:
            del self[key]
        super().__setitem__(key, entry)
        self.counts[entry.group] += 1

    def __delitem__(self, key: Hashable) -> None:
        entry = cachetools.Cache.__getitem__(self, key)   # no use: the LRU order is left as it is
        super().__delitem__(key)
        self.counts[entry.group] -= 1
        self.freed += entry.nbytes

    def unused(self) -> list[tuple[Hashable, _Entry]]:
        """Every (key, entry), in no particular order, read without counting as a use."""
        return [(key, cachetools.Cache.__getitem__(self, key)) for key in list(self)]

    def by_use(self) -> list[tuple[Hashable, _Entry]]:
        """Every (key, entry), least recently used first (cachetools keeps that order to itself)."""
        return sorted(self.unused(), key=lambda item: item[1].used)


class RunCache:
    """Results of functions of plain values, shared read-only, least recently used first out once their bytes
    pass `budget` (a cachetools LRUCache sized by each result's bytes). Thread-safe; a key several threads ask
    for at once is computed once, the others waiting for it (a lock per key being computed, as
    st.cache_resource has)."""

    def __init__(self, budget: int, sizeof: Callable[[Any], int] = result_bytes,
                 on_store: Callable[[], None] = lambda: None) -> None:
        """`on_store` is called after each result is kept, outside the cache's lock (explorer.own_ledger bounds
        what all learners' caches of their own models hold together)."""
        self.budget = budget
        self.sizeof = sizeof
        self.on_store = on_store
        self._entries = _Entries(budget)
        self._lock = threading.Lock()
        self._computing: dict[Hashable, tuple[threading.Lock, int]] = {}  # key -> (its lock, threads using it)

    @property
    def total(self) -> int:
        """Bytes held."""
        return int(self._entries.currsize)

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._entries

    def keys(self) -> list[Hashable]:
        """(group, args) of every entry, least recently used first."""
        with self._lock:
            return [key for key, _ in self._entries.by_use()]

    def items(self) -> list[tuple[Hashable, Any]]:
        """((group, args), result) of every entry, least recently used first (scripts.store_tables)."""
        with self._lock:
            return [(key, entry.value) for key, entry in self._entries.by_use()]

    def get(self, group: str, args: tuple, compute: Callable[[], T], max_entries: int | None = None,
            waiting: Callable[[], ContextManager] = contextlib.nullcontext) -> T:
        """The result of `group` (a function's name) on `args` (plain values), computed by `compute` on a miss,
        inside `waiting()` (a spinner). At most `max_entries` of the group are kept."""
        key = (group, args)
        found = self._lookup(key)
        if found is not None:
            return found.value
        with waiting(), self._key_lock(key):
            found = self._lookup(key)           # another thread computed it while this one waited
            if found is not None:
                return found.value
            value = compute()
            self._store(key, _Entry(value, self.sizeof(value), group, time.monotonic()), max_entries)
        self.on_store()
        return value

    def clear(self) -> None:
        with self._lock:
            freed = self.total
            self._entries = _Entries(self.budget)
        if freed:
            return_freed_memory()

    def oldest_use(self) -> float | None:
        """When the least recently used result was last used (None when empty)."""
        with self._lock:
            return min((entry.used for _, entry in self._entries.unused()), default=None)

    def drop_oldest(self) -> int:
        """Forget the least recently used result; the bytes it held (0 when empty)."""
        with self._lock:
            if not self._entries:
                return 0
            return self._entries.popitem()[1].nbytes

    def drop_where(self, unwanted: Callable[[Hashable], bool]) -> int:
        """Forget every result whose (group, args) key is unwanted; the bytes they held."""
        with self._lock:
            dropped = [key for key, _ in self._entries.unused() if unwanted(key)]
            before = self.total
            for key in dropped:
                del self._entries[key]
            return before - self.total

    def _lookup(self, key: Hashable) -> _Entry | None:
        with self._lock:
            entry = self._entries.get(key)      # a use: cachetools moves it to the recent end
            if entry is not None:
                entry.used = time.monotonic()
            return entry

    def _store(self, key: Hashable, entry: _Entry, max_entries: int | None) -> None:
        if entry.nbytes > self.budget:
            return
        with self._lock:
            self._entries[key] = entry          # evicts the least recently used until the bytes fit
            while max_entries is not None and self._entries.counts[entry.group] > max_entries:
                oldest = min((item for item in self._entries.unused() if item[1].group == entry.group),
                             key=lambda item: item[1].used)[0]
                del self._entries[oldest]
            trim = self._entries.freed >= TRIM_AFTER_BYTES
            if trim:
                self._entries.freed = 0
        if trim:                                # the evicted results' last references are gone, unless a page
            return_freed_memory()               # still draws from one

    @contextlib.contextmanager
    def _key_lock(self, key: Hashable):
        """Hold the lock of one key; it lives while a thread uses it, so locks do not pile up with keys."""
        with self._lock:
            lock, users = self._computing.get(key, (threading.Lock(), 0))
            self._computing[key] = (lock, users + 1)
        try:
            with lock:
                yield
        finally:
            with self._lock:
                lock, users = self._computing[key]
                if users == 1:
                    del self._computing[key]
                else:
                    self._computing[key] = (lock, users - 1)
