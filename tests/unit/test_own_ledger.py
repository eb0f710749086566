"""explorer.own_ledger: own models and their runs bounded per browser over all its tabs, and server-wide, the
least recently used dropped first and each dropped model named with its reason."""

from __future__ import annotations

import time

import numpy as np

from explorer import own_ledger
from explorer.own_ledger import MAX_OWN_MODELS, NO_ROOM, OWN_RUN_BYTES, TOO_MANY, model_bytes, settle, touch
from explorer.own_models import Shelf
from server.run_cache import MB, RunCache
from transformer.checkpoint import Checkpoint
from transformer.config import ModelConfig
from transformer.model import Transformer
from transformer.vocab import Vocab


def small_model() -> Checkpoint:
    return Checkpoint(Transformer(ModelConfig(d_model=16, n_heads=2, d_ff=32)).eval(), Vocab(), {})


def tab(who: str) -> Shelf:
    return Shelf(who, runs=RunCache(OWN_RUN_BYTES))


def keep(shelf: Shelf, model_id: str, shelves: list[Shelf]) -> None:
    shelf.models[model_id] = small_model()
    touch(shelf, model_id)
    settle(shelves, shelf.who)
    time.sleep(0.001)   # distinct times of use


def run_of(shelf: Shelf, model_id: str, n: int, megabytes: float, shelves: list[Shelf]) -> None:
    """A run of `megabytes` about the model, which a page reads to make it (explorer.own_models.held)."""
    touch(shelf, model_id)
    shelf.runs.on_store = lambda: settle(shelves, shelf.who)
    shelf.runs.get("text_run", (model_id, f"word {n}"), lambda: np.zeros(int(megabytes * MB) // 8))
    time.sleep(0.001)


def test_a_browser_keeps_three_models_over_all_its_tabs_and_the_oldest_goes_first():
    shelves = [tab("browser:a") for _ in range(4)] + [tab("browser:b")]
    for i, shelf in enumerate(shelves[:4]):
        keep(shelf, f"own:{i}", shelves)
    keep(shelves[4], "own:b", shelves)
    assert sum(len(s.models) for s in shelves[:4]) == MAX_OWN_MODELS
    assert "own:0" not in shelves[0].models and shelves[0].dropped == {"own:0": TOO_MANY}
    assert "own:b" in shelves[4].models                        # another browser is not charged for them


def test_a_browsers_runs_over_all_its_tabs_stay_within_its_budget():
    shelves = [tab("browser:a") for _ in range(6)]
    for i, shelf in enumerate(shelves):
        for n in range(3):
            run_of(shelf, f"own:{i}", n, 4, shelves)               # 6 tabs x 3 runs x 4 MB = 72 MB asked
    assert sum(s.runs.total for s in shelves) <= OWN_RUN_BYTES
    assert len(shelves[-1].runs) == 3                              # the newest runs are kept


def test_everyone_together_stays_under_the_servers_ceiling_oldest_runs_first(monkeypatch):
    monkeypatch.setattr(own_ledger, "OWN_BYTES_ON_SERVER", 40 * MB)
    shelves = [tab(f"browser:{i}") for i in range(8)]
    for i, shelf in enumerate(shelves):
        keep(shelf, f"own:{i}", shelves)
        for n in range(2):
            run_of(shelf, f"own:{i}", n, 3, shelves)              # 8 browsers x 6 MB of runs, within each budget
    assert own_ledger.held_bytes(shelves) <= 40 * MB
    assert len(shelves[-1].runs) == 2 and len(shelves[0].runs) < 2   # the oldest runs went first


def test_past_the_ceiling_the_least_recently_used_model_goes_and_its_learner_is_told_why(monkeypatch):
    shelves = [tab(f"browser:{i}") for i in range(8)]
    for i, shelf in enumerate(shelves):
        keep(shelf, f"own:{i}", shelves)
    touch(shelves[1], "own:1")                                      # browser 1's model read again: recent
    monkeypatch.setattr(own_ledger, "OWN_BYTES_ON_SERVER", 5 * model_bytes(small_model()) + 1)
    settle(shelves, "browser:7")
    kept = [s.who for s in shelves if s.models]
    assert kept == ["browser:1", "browser:4", "browser:5", "browser:6", "browser:7"]
    assert shelves[0].dropped == {"own:0": NO_ROOM} and shelves[1].dropped == {}


def test_a_dropped_models_runs_go_with_it():
    shelves = [tab("browser:a")]
    keep(shelves[0], "own:0", shelves)
    run_of(shelves[0], "own:0", 0, 1, shelves)
    for i in range(1, MAX_OWN_MODELS + 1):
        keep(shelves[0], f"own:{i}", shelves)
    assert "own:0" not in shelves[0].models and len(shelves[0].runs) == 0
