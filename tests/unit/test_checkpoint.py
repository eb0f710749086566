import json
import pickle
import re
import shutil

import pytest
import torch

from transformer import checkpoint
from transformer.checkpoint import (
    CONFIG, METRICS, WEIGHTS, CorruptCheckpointError, MismatchedCheckpointError, MissingCheckpointFileError,
)
from transformer.vocab import Vocab

from ..conftest import BUNDLED, zip_of


@pytest.fixture
def saved(tmp_path, tiny_model):
    directory = tmp_path / "ckpt"
    checkpoint.save(tiny_model, Vocab(), directory, {"task": "test", "held_out": {"n": 3, "exact_match": 0.5}})
    return directory


def test_round_trip_gives_the_same_logits_and_a_read_only_eval_model(saved, tiny_model):
    loaded = checkpoint.load(saved)
    src, tgt = torch.tensor([[5, 6, 0]]), torch.tensor([[1, 6, 5]])
    assert torch.equal(loaded.model(src, tgt).logits, tiny_model(src, tgt).logits)
    assert loaded.metrics == {"task": "test", "held_out": {"n": 3, "exact_match": 0.5}}
    assert not loaded.model.training
    assert not any(p.requires_grad for p in loaded.model.parameters())
    assert loaded.model.generator.weight is loaded.model.src_embed.lookup.weight


@pytest.mark.parametrize("name", [WEIGHTS, CONFIG, METRICS])
def test_a_missing_file_is_named(saved, name):
    (saved / name).unlink()
    with pytest.raises(MissingCheckpointFileError, match=name):
        checkpoint.load(saved)


def test_a_missing_directory_is_named(tmp_path):
    with pytest.raises(MissingCheckpointFileError, match="nowhere"):
        checkpoint.load(tmp_path / "nowhere")


def test_truncated_weights_are_corrupt(saved):
    data = (saved / WEIGHTS).read_bytes()
    (saved / WEIGHTS).write_bytes(data[: len(data) // 2])
    with pytest.raises(CorruptCheckpointError, match=WEIGHTS):
        checkpoint.load(saved)


def test_config_that_does_not_match_the_weights(saved):
    config = json.loads((saved / CONFIG).read_text())
    config["model"]["d_ff"] = 64
    (saved / CONFIG).write_text(json.dumps(config))
    with pytest.raises(MismatchedCheckpointError, match="d_ff|expand|shape"):
        checkpoint.load(saved)


def test_config_that_is_not_json(saved):
    (saved / CONFIG).write_text("{not json")
    with pytest.raises(CorruptCheckpointError, match=CONFIG):
        checkpoint.load(saved)


class Payload:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_a_pickle_posing_as_weights_is_rejected_and_never_run(saved, tmp_path):
    marker = tmp_path / "payload-ran"
    (saved / WEIGHTS).write_bytes(pickle.dumps(Payload(str(marker))))
    with pytest.raises(CorruptCheckpointError, match=WEIGHTS):
        checkpoint.load(saved)
    assert not marker.exists()
    pickle.loads((saved / WEIGHTS).read_bytes()).close()  # the payload does run when unpickled
    assert marker.exists()


def test_weights_of_another_model_are_mismatched(saved, tmp_path, tiny_model):
    other = tmp_path / "other"
    shutil.copytree(saved, other)
    state = {k: v for k, v in tiny_model.state_dict().items() if "encoder_layers.1" not in k}
    from safetensors.torch import save_file
    save_file({k: v.contiguous() for k, v in state.items() if k != "generator.weight" and k != "tgt_embed.lookup.weight"},
              str(other / WEIGHTS))
    with pytest.raises(MismatchedCheckpointError, match="missing"):
        checkpoint.load(other)


# --- checkpoint zips: download and upload -------------------------------------------------------------


def test_a_zip_round_trip_gives_the_same_model(bundled):
    loaded = checkpoint.from_zip(checkpoint.to_zip(BUNDLED))
    assert all(torch.equal(a, b) for a, b in zip(loaded.model.state_dict().values(), bundled.model.state_dict().values()))
    again = checkpoint.from_zip(checkpoint.to_zip(loaded))   # zipped from memory, as a live run's download is
    assert all(torch.equal(a, b) for a, b in zip(again.model.state_dict().values(), bundled.model.state_dict().values()))
    assert again.metrics == bundled.metrics


def test_bad_uploads_are_refused_with_a_reason_and_nothing_is_unpickled(tmp_path):
    good = {name: (BUNDLED / name).read_bytes() for name in checkpoint.ZIP_MEMBERS}
    marker = tmp_path / "pwned"

    class Payload:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    cases = {
        "not a zip": (b"hello", "not a zip file"),
        "too big": (b"0" * (checkpoint.MAX_UPLOAD_BYTES + 1), "over the 5 MB limit"),
        "missing weights": (zip_of({k: v for k, v in good.items() if k != "model.safetensors"}), "missing model.safetensors"),
        "extra file": (zip_of({**good, "run.py": b"print(1)"}), "unexpected run.py"),
        "path escape": (zip_of({**{f"../{k}": v for k, v in good.items()}}), "side by side"),
        "the same name twice": (zip_of({**good, "sub/config.json": b"{}"}), "side by side"),
        "pickle as weights": (zip_of({**good, "model.safetensors": pickle.dumps(Payload())}), "model.safetensors"),
        "bad config": (zip_of({**good, "config.json": b"{not json"}), "config.json"),
    }
    for label, (data, reason) in cases.items():
        with pytest.raises(checkpoint.CheckpointUploadError, match=re.escape(reason)):
            checkpoint.from_zip(data, name="mine.zip")
    assert not marker.exists()


def test_without_memfd_the_weights_load_from_a_temporary_file_that_is_gone_after(monkeypatch, tmp_path):
    """Off Linux there is no memfd: load_model reads a private temporary file, deleted once read."""
    import os
    import tempfile

    monkeypatch.delattr(os, "memfd_create")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    loaded = checkpoint.load(BUNDLED)
    assert loaded.model.generator.weight is loaded.model.src_embed.lookup.weight   # still tied
    assert list(tmp_path.iterdir()) == []


def test_config_json_names_the_task_and_an_older_file_without_one_is_reversal(tmp_path, tiny_model):
    import json

    from transformer.checkpoint import CorruptCheckpointError, load, save
    from transformer.vocab import Vocab
    save(tiny_model, Vocab(), tmp_path / "sorter", task="sort")
    assert json.loads((tmp_path / "sorter" / "config.json").read_text())["task"] == "sort"
    assert load(tmp_path / "sorter").task == "sort"
    config = json.loads((tmp_path / "sorter" / "config.json").read_text())
    del config["task"]
    (tmp_path / "sorter" / "config.json").write_text(json.dumps(config))
    assert load(tmp_path / "sorter").task == "reverse"
    config["task"] = "shuffle"
    (tmp_path / "sorter" / "config.json").write_text(json.dumps(config))
    with pytest.raises(CorruptCheckpointError, match="task"):
        load(tmp_path / "sorter")
