"""The models this server trained with the quick recipe for a task of someone's own, kept for the next learner
who opens the same task (by its link) so that they need not wait for it to train again.

Only a run of the quick recipe that reached its target is kept: what it learned follows from the rule, the
alphabet and the lengths alone (the seed is fixed), never from what one learner typed, so handing it to another
shows them nothing of the first. KEPT models at most, the least recently asked for going first; each is at most
checkpoint_schema.MAX_PARAMETERS parameters (4 MB), so the store holds at most KEPT × 4 MB.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from transformer.checkpoint import Checkpoint
from transformer.task_rules import TaskSpec

KEPT = 8
_models: OrderedDict[tuple[str, str, int, int], Checkpoint] = OrderedDict()
_lock = threading.Lock()


def _key(spec: TaskSpec) -> tuple[str, str, int, int]:
    return spec.spec, spec.alphabet, spec.min_len, spec.max_len


def keep(spec: TaskSpec, model: Checkpoint) -> None:
    with _lock:
        _models[_key(spec)] = model
        _models.move_to_end(_key(spec))
        while len(_models) > KEPT:
            _models.popitem(last=False)


def kept(spec: TaskSpec) -> Checkpoint | None:
    with _lock:
        model = _models.get(_key(spec))
        if model is not None:
            _models.move_to_end(_key(spec))
        return model


def forget_all() -> None:
    """For tests: a server that has trained nothing yet."""
    with _lock:
        _models.clear()
