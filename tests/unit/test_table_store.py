"""The bundled checkpoints' stored tables: fresh, read back as the types they were written from, equal to what
the code computes now, and unable to hold anything but data."""

import json

import numpy as np
import pytest
from sklearn.linear_model import Ridge

from analysis import table_store
from analysis.lab import FirstFailure, HeadEffect
from analysis.mechanism import LengthProbe
from analysis.offsets import OffsetFit
from transformer.checkpoint import bundled_checkpoint
from transformer.data import TASKS
from transformer.intervention import Head


@pytest.mark.parametrize("task", TASKS)
def test_each_bundled_checkpoint_stores_its_tables_for_this_code_and_these_weights(task):
    directory = bundled_checkpoint(task)
    saved = json.loads((directory / table_store.FILE_NAME).read_text())
    assert saved["fingerprint"] == table_store.fingerprint(directory), (
        f"{directory / table_store.FILE_NAME} was stored for other weights or other code: run "
        "`python -m scripts.store_tables` (until then the server computes every table itself)")
    assert len(saved["tables"]) >= 5


def test_a_change_to_the_code_or_the_weights_makes_the_file_stale(tmp_path, monkeypatch):
    source = bundled_checkpoint("reverse")
    for name in ("config.json", "model.safetensors"):
        (tmp_path / name).write_bytes((source / name).read_bytes())
    table_store.write(tmp_path, {("explorer.lab_runs._length_curve", (20,)): {1: 1.0, 2: 0.5}})
    assert table_store.lookup(str(tmp_path), "explorer.lab_runs._length_curve", (20,)) == (True, {1: 1.0, 2: 0.5})
    assert table_store.lookup(str(tmp_path), "explorer.lab_runs._length_curve", (10,)) == (False, None)

    weights = tmp_path / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:-1] + b"\x00")
    table_store.stored_tables.cache_clear()
    assert table_store.lookup(str(tmp_path), "explorer.lab_runs._length_curve", (20,)) == (False, None)

    weights.write_bytes((source / "model.safetensors").read_bytes())
    table_store.stored_tables.cache_clear()
    monkeypatch.setattr(table_store, "code_fingerprint", lambda: "other code")
    assert table_store.lookup(str(tmp_path), "explorer.lab_runs._length_curve", (20,)) == (False, None)
    table_store.stored_tables.cache_clear()


def test_every_kind_of_table_reads_back_as_the_types_it_was_written_from():
    rng = np.random.default_rng(0)
    x, n = rng.normal(size=(30, 4)), rng.integers(1, 9, size=30)
    fitted = Ridge(alpha=1.0).fit(x, n)
    probe = LengthProbe(["input"], ["src_positions.output"], [0, 1], np.array([[0.5, np.nan]]),
                        np.array([[-0.1, 0.2]]), np.array([[0.9, 0.8]]), [Head("encoder_self", 0, 1)], 1.0, 0.07,
                        {(0, 1): fitted}, {})
    tables = [
        (0.985, [HeadEffect(Head("cross", 0, 3), 0.01, 0.975)]),
        [OffsetFit("cross", 0, 3, 1, 0.953, {-1: 0.0, 0: 0.04, 1: 0.953}, 0.96)],
        [FirstFailure(50, 0.0, 1.0, 0.0, 0.12), FirstFailure(40, 1.0, 0.0, None, 0.99)],
        {1: 1.0, 96: float("nan")},
    ]
    for table in tables:
        back = table_store.decode(json.loads(json.dumps(table_store.encode(table))))
        assert type(back) is type(table)
        assert repr(back) == repr(table)            # nan compares unequal to itself; its repr does not
    back = table_store.decode(json.loads(json.dumps(table_store.encode(probe))))
    assert back.heads_off == [Head("encoder_self", 0, 1)] and np.array_equal(back.r2, probe.r2, equal_nan=True)
    assert back.probes[(0, 1)].predict(x[:5]).tolist() == fitted.predict(x[:5]).tolist()


def test_a_stored_value_can_only_be_data():
    for hostile in ({"record": "Popen", "fields": {"args": "ls"}}, {"__reduce__": ["os.system", ["ls"]]},
                    {"record": "HeadEffect", "fields": {"head": {"record": "Popen", "fields": {}}}},
                    {"record": "HeadEffect"}, {"record": "HeadEffect", "fields": {"unknown": 1}},
                    {"record": ["HeadEffect"], "fields": {}}, {"dict": [[{"dict": []}, 1]]},
                    {"array": [1, 2, 3], "dtype": "float64", "shape": [2, 2]},
                    {"array": [], "dtype": "object", "shape": [0]},
                    {"ridge": {"alpha": 1.0, "coef": "x", "intercept": 0.0}}):
        with pytest.raises(table_store.StoreError):
            table_store.decode(hostile)
    with pytest.raises(table_store.StoreError):
        table_store.encode(object())


@pytest.mark.parametrize("content", ["<<<<<<< HEAD\n{}", "[]", '{"fingerprint": 1}', '{"tables": []}'])
def test_a_file_that_cannot_be_read_is_no_file_and_the_table_is_computed(tmp_path, content):
    source = bundled_checkpoint("reverse")
    for name in ("config.json", "model.safetensors"):
        (tmp_path / name).write_bytes((source / name).read_bytes())
    (tmp_path / table_store.FILE_NAME).write_text(content)
    assert table_store.lookup(str(tmp_path), "explorer.lab_runs._length_curve", (20,)) == (False, None)
    (tmp_path / "config.json").unlink()               # a folder without the files the fingerprint reads
    table_store.stored_tables.cache_clear()
    assert table_store.lookup(str(tmp_path), "explorer.lab_runs._length_curve", (20,)) == (False, None)
    table_store.stored_tables.cache_clear()


@pytest.mark.slow   # every stored table computed again
def test_a_stored_table_is_what_the_code_computes_now():
    """The cheapest stored table of the reverser, computed afresh (the same function the server would call)."""
    from explorer.lab_runs import _failure_table

    key = str(bundled_checkpoint("reverse"))
    found, stored = table_store.lookup(key, "explorer.lab_runs._failure_table", (10,))
    assert found
    fresh = _failure_table.__wrapped__(key)
    assert len(fresh) == len(stored) > 5
    for now, kept in zip(fresh, stored):   # float32 on another CPU differs by up to 2e-5 relative, never more
        assert (now.length, now.exact, now.wrong_at_step_0, now.first_wrong) == (
            kept.length, kept.exact, kept.wrong_at_step_0, kept.first_wrong)
        assert now.p_step_0 == pytest.approx(kept.p_step_0, rel=1e-4, abs=1e-9), now.length
