"""Giving freed memory back to the operating system.

Each Streamlit session runs its script in a thread of its own, and glibc gives threads their own heaps
(arenas), up to eight per core. Memory freed there stays in the process until the heap is trimmed, though
nothing references it any more (tests/e2e/test_hostile_uploads.py and test_hostile_tabs.py hold the server's
memory after sessions leave); and each arena keeps its own free pieces, which another arena cannot reuse. The
server uses at most ARENAS of them (glibc's M_ARENA_MAX, set as the server starts, before its threads).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools


@functools.cache
def _libc():
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
    except OSError:
        return None
    return libc if libc is not None and hasattr(libc, "malloc_trim") else None


ARENAS = 2
M_ARENA_MAX = -8   # glibc's mallopt parameter


def limit_arenas(arenas: int = ARENAS) -> bool:
    """mallopt(M_ARENA_MAX, arenas), as MALLOC_ARENA_MAX would at the process's start; whether it took."""
    libc = _libc()
    return libc is not None and bool(libc.mallopt(M_ARENA_MAX, arenas))


def return_freed_memory() -> None:
    """glibc's malloc_trim(0) over every heap; nothing on a C library without it."""
    libc = _libc()
    if libc is not None:
        libc.malloc_trim(0)
