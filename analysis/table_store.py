"""The lab's whole-sample tables of a bundled checkpoint, stored beside its weights and read instead of computed.

A table (a head's cost over 200 held-out words, the length probes, the first failure per length…) is a fixed
property of a checkpoint: computing it on a fresh server made the first learner to open a lab page wait up to a
minute. `python -m scripts.store_tables` computes every table the pages' default views ask for and writes them
to `checkpoints/<task>/tables.json`; the server reads a table from there when the file's fingerprint (the
weights' and the code's) is the one it would compute with now, and computes it as before otherwise. So a
stored table is only ever what the code in this checkout would compute (tests/unit/test_table_store.py holds
the files fresh, and one table equal to a fresh computation).

The file is JSON, decoded through a closed list of types: it can hold numbers, strings, lists, tuples, dicts,
numpy arrays, the analysis records named in RECORDS and fitted ridge probes, and nothing that runs code.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import sys
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from transformer.intervention import Head

from .lab import FirstFailure, HeadEffect, HeadPattern
from .lesson import ForcedOutcomes, LastLayerSplit
from .mechanism import LengthProbe
from .offsets import OffsetFit
from .patching import PatchScore

FILE_NAME = "tables.json"
ROOT = Path(__file__).resolve().parent.parent
RECORDS = {cls.__name__: cls for cls in (FirstFailure, ForcedOutcomes, Head, HeadEffect, HeadPattern, LastLayerSplit,
                                         LengthProbe, OffsetFit, PatchScore)}
# The code a table's numbers depend on: the model, decoding, data and metrics, the analyses, and the functions
# that call them with the lab's samples (a change to any of them makes every stored table stale).
CODE = ("transformer/*.py", "analysis/*.py", "explorer/lab_runs.py")


class StoreError(ValueError):
    """A tables file that is not what this module writes."""


def encode(value: Any) -> Any:
    """A table as JSON values, tagged so that decode() gives back the same types."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        number = float(value)
        return number if math.isfinite(number) else {"float": repr(number)}
    if isinstance(value, np.ndarray):
        return {"array": [encode(v) for v in value.ravel().tolist()], "dtype": str(value.dtype),
                "shape": list(value.shape)}
    if isinstance(value, tuple):
        return {"tuple": [encode(v) for v in value]}
    if isinstance(value, list):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        return {"dict": [[encode(k), encode(v)] for k, v in value.items()]}
    if _is_ridge(value):
        return {"ridge": {"alpha": value.alpha, "coef": encode(value.coef_), "intercept": encode(value.intercept_)}}
    if dataclasses.is_dataclass(value) and type(value).__name__ in RECORDS:
        return {"record": type(value).__name__,
                "fields": {f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value)}}
    raise StoreError(f"a table cannot hold a {type(value).__name__}")


def _is_ridge(value: Any) -> bool:
    """A fitted probe, told without importing scikit-learn: its import (with SciPy's) took 0.9 s of the first
    page of every server, which stores and reads no probe; a value cannot be a Ridge before it is imported."""
    linear = sys.modules.get("sklearn.linear_model")
    return linear is not None and isinstance(value, linear.Ridge)


def decode(value: Any) -> Any:
    """What encode() was given, rebuilt; StoreError for anything encode() does not write."""
    try:
        return _decode(value)
    except StoreError:
        raise
    except (AttributeError, KeyError, TypeError, ValueError) as err:
        raise StoreError(f"not a stored value: {str(value)[:80]} ({err})") from err


def _decode(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if not isinstance(value, dict) or len(value) not in (1, 2, 3):
        raise StoreError(f"not a stored value: {str(value)[:80]}")
    if "float" in value:
        return float(value["float"])
    if "array" in value:
        if np.dtype(value["dtype"]).kind not in "biuf":          # numbers only, never Python objects
            raise StoreError(f"not a stored array type: {value['dtype']}")
        return np.array([_decode(v) for v in value["array"]], dtype=value["dtype"]).reshape(value["shape"])
    if "tuple" in value:
        return tuple(_decode(v) for v in value["tuple"])
    if "dict" in value:
        return {_hashable(_decode(k)): _decode(v) for k, v in value["dict"]}
    if "ridge" in value:
        from sklearn.linear_model import Ridge      # here, not at the top: see _is_ridge
        fitted = value["ridge"]
        probe = Ridge(alpha=fitted["alpha"])
        probe.coef_, probe.intercept_ = np.asarray(_decode(fitted["coef"]), dtype=float), float(
            _decode(fitted["intercept"]))
        probe.n_features_in_ = probe.coef_.shape[-1]
        return probe
    if "record" in value and isinstance(value["record"], str) and value["record"] in RECORDS:
        return RECORDS[value["record"]](**{k: _decode(v) for k, v in dict(value["fields"]).items()})
    raise StoreError(f"not a stored value: {str(value)[:80]}")


def _hashable(key: Any) -> Any:
    if isinstance(key, list):
        return tuple(key)
    hash(key)                                  # a TypeError (made a StoreError) for a key no dict can hold
    return key


@cache
def code_fingerprint() -> str:
    """sha256 over the code the tables depend on (CODE), file by file in name order."""
    digest = hashlib.sha256()
    for path in sorted(p for pattern in CODE for p in ROOT.glob(pattern)):
        digest.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def fingerprint(checkpoint_dir: Path) -> str:
    """What a stored table depends on: the checkpoint's weights and configuration, and the code."""
    digest = hashlib.sha256(code_fingerprint().encode())
    for name in ("config.json", "model.safetensors"):
        digest.update((Path(checkpoint_dir) / name).read_bytes())
    return digest.hexdigest()


def table_key(group: str, args: tuple) -> str:
    """One table's name in the file: the function's full name and its arguments after the model's key."""
    return json.dumps([group, encode(args)])


def write(checkpoint_dir: Path, tables: dict[tuple[str, tuple], Any]) -> Path:
    """Store (function name, arguments after the key) -> table for one checkpoint, with its fingerprint."""
    path = Path(checkpoint_dir) / FILE_NAME
    entries = sorted([table_key(group, args), encode(value)] for (group, args), value in tables.items())
    path.write_text(json.dumps({"fingerprint": fingerprint(checkpoint_dir), "tables": entries}, indent=0) + "\n")
    return path


@cache
def stored_tables(checkpoint_dir: str) -> dict[str, Any] | None:
    """The checkpoint's stored tables, still encoded, if its file exists, can be read and is fresh; else None
    (the tables are then computed, as without a file)."""
    path = Path(checkpoint_dir) / FILE_NAME
    try:
        saved = json.loads(path.read_text())
        if saved["fingerprint"] != fingerprint(Path(checkpoint_dir)):
            return None
        return {name: value for name, value in saved["tables"]}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):   # no file, or not one write() made
        return None


def lookup(checkpoint_dir: str, group: str, args: tuple) -> tuple[bool, Any]:
    """(True, the table) when `checkpoint_dir` stores this table fresh and readable; (False, None) otherwise."""
    tables = stored_tables(str(checkpoint_dir))
    name = table_key(group, args)
    if tables is None or name not in tables:
        return False, None
    try:
        return True, decode(tables[name])
    except StoreError:
        return False, None
