"""What every learner's own models and the runs cached about them hold together: bounded per browser (all its
tabs) and server-wide, least recently used dropped first.

Each tab keeps its own models on a shelf Streamlit drops with the tab (explorer.own_models). Counted per shelf,
24 tabs of one person holding uploads near the limit took a server from 509 to 1,431 MB (issue 63): budgets that
multiply with tabs bound nothing. Here a browser holds at most MAX_OWN_MODELS models and OWN_RUN_BYTES of runs
over all its tabs, and everyone's together at most OWN_BYTES_ON_SERVER, so a replica stays under its stated
memory whatever the number of tabs. A model dropped for room is named on its tab's next run.
"""

from __future__ import annotations

import threading
import time
from typing import Iterable, Protocol

from transformer.checkpoint import Checkpoint

from server.memory import return_freed_memory
from server.run_cache import MB, RunCache

MAX_OWN_MODELS = 3                 # models one browser keeps, over all its tabs
OWN_RUN_BYTES = 32 * MB            # runs of its own models one browser keeps, over all its tabs
OWN_BYTES_ON_SERVER = 192 * MB     # every learner's own models and their runs together: six browsers' worth
                                   # of runs at their budget, and the 64 + 16 MB of shared caches beside it,
                                   # keep a replica that starts near 550 MB under 1 GB
TOO_MANY = (f"you kept more than {MAX_OWN_MODELS} models of your own in this browser (its tabs together); the "
            "oldest goes first")
NO_ROOM = "the server needed the room for other learners' models, and yours was the least recently used"

_LOCK = threading.Lock()


class Holder(Protocol):
    """A tab's shelf, as the ledger sees it."""
    who: str
    models: dict[str, Checkpoint]
    used: dict[str, float]          # model id -> when it was last used
    dropped: dict[str, str]         # model id -> why the ledger dropped it
    runs: RunCache


def model_bytes(ckpt: Checkpoint) -> int:
    tensors = [*ckpt.model.parameters(), *ckpt.model.buffers()]
    return sum(t.numel() * t.element_size() for t in tensors)


def held_bytes(shelves: Iterable[Holder]) -> int:
    return sum(s.runs.total + sum(model_bytes(m) for m in list(s.models.values())) for s in shelves)


def _drop_model(shelf: Holder, model_id: str, why: str) -> None:
    shelf.models.pop(model_id, None)
    shelf.used.pop(model_id, None)
    shelf.dropped[model_id] = why
    shelf.runs.drop_where(lambda key: key[1][:1] == (model_id,))   # (group, args): args[0] names the model


def _oldest_model(shelves: list[Holder]) -> tuple[float, Holder, str] | None:
    found = [(s.used.get(m, 0.0), s, m) for s in shelves for m in list(s.models)]
    return min(found, key=lambda f: f[0]) if found else None


def _oldest_runs(shelves: list[Holder]) -> tuple[float, Holder] | None:
    found = [(used, s) for s in shelves if (used := s.runs.oldest_use()) is not None]
    return min(found, key=lambda f: f[0]) if found else None


def settle(shelves: list[Holder], who: str) -> bool:
    """Drop what is over the budgets after `who` (a browser's key) kept something new; whether anything went."""
    dropped = False
    with _LOCK:
        mine = [s for s in shelves if s.who == who]
        while sum(len(s.models) for s in mine) > MAX_OWN_MODELS:
            _, shelf, model_id = _oldest_model(mine)
            _drop_model(shelf, model_id, TOO_MANY)
            dropped = True
        while sum(s.runs.total for s in mine) > OWN_RUN_BYTES and (oldest := _oldest_runs(mine)):
            oldest[1].runs.drop_oldest()
            dropped = True
        while held_bytes(shelves) > OWN_BYTES_ON_SERVER:
            runs, model = _oldest_runs(shelves), _oldest_model(shelves)
            if runs is not None and (model is None or runs[0] <= model[0]):
                runs[1].runs.drop_oldest()
            elif model is not None:
                _drop_model(model[1], model[2], NO_ROOM)
            else:
                break
            dropped = True
    if dropped:
        return_freed_memory()
    return dropped


def touch(shelf: Holder, model_id: str) -> None:
    shelf.used[model_id] = time.monotonic()
