"""Giving freed memory back to the operating system.

Each Streamlit session runs its script in a thread of its own, and glibc gives threads their own heaps
(arenas). Memory freed there stays in the process until the heap is trimmed, though nothing references it
any more (README, "Uploads"; tests/e2e/test_hostile_uploads.py holds the server's memory after sessions leave).
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


def return_freed_memory() -> None:
    """glibc's malloc_trim(0) over every heap; nothing on a C library without it."""
    libc = _libc()
    if libc is not None:
        libc.malloc_trim(0)
