"""Save and load a checkpoint directory: model.safetensors, config.json, metrics.json.

Loading never unpickles: weights are read with safetensors, the rest is JSON. Every failure is a
CheckpointError that names the file and what is wrong with it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import torch
from safetensors import SafetensorError
from safetensors.torch import load_file, save_model

from .config import ModelConfig
from .model import Transformer
from .vocab import SPECIALS, Vocab

WEIGHTS, CONFIG, METRICS = "model.safetensors", "config.json", "metrics.json"


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
