"""The library's exceptions a page catches to say what went wrong in words, named here so that pages import no
code from transformer/ (tests/unit/test_layout.py)."""

from transformer.checkpoint import CheckpointError
from transformer.vocab import InputError

__all__ = ["CheckpointError", "InputError"]
