"""Save and load a checkpoint directory: model.safetensors, config.json, metrics.json.

Loading never unpickles: weights are read with safetensors, the rest is JSON. Every failure is a
CheckpointError that names the file and what is wrong with it.
"""

from __future__ import annotations

import io
import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import torch
from safetensors import SafetensorError
from safetensors.torch import load_file, save_model

from .config import ModelConfig
from .model import Transformer
from .vocab import SPECIALS, Vocab

WEIGHTS, CONFIG, METRICS = "model.safetensors", "config.json", "metrics.json"
SNAPSHOTS, SNAPSHOT_INDEX = "snapshots", "index.json"  # weights saved during training, and what they scored


class CheckpointError(Exception):
    """A checkpoint that cannot be used; the message names the file."""


class MissingCheckpointFileError(CheckpointError):
    pass


class CorruptCheckpointError(CheckpointError):
    pass


class MismatchedCheckpointError(CheckpointError):
    pass


@dataclass(frozen=True)
class Checkpoint:
    model: Transformer
    vocab: Vocab
    metrics: dict = field(default_factory=dict)


def save(model: Transformer, vocab: Vocab, directory: str | Path, metrics: dict | None = None) -> None:
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    save_model(model, str(directory / WEIGHTS))  # shared (tied) tensors are stored once
    config = {"model": model.config.to_dict(), "vocab": {"specials": list(SPECIALS), "characters": vocab.characters}}
    (directory / CONFIG).write_text(json.dumps(config, indent=2) + "\n")
    (directory / METRICS).write_text(json.dumps(metrics or {}, indent=2) + "\n")


def _read_json(path: Path) -> dict:
    if not path.is_file():
        raise MissingCheckpointFileError(f"{path}: file not found")
    try:
        data = json.loads(path.read_text())
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise CorruptCheckpointError(f"{path}: not valid JSON ({err})") from None
    if not isinstance(data, dict):
        raise CorruptCheckpointError(f"{path}: expected a JSON object")
    return data


def load_config(directory: Path) -> tuple[ModelConfig, Vocab]:
    path = directory / CONFIG
    data = _read_json(path)
    try:
        config = ModelConfig.from_dict(data["model"])
        vocab_data = data["vocab"]
        vocab = Vocab(vocab_data["characters"])
        specials = tuple(vocab_data["specials"])
    except (KeyError, TypeError, ValueError) as err:
        raise CorruptCheckpointError(f"{path}: malformed model or vocab section ({err})") from None
    if specials != SPECIALS:
        raise MismatchedCheckpointError(f"{path}: special tokens {specials} differ from {SPECIALS}")
    if vocab.size != config.vocab_size:
        raise MismatchedCheckpointError(
            f"{path}: the vocabulary has {vocab.size} tokens but the model expects {config.vocab_size}"
        )
    return config, vocab


def load_weights(model: Transformer, path: Path) -> None:
    if not path.is_file():
        raise MissingCheckpointFileError(f"{path}: file not found")
    try:
        tensors = load_file(str(path))
    except (SafetensorError, OSError, ValueError) as err:
        raise CorruptCheckpointError(f"{path}: not a readable safetensors file ({err})") from None
    expected = model.state_dict()
    aliases = {name for name in expected if name not in tensors and _is_tied_alias(model, name)}
    missing = sorted(set(expected) - set(tensors) - aliases)
    unexpected = sorted(set(tensors) - set(expected))
    wrong_shape = sorted(n for n in tensors if n in expected and tensors[n].shape != expected[n].shape)
    if missing or unexpected or wrong_shape:
        details = []
        if missing:
            details.append(f"missing {missing[:3]}")
        if unexpected:
            details.append(f"unexpected {unexpected[:3]}")
        if wrong_shape:
            n = wrong_shape[0]
            details.append(f"{n} has shape {tuple(tensors[n].shape)}, config.json implies {tuple(expected[n].shape)}")
        raise MismatchedCheckpointError(f"{path}: weights do not match config.json: {'; '.join(details)}")
    model.load_state_dict(tensors, strict=False)


def _is_tied_alias(model: Transformer, name: str) -> bool:
    """True for a state-dict entry that is the same tensor as another entry (tied embeddings)."""
    target = model.state_dict()[name]
    return any(
        other != name and t.data_ptr() == target.data_ptr() for other, t in model.state_dict().items()
    )


def load(directory: str | Path, device: str = "cpu") -> Checkpoint:
    """A read-only model in eval mode, its vocabulary and its metrics."""
    directory = Path(directory)
    if not directory.is_dir():
        raise MissingCheckpointFileError(f"{directory}: checkpoint directory not found")
    config, vocab = load_config(directory)
    model = Transformer(config)
    load_weights(model, directory / WEIGHTS)
    metrics = _read_json(directory / METRICS)
    model.to(device).eval().requires_grad_(False)
    return Checkpoint(model, vocab, metrics)


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
    entries = _read_json(path).get("snapshots")
    if not isinstance(entries, list) or not all(isinstance(e, dict) and isinstance(e.get("step"), int)
                                                for e in entries):
        raise CorruptCheckpointError(f"{path}: expected a list of snapshots, each with an integer step")
    return sorted(entries, key=lambda e: e["step"])


def load_snapshot(directory: str | Path, step: int) -> Transformer:
    """The checkpoint's model as it was after `step` training steps: read-only, eval mode."""
    directory = Path(directory)
    if step not in {e["step"] for e in snapshot_index(directory)}:
        raise MissingCheckpointFileError(f"{directory / SNAPSHOTS}: no snapshot at step {step}")
    config, _ = load_config(directory)
    model = Transformer(config)
    load_weights(model, directory / SNAPSHOTS / snapshot_file(step))
    return model.eval().requires_grad_(False)


# --- A checkpoint as one zip file: downloaded from the app, or uploaded to it -----------------------

MAX_UPLOAD_BYTES = 5 * 1024 * 1024        # the zip itself
MAX_UNPACKED_BYTES = 20 * 1024 * 1024     # what it may expand to (a zip bomb stops here)
ZIP_MEMBERS = (WEIGHTS, CONFIG, METRICS)


class CheckpointUploadError(CheckpointError):
    """An uploaded file that is not a checkpoint zip this app can read; the message says what is wrong."""


def to_zip(directory: str | Path) -> bytes:
    """The three files of a checkpoint directory, zipped (snapshots are left out)."""
    directory = Path(directory)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in ZIP_MEMBERS:
            archive.write(directory / name, name)
    return buffer.getvalue()


def from_zip(data: bytes, destination: str | Path, name: str = "upload.zip") -> Checkpoint:
    """Check an uploaded zip before anything in it is used: size, names, unpacked size, then load the
    files as safetensors and JSON (never unpickled). Returns the loaded checkpoint."""
    if len(data) > MAX_UPLOAD_BYTES:
        raise CheckpointUploadError(f"{name}: {len(data) / 1e6:.1f} MB is over the {MAX_UPLOAD_BYTES // 2**20} MB limit")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise CheckpointUploadError(f"{name}: not a zip file") from None
    with archive:
        members = {Path(info.filename).name: info for info in archive.infolist() if not info.is_dir()}
        folders = {Path(info.filename).parent for info in archive.infolist() if not info.is_dir()}
        unsafe = [i.filename for i in archive.infolist() if i.filename.startswith(("/", "\\")) or ".." in i.filename]
        if unsafe or len(folders) > 1:
            raise CheckpointUploadError(f"{name}: expected {', '.join(ZIP_MEMBERS)} side by side, "
                                        f"found {sorted(i.filename for i in archive.infolist())[:5]}")
        missing = [m for m in ZIP_MEMBERS if m not in members]
        extra = sorted(set(members) - set(ZIP_MEMBERS))
        if missing or extra:
            raise CheckpointUploadError(
                f"{name}: a checkpoint zip holds exactly {', '.join(ZIP_MEMBERS)}"
                + (f"; missing {', '.join(missing)}" if missing else "") + (f"; unexpected {', '.join(extra)}" if extra else ""))
        if sum(members[m].file_size for m in ZIP_MEMBERS) > MAX_UNPACKED_BYTES:
            raise CheckpointUploadError(f"{name}: unpacks to more than {MAX_UNPACKED_BYTES // 2**20} MB")
        destination = Path(destination)
        destination.mkdir(parents=True, exist_ok=True)
        try:
            for member in ZIP_MEMBERS:
                (destination / member).write_bytes(archive.read(members[member]))
        except (zipfile.BadZipFile, OSError, EOFError) as err:
            raise CheckpointUploadError(f"{name}: the zip is damaged ({err})") from None
    try:
        return load(destination)
    except CheckpointError as err:  # name the file inside the upload, not the temporary folder
        raise CheckpointUploadError(str(err).replace(str(destination), name)) from None
