"""Hostile checkpoint zips, each with the words the learner must be shown for it.

Built from the bundled checkpoint with one thing changed, so each refusal is about that one thing. Shared
by the unit, AppTest and browser tests and by benchmarks.hostile_uploads.
"""

from __future__ import annotations

import io
import json
import struct
import zipfile
from pathlib import Path

import safetensors.torch
import torch

ROOT = Path(__file__).resolve().parent.parent
BUNDLED = ROOT / "checkpoints" / "reverse"
GOOD = {name: (BUNDLED / name).read_bytes() for name in ("model.safetensors", "config.json", "metrics.json")}


def zip_of(files: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def with_files(**changed: bytes) -> bytes:
    """The bundled checkpoint zipped, with some files replaced (keys: weights, config, metrics)."""
    names = {"weights": "model.safetensors", "config": "config.json", "metrics": "metrics.json"}
    return zip_of({**GOOD, **{names[k]: v for k, v in changed.items()}})


def config_with(**model_fields) -> bytes:
    config = json.loads(GOOD["config.json"])
    config["model"].update(model_fields)
    return json.dumps(config).encode()


def vocab_with(characters) -> bytes:
    config = json.loads(GOOD["config.json"])
    config["vocab"]["characters"] = characters
    return json.dumps(config).encode()


def config_top(**fields) -> bytes:
    return json.dumps({**json.loads(GOOD["config.json"]), **fields}).encode()


def metrics_with(**fields) -> bytes:
    return json.dumps({**json.loads(GOOD["metrics.json"]), **fields}).encode()


def weights_with(change) -> bytes:
    """The bundled weights with `change(name, tensor) -> tensor` applied to the generator's matrix."""
    tensors = safetensors.torch.load(GOOD["model.safetensors"])
    name = "generator.weight"  # tied: the one stored copy of the embedding matrix
    tensors[name] = change(tensors[name])
    return safetensors.torch.save(tensors)


def _patch_headers(data: bytes, field: str, value: int, entries: int | None = None) -> bytes:
    """Rewrite one field of the local and central headers of a zip's first `entries` members (all by default):
    'flags', 'method' or 'size' (the uncompressed size)."""
    local = {"flags": (6, "<H"), "method": (8, "<H"), "size": (22, "<I")}[field]
    central = {"flags": (8, "<H"), "method": (10, "<H"), "size": (24, "<I")}[field]
    out = bytearray(data)
    for signature, (offset, fmt) in ((b"PK\x03\x04", local), (b"PK\x01\x02", central)):
        start, patched = out.find(signature), 0
        while start != -1 and (entries is None or patched < entries):
            struct.pack_into(fmt, out, start + offset, value)
            start, patched = out.find(signature, start + 4), patched + 1
    return bytes(out)


def lying_zip(inflated_bytes: int = 60 * 1024 * 1024) -> bytes:
    """A zip whose headers say model.safetensors is 1,000 bytes while its data inflates to `inflated_bytes`."""
    return _patch_headers(zip_of({**GOOD, "model.safetensors": b"\0" * inflated_bytes}), "size", 1000, entries=1)


def encrypted_zip() -> bytes:
    return _patch_headers(with_files(), "flags", 0x1)


def deflate64_zip() -> bytes:
    return _patch_headers(with_files(), "method", 9)


# name -> (zip, what the learner's message must say). Grouped as the issue numbers them.
HUGE = {
    "d_model 8192 and 64 + 64 layers": (with_files(config=config_with(d_model=8192, n_encoder_layers=64,
                                                                      n_decoder_layers=64)),
                                         "model.d_model: must be at most 256 (found 8192)"),
    "d_model 65536": (with_files(config=config_with(d_model=65536)), "model.d_model: must be at most 256 (found 65536)"),
    "a model over the parameter limit": (with_files(config=config_with(d_model=256, d_ff=1024, n_encoder_layers=4,
                                                                       n_decoder_layers=4)),
                                         "7,381,504 parameters; this app builds at most 1,000,000"),
    "max_positions 3,000,000": (with_files(config=config_with(max_positions=3_000_000)),
                                "model.max_positions: must be at most 512 (found 3000000)"),
    "max_len 10^9": (with_files(config=config_with(max_len=10**9)), "model.max_len: must be at most 511"),
    "max_positions 10^9": (with_files(config=config_with(max_positions=10**9)), "model.max_positions: must be at most 512"),
}
MALFORMED = {
    "an encrypted entry": (encrypted_zip(), "model.safetensors: is encrypted"),
    "a deflate64 entry": (deflate64_zip(), "zip method 9"),
    "a zip lying about its size": (lying_zip(), "model.safetensors: the zip is damaged"),
    "n_heads 0": (with_files(config=config_with(n_heads=0)), "model.n_heads: must be at least 1 (found 0)"),
    "n_heads -4": (with_files(config=config_with(n_heads=-4)), "model.n_heads: must be at least 1 (found -4)"),
    "d_model 0": (with_files(config=config_with(d_model=0)), "model.d_model: must be at least 2 (found 0)"),
    "d_model -64": (with_files(config=config_with(d_model=-64)), "model.d_model: must be at least 2 (found -64)"),
    "d_model 64.0": (with_files(config=config_with(d_model=64.0)), "model.d_model: must be a valid integer (found 64.0)"),
    "n_heads 4.0": (with_files(config=config_with(n_heads=4.0)), "model.n_heads: must be a valid integer (found 4.0)"),
    "a null field": (with_files(config=config_with(d_ff=None)), "model.d_ff: must be a valid integer (found None)"),
    "dropout 5": (with_files(config=config_with(dropout=5)), "model.dropout: must be less than 1 (found 5)"),
    "characters given as a number": (with_files(config=vocab_with(12345)), "vocab.characters: must be a valid string (found 12345)"),
    "metrics.json nested 100,000 deep": (with_files(metrics=b"[" * 100_000 + b"]" * 100_000),
                                        "metrics.json: Invalid JSON: recursion limit exceeded"),
    "config.json not an object": (with_files(config=b"[1, 2, 3]"), "config.json: must be an object"),
}
BROKEN_LATER = {
    "held_out given as a string": (with_files(metrics=metrics_with(held_out="x")), "metrics.json: held_out: must be an object"),
    "exact match given as a string": (with_files(metrics=metrics_with(held_out={"n": 5, "exact_match": "high"})),
                                      "held_out.exact_match: must be a valid number (found 'high')"),
    "exact match of 3": (with_files(metrics=metrics_with(held_out={"n": 5, "exact_match": 3})),
                         "held_out.exact_match: must be at most 1 (found 3)"),
    "a field the app does not know": (with_files(metrics=metrics_with(payload={"a": [1, 2]})),
                                      "payload: is not a field this app reads"),
    "NaN weights": (with_files(weights=weights_with(lambda t: t.index_fill(0, torch.tensor([3]), float("nan")))),
                    "generator.weight holds NaN or infinite values"),
    "infinite weights": (with_files(weights=weights_with(lambda t: t.index_fill(0, torch.tensor([3]), float("inf")))),
                         "generator.weight holds NaN or infinite values"),
    "max_len 0": (with_files(config=config_with(max_len=0)), "model.max_len: must be at least 1 (found 0)"),
    "max_len -5": (with_files(config=config_with(max_len=-5)), "model.max_len: must be at least 1 (found -5)"),
    "27 copies of 'a' as the vocabulary": (with_files(config=vocab_with("a" * 27)), "must start with the space"),
    "a vocabulary repeating a letter": (with_files(config=vocab_with(" " + "a" * 26)), "repeats 'a'"),
    "a vocabulary with a combining mark": (with_files(config=vocab_with(" abcdefghijklmnopqrstuvwxy\u0301")),
                                            "letters and digits only"),
    "a task no rule names": (with_files(config=config_top(task="import os")), "is not an operation"),
    "int8 weights": (with_files(weights=weights_with(lambda t: t.to(torch.int8))), "generator.weight is stored as int8; every weight must be float32"),
    "bool weights": (with_files(weights=weights_with(lambda t: t > 0)), "generator.weight is stored as bool"),
    "complex weights": (with_files(weights=weights_with(lambda t: t.to(torch.complex64))), "generator.weight is stored as complex64"),
    "float16 weights": (with_files(weights=weights_with(lambda t: t.to(torch.float16))), "generator.weight is stored as float16"),
}
HOSTILE = {**HUGE, **MALFORMED, **BROKEN_LATER}


def endless_model(max_len: int = 511, d_model: int = 192, d_ff: int = 512):
    """A model the upload checks accept (under the parameter limit, positions up to 511) that never writes EOS:
    its final LayerNorm is flattened to one constant vector that only the letter 'a' reads, so every step writes
    'a'. A decoding bounded by the model's own max_len would run 512 steps for any word."""
    from transformer.config import ModelConfig
    from transformer.model import Transformer
    from transformer.vocab import Vocab

    config = ModelConfig(d_model=d_model, n_heads=4, n_encoder_layers=1, n_decoder_layers=1, d_ff=d_ff,
                         max_len=max_len, max_positions=max_len + 1, tie_embeddings=False)
    torch.manual_seed(0)
    model = Transformer(config).eval()
    letter_a = Vocab().encode("a", 1)[0]
    with torch.no_grad():
        constant = torch.randn(d_model)
        model.decoder_norm.weight.zero_()
        model.decoder_norm.bias.copy_(constant)
        model.generator.weight.zero_()
        model.generator.weight[letter_a] = constant
    return model


def endless_zip(max_len: int = 511) -> bytes:
    """endless_model as an upload: a valid checkpoint zip of a reverser that never stops."""
    from transformer import checkpoint
    from transformer.vocab import Vocab

    return checkpoint.to_zip(checkpoint.Checkpoint(endless_model(max_len), Vocab(), {"task": "reverse"}))
