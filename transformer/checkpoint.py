"""Save and load a checkpoint directory: model.safetensors, config.json, metrics.json.

Loading never unpickles: weights are read with safetensors, the rest is JSON. Every failure is a
CheckpointError that names the file and what is wrong with it.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import tempfile
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

import safetensors.torch
import torch
from safetensors.torch import save_model

from .checkpoint_schema import (
    MAX_CONFIG_BYTES, MAX_METRICS_BYTES, MAX_PARAMETERS, ConfigFile, MetricsFile, SchemaError, SnapshotIndex, parse,
)
from .data import TASKS
from .model import Transformer
from .task_rules import parse_rule
from .vocab import SPECIALS, Vocab

WEIGHTS, CONFIG, METRICS = "model.safetensors", "config.json", "metrics.json"
SNAPSHOTS, SNAPSHOT_INDEX = "snapshots", "index.json"  # weights saved during training, and what they scored
BUNDLED_ROOT = Path(__file__).resolve().parent.parent / "checkpoints"


def bundled_checkpoint(task: str = "reverse") -> Path:
    """The checkpoint shipped for a task: checkpoints/<task>/ (reverse, copy, sort)."""
    if task not in TASKS:
        raise ValueError(f"unknown task {task!r}: one of {', '.join(TASKS)}")
    return BUNDLED_ROOT / task
MAX_WEIGHTS_BYTES = 4 * MAX_PARAMETERS + 64 * 1024    # float32 weights of the largest model taken, and a header
FILE_LIMITS = {WEIGHTS: MAX_WEIGHTS_BYTES, CONFIG: MAX_CONFIG_BYTES, METRICS: MAX_METRICS_BYTES}
WEIGHT_DTYPE = torch.float32


class CheckpointError(Exception):
    """A checkpoint that cannot be used; the message names the file."""


class MissingCheckpointFileError(CheckpointError):
    pass


class CorruptCheckpointError(CheckpointError):
    """A file that cannot be read, or says something this app does not accept (see checkpoint_schema)."""


class MismatchedCheckpointError(CheckpointError):
    """Weights that do not fit the model config.json describes."""


class CheckpointTooLargeError(CheckpointError):
    """A file, or the model a config describes, above the limits this app reads or builds."""


@dataclass(frozen=True)
class Checkpoint:
    model: Transformer
    vocab: Vocab
    metrics: dict = field(default_factory=dict)
    task: str = "reverse"                        # what it was trained for (a rule of task_rules), from config.json
    min_len: int = 1                             # the shortest text it trained on (max_len is the model's)


def save(model: Transformer, vocab: Vocab, directory: str | Path, metrics: dict | None = None,
         task: str = "reverse", min_len: int = 1) -> None:
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    save_model(model, str(directory / WEIGHTS))  # shared (tied) tensors are stored once
    config = {"model": model.config.to_dict(), "vocab": {"specials": list(SPECIALS), "characters": vocab.characters},
              "task": parse_rule(task).spec}
    if min_len != 1:
        config["min_len"] = min_len
    (directory / CONFIG).write_text(json.dumps(config, indent=2) + "\n")
    (directory / METRICS).write_text(json.dumps(metrics or {}, indent=2) + "\n")


def _read_file(path: Path, limit: int) -> bytes:
    """A file's bytes, reading no more than `limit` + 1 of them."""
    if not path.is_file():
        raise MissingCheckpointFileError(f"{path}: file not found")
    with path.open("rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise CheckpointTooLargeError(f"{path}: larger than {limit:,} bytes, the most this app reads")
    return data


def _checked_config(data: bytes, where: str):
    """config.json's bytes -> (ModelConfig, Vocab, task, min_len), refused before any tensor is made."""
    try:
        parsed = parse(ConfigFile, data)
    except SchemaError as err:
        raise CorruptCheckpointError(f"{where}: {err}") from None
    config = parsed.model.config()
    parameters = config.implied_parameters()
    if parameters > MAX_PARAMETERS:
        raise CheckpointTooLargeError(
            f"{where}: these sizes make a model of {parameters:,} parameters; this app builds at most "
            f"{MAX_PARAMETERS:,}")
    return config, Vocab(parsed.vocab.characters), parse_rule(parsed.task).spec, parsed.min_len


def _checked_metrics(data: bytes, where: str) -> dict:
    try:
        return parse(MetricsFile, data).model_dump(exclude_none=True)
    except SchemaError as err:
        raise CorruptCheckpointError(f"{where}: {err}") from None


def _load_weights(model: Transformer, data: bytes, where: str) -> None:
    """Fill `model` from safetensors bytes: dtype and finiteness checked first, then names and shapes by
    safetensors' own load_model (strict), which knows that a tied matrix is stored once."""
    try:
        tensors = safetensors.torch.load(data)
    except Exception as err:  # noqa: BLE001 - whatever the parser says of foreign bytes, the file is unreadable
        raise CorruptCheckpointError(f"{where}: not a readable safetensors file ({err})") from None
    other_dtype = sorted(n for n, t in tensors.items() if t.dtype != WEIGHT_DTYPE)
    if other_dtype:
        n = other_dtype[0]
        raise CorruptCheckpointError(
            f"{where}: {n} is stored as {str(tensors[n].dtype).removeprefix('torch.')}; every weight must be "
            "float32, the type the model computes in")
    not_finite = sorted(n for n, t in tensors.items() if not bool(torch.isfinite(t).all()))
    if not_finite:
        raise CorruptCheckpointError(f"{where}: {not_finite[0]} holds NaN or infinite values")
    try:
        with _in_memory_file(data) as path:
            safetensors.torch.load_model(model, path, strict=True)
    except RuntimeError as err:
        details = " ".join(str(err).replace("Error(s) in loading state_dict for Transformer:", "").split())
        details = details.replace("Missing key(s) in state_dict:", "missing").replace(
            "Unexpected key(s) in state_dict:", "unexpected")
        raise MismatchedCheckpointError(f"{where}: weights do not match config.json: {details[:300]}") from None


@contextlib.contextmanager
def _in_memory_file(data: bytes) -> Iterator[str]:
    """A path to `data`, which load_model needs: a file in memory (memfd) on Linux, so uploads are never written
    to disk; elsewhere a private temporary file, deleted at once."""
    if not hasattr(os, "memfd_create"):
        with tempfile.TemporaryDirectory(prefix="attention-explorer-weights-") as folder:
            path = Path(folder) / WEIGHTS
            path.write_bytes(data)
            yield str(path)
        return
    fd = os.memfd_create("weights", os.MFD_CLOEXEC)
    try:
        with os.fdopen(fd, "wb", closefd=False) as file:
            file.write(data)
        yield f"/proc/self/fd/{fd}"
    finally:
        os.close(fd)


def from_files(files: dict[str, bytes], where: Callable[[str], str]) -> Checkpoint:
    """The one door every checkpoint comes through, from a folder or a zip: config.json is checked first, the
    model is built only from checked sizes, then the weights and metrics are checked. `where(name)` names a
    file in messages."""
    config, vocab, task, min_len = _checked_config(files[CONFIG], where(CONFIG))
    metrics = _checked_metrics(files[METRICS], where(METRICS))
    model = Transformer(config)
    _load_weights(model, files[WEIGHTS], where(WEIGHTS))
    return Checkpoint(model.eval().requires_grad_(False), vocab, metrics, task, min_len)


def load(directory: str | Path) -> Checkpoint:
    """A read-only model in eval mode, its vocabulary and its metrics."""
    directory = Path(directory)
    if not directory.is_dir():
        raise MissingCheckpointFileError(f"{directory}: checkpoint directory not found")
    files = {name: _read_file(directory / name, limit) for name, limit in FILE_LIMITS.items()}
    return from_files(files, lambda name: str(directory / name))


# --- Snapshots: the same model at points of its own training run ------------------------------------

def snapshot_file(step: int) -> str:
    return f"step_{step:06d}.safetensors"


def save_snapshot(model: Transformer, directory: str | Path, step: int) -> None:
    folder = Path(directory) / SNAPSHOTS
    folder.mkdir(parents=True, exist_ok=True)
    save_model(model, str(folder / snapshot_file(step)))


def write_snapshot_index(directory: str | Path, entries: list[dict]) -> None:
    """entries: one dict per snapshot with at least 'step'; saved beside the weights."""
    folder = Path(directory) / SNAPSHOTS
    folder.mkdir(parents=True, exist_ok=True)
    (folder / SNAPSHOT_INDEX).write_text(json.dumps({"snapshots": entries}, indent=2) + "\n")


def snapshot_index(directory: str | Path) -> list[dict]:
    """The snapshots a checkpoint ships, oldest first; [] when it has none."""
    path = Path(directory) / SNAPSHOTS / SNAPSHOT_INDEX
    if not path.exists():
        return []
    try:
        entries = parse(SnapshotIndex, _read_file(path, MAX_METRICS_BYTES)).model_dump()["snapshots"]
    except SchemaError as err:
        raise CorruptCheckpointError(f"{path}: {err}") from None
    return sorted(entries, key=lambda e: e["step"])


def load_snapshot(directory: str | Path, step: int) -> Transformer:
    """The checkpoint's model as it was after `step` training steps: read-only, eval mode."""
    directory = Path(directory)
    if step not in {e["step"] for e in snapshot_index(directory)}:
        raise MissingCheckpointFileError(f"{directory / SNAPSHOTS}: no snapshot at step {step}")
    config, *_ = _checked_config(_read_file(directory / CONFIG, MAX_CONFIG_BYTES), str(directory / CONFIG))
    model = Transformer(config)
    path = directory / SNAPSHOTS / snapshot_file(step)
    _load_weights(model, _read_file(path, MAX_WEIGHTS_BYTES), str(path))
    return model.eval().requires_grad_(False)


# --- A checkpoint as one zip file: downloaded from the app, or uploaded to it -----------------------

MAX_UPLOAD_BYTES = 5 * 1024 * 1024        # the zip itself
ZIP_MEMBERS = (WEIGHTS, CONFIG, METRICS)
READ_CHUNK = 64 * 1024                    # bytes inflated at a time, so a member can never inflate past its limit
ZIP_METHODS = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflate"}


class CheckpointUploadError(CheckpointError):
    """An uploaded file that is not a checkpoint zip this app can read; the message says what is wrong."""


def to_zip(source: str | Path | Checkpoint) -> bytes:
    """The three files of a checkpoint, zipped (snapshots are left out): from a folder, or from a model held in
    memory (written to a temporary folder that is gone when this returns)."""
    if isinstance(source, Checkpoint):
        with tempfile.TemporaryDirectory(prefix="attention-explorer-zip-") as folder:
            save(source.model, source.vocab, folder, source.metrics, source.task, source.min_len)
            return to_zip(folder)
    directory = Path(source)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in ZIP_MEMBERS:
            archive.write(directory / name, name)
    return buffer.getvalue()


def from_zip(data: bytes, name: str = "upload.zip") -> Checkpoint:
    """Check an uploaded zip before anything in it is used, and load it in memory (no folder is written).

    The zip's size, its member names, each member's encryption and compression, then each member inflated a
    chunk at a time against its own limit, whatever its header claims; then the files go through the same
    checks as a checkpoint folder. Every failure, expected or not, is a CheckpointUploadError naming the
    file and what was wrong."""
    try:
        files = _unpack(data, name)
        return from_files(files, lambda member: f"{name}: {member}")
    except CheckpointUploadError:
        raise
    except CheckpointError as err:
        raise CheckpointUploadError(str(err)) from None
    except Exception as err:  # noqa: BLE001 - one door: a learner sees a message, never a traceback
        raise CheckpointUploadError(f"{name}: could not be read ({type(err).__name__}: {err})") from None


def _unpack(data: bytes, name: str) -> dict[str, bytes]:
    if len(data) > MAX_UPLOAD_BYTES:
        raise CheckpointUploadError(f"{name}: {len(data) / 1e6:.1f} MB is over the {MAX_UPLOAD_BYTES // 2**20} MB limit")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, EOFError, ValueError):
        raise CheckpointUploadError(f"{name}: not a zip file") from None
    with archive:
        entries = [info for info in archive.infolist() if not info.is_dir()]
        found = sorted(info.filename for info in entries)
        folders = {Path(info.filename).parent for info in entries}
        unsafe = [i.filename for i in entries if i.filename.startswith(("/", "\\")) or ".." in i.filename]
        if unsafe or len(folders) > 1:
            raise CheckpointUploadError(f"{name}: expected {', '.join(ZIP_MEMBERS)} side by side, found {found[:5]}")
        members = {Path(info.filename).name: info for info in entries}
        if len(members) < len(entries):
            raise CheckpointUploadError(f"{name}: the same file name appears twice in the zip")
        missing = [m for m in ZIP_MEMBERS if m not in members]
        extra = sorted(set(members) - set(ZIP_MEMBERS))
        if missing or extra:
            raise CheckpointUploadError(
                f"{name}: a checkpoint zip holds exactly {', '.join(ZIP_MEMBERS)}"
                + (f"; missing {', '.join(missing)}" if missing else "") + (f"; unexpected {', '.join(extra[:5])}" if extra else ""))
        return {member: _inflate(archive, members[member], FILE_LIMITS[member], f"{name}: {member}")
                for member in ZIP_MEMBERS}


def _inflate(archive: zipfile.ZipFile, info: zipfile.ZipInfo, limit: int, where: str) -> bytes:
    """One member's bytes, counted as they are inflated: a header that understates the size cannot help."""
    if info.flag_bits & 0x1:
        raise CheckpointUploadError(f"{where}: is encrypted; upload a zip without a password")
    if info.compress_type not in ZIP_METHODS:
        raise CheckpointUploadError(
            f"{where}: is compressed with zip method {info.compress_type}; this app reads only "
            f"{' and '.join(ZIP_METHODS.values())} (what ordinary zip tools write)")
    too_large = CheckpointTooLargeError(f"{where}: unpacks to more than {limit:,} bytes, the most this app reads")
    if info.file_size > limit:
        raise too_large
    out = bytearray()
    try:
        with archive.open(info) as member:
            while chunk := member.read(READ_CHUNK):
                out += chunk
                if len(out) > limit:
                    raise too_large
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError) as err:  # a bad CRC, truncated data
        raise CheckpointUploadError(f"{where}: the zip is damaged ({err})") from None
    return bytes(out)
