"""The shared run caches are bounded in bytes (issue 24): by 256 entries each, one learner typing long words
filled a server with 1,450 MB of runs."""

from __future__ import annotations

import random
import threading
import time

import numpy as np
import pytest

from analysis.run import TEACHER, make_batch_runs, make_run
from analysis.lesson import companions
from server import run_cache
from server.run_cache import MB, RunCache, result_bytes


def word(rng: random.Random, length: int) -> str:
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(length))


def arrays_of(run) -> int:
    return run.logits.nbytes + run.probs.nbytes + sum(a.nbytes for a in run.trace.values())


def test_a_run_weighs_its_arrays_as_the_docstring_says(bundled):
    """The figures server.run_cache states, which its budget was chosen from."""
    rng = random.Random(0)
    at_48 = make_run(bundled.model, bundled.vocab, word(rng, 48), TEACHER)
    at_96 = make_run(bundled.model, bundled.vocab, word(rng, 96), TEACHER, max_len=96)
    text = word(rng, 48)
    batch = make_batch_runs(bundled.model, bundled.vocab, [text, *companions(text, 48)])
    assert arrays_of(at_48) <= result_bytes(at_48) <= arrays_of(at_48) + 0.1 * MB
    assert result_bytes(at_48) / MB == pytest.approx(1.5, rel=0.1)
    assert result_bytes(at_96) / MB == pytest.approx(3.9, rel=0.1)
    assert result_bytes(batch) == pytest.approx(sum(map(result_bytes, batch)), rel=0.01)
    assert result_bytes(batch) / MB == pytest.approx(4.55, rel=0.1)


def test_the_cache_forgets_the_least_recently_used_runs_once_their_bytes_pass_its_budget(bundled):
    rng = random.Random(1)
    runs = [make_run(bundled.model, bundled.vocab, word(rng, 48), TEACHER) for _ in range(24)]   # one pass each
    budget = 8 * result_bytes(runs[0])                  # about 8 runs of 48 characters
    cache = RunCache(budget)
    for i, run in enumerate(runs):
        assert cache.get("text_run", (i,), lambda: run) is run
        assert cache.get("text_run", (0,), lambda: pytest.fail("run 0 is kept")) is runs[0]  # read on every rerun
        assert cache.total <= budget
    kept = {args[0] for _, args in cache.keys()}
    assert 0 in kept and 23 in kept and 1 not in kept   # the one read all along and the newest stay
    assert 6 <= len(kept) <= 8
    assert cache.total == sum(result_bytes(runs[i]) for i in kept)


def test_a_result_larger_than_the_whole_budget_is_returned_and_not_kept():
    cache = RunCache(1 * MB)
    big = np.zeros(2 * MB, np.uint8)
    assert cache.get("f", (1,), lambda: big) is big
    assert len(cache) == 0 and cache.total == 0


def test_max_entries_bounds_one_function_without_touching_the_others():
    cache = RunCache(100 * MB)
    cache.get("table", ("reverse",), lambda: 1.0)
    for i in range(5):
        cache.get("text_run", (i,), lambda: np.zeros(1000), max_entries=3)
    assert [args for group, args in cache.keys()] == [("reverse",), (2,), (3,), (4,)]



def test_a_function_whose_results_the_byte_bound_pushed_out_may_again_keep_its_max_entries():
    """Evictions for bytes happen inside cachetools; each must still lower its function's count, or the count
    would cap the function's next results below max_entries."""
    row = np.zeros(MB // 8)                               # 1 MB of float64, so four fit in the 4.5 MB below
    cache = RunCache(int(4.5 * MB))
    for i in range(3):
        cache.get("text_run", (i,), lambda: row.copy(), max_entries=3)
    for i in range(4):
        cache.get("table", (i,), lambda: row.copy())      # pushes every text_run out
    assert {group for group, _ in cache.keys()} == {"table"}
    for i in range(3, 6):
        cache.get("text_run", (i,), lambda: row.copy(), max_entries=3)
    assert [args for group, args in cache.keys() if group == "text_run"] == [(3,), (4,), (5,)]
    assert len(cache) == 4 and cache.total <= 4.5 * MB

def test_one_key_asked_for_by_several_threads_at_once_is_computed_once():
    cache = RunCache(100 * MB)
    calls, results = [], []
    start = threading.Barrier(8)

    def compute():
        calls.append(1)
        time.sleep(0.3)
        return np.zeros(1000)

    def ask():
        start.wait()
        results.append(cache.get("text_run", ("level",), compute))

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1
    assert len(results) == 8 and all(r is results[0] for r in results)


def test_different_keys_are_computed_side_by_side():
    cache = RunCache(100 * MB)
    start = threading.Barrier(4)

    def ask(i):
        start.wait()
        cache.get("text_run", (i,), lambda: time.sleep(0.5) or np.zeros(10))

    began = time.perf_counter()
    threads = [threading.Thread(target=ask, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert time.perf_counter() - began < 1.5      # not 4 × 0.5 s one after the other
    assert len(cache) == 4


def test_a_failed_computation_keeps_nothing_and_the_next_caller_computes_again():
    cache = RunCache(100 * MB)
    with pytest.raises(ValueError):
        cache.get("f", (1,), lambda: (_ for _ in ()).throw(ValueError("bad text")))
    assert cache.get("f", (1,), lambda: "ok") == "ok"


def test_evicted_memory_is_given_back_every_few_megabytes_not_on_every_eviction(monkeypatch):
    trims = []
    monkeypatch.setattr(run_cache, "return_freed_memory", lambda: trims.append(1))
    cache = RunCache(8 * MB)
    for i in range(100):                                  # 100 MB through an 8 MB cache: 92 evictions
        cache.get("f", (i,), lambda: np.zeros(MB, np.uint8))
    assert 92 * MB // run_cache.TRIM_AFTER_BYTES - 1 <= len(trims) <= 92 * MB // run_cache.TRIM_AFTER_BYTES
    cache.clear()
    assert len(cache) == 0 and cache.total == 0 and len(trims) > 92 * MB // run_cache.TRIM_AFTER_BYTES - 1


def test_model_run_keys_on_plain_values_with_defaults_filled_in_and_underscored_arguments_left_out():
    """As st.cache_resource did: a progress callback (explorer.on_request) does not make a new entry."""
    from explorer.cache import model_run

    calls = []

    @model_run(max_entries=4)
    def table(key: str, per_length: int = 20, _progress=None) -> list[int]:
        calls.append((key, per_length))
        return [per_length]

    server_model = "checkpoints/not-an-own-model"
    first = table(server_model)
    assert table(server_model, 20, _progress=lambda share: None) is first
    assert table(server_model, per_length=20) is first
    assert table(server_model, 10) == [10]
    assert calls == [(server_model, 20), (server_model, 10)]
