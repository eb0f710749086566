"""Issue 16: every hostile checkpoint is refused through one door, with a message naming what is wrong,
before the model it describes is built, within bounded memory, and the command lines say so with status 2."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import tracemalloc
import zipfile

import pytest
import torch

from transformer import checkpoint, evaluate, predict
from transformer.checkpoint_schema import MAX_PARAMETERS, MAX_POSITIONS
from transformer.config import ModelConfig
from transformer.model import Transformer

from ..conftest import BUNDLED, ROOT
from drivers.payloads import BROKEN_LATER, HOSTILE, HUGE, MALFORMED, lying_zip


@pytest.mark.parametrize("name", HOSTILE)
def test_every_hostile_zip_is_refused_with_a_message_that_names_what_is_wrong(name):
    data, reason = HOSTILE[name]
    with pytest.raises(checkpoint.CheckpointUploadError) as refused:
        checkpoint.from_zip(data, name="mine.zip")
    message = str(refused.value)
    assert message.startswith("mine.zip") and reason in message, message


@pytest.mark.parametrize("name", [*HUGE, *(n for n in MALFORMED if "weights" not in n),
                                  *(n for n in BROKEN_LATER if "weights" not in n)])
def test_a_bad_config_or_metrics_file_is_refused_before_any_model_is_built(name, monkeypatch):
    built = []
    monkeypatch.setattr(checkpoint, "Transformer", lambda config: built.append(config) or Transformer(config))
    with pytest.raises(checkpoint.CheckpointUploadError):
        checkpoint.from_zip(HOSTILE[name][0], name="mine.zip")
    assert built == []


def test_a_zip_that_lies_about_its_size_is_read_a_chunk_at_a_time_and_stops():
    data = lying_zip(inflated_bytes=200 * 1024 * 1024)   # says 1,000 bytes; inflates to 200 MB
    tracemalloc.start()
    try:
        with pytest.raises(checkpoint.CheckpointUploadError, match="model.safetensors"):
            checkpoint.from_zip(data, name="liar.zip")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 20 * 1024 * 1024, f"{peak / 1e6:.1f} MB allocated while refusing it"


def test_an_honest_header_over_the_limit_and_a_stream_over_it_are_both_stopped():
    too_big = checkpoint.MAX_WEIGHTS_BYTES + 1
    honest = io.BytesIO()
    with zipfile.ZipFile(honest, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in checkpoint.ZIP_MEMBERS:
            archive.writestr(name, b"\0" * too_big if name == checkpoint.WEIGHTS else b"{}")
    with pytest.raises(checkpoint.CheckpointUploadError, match="unpacks to more than"):
        checkpoint.from_zip(honest.getvalue(), name="big.zip")
    with zipfile.ZipFile(io.BytesIO(honest.getvalue())) as archive:   # the same member, read past its header
        info = archive.getinfo(checkpoint.WEIGHTS)
        info.file_size = too_big + 10   # zipfile stops at the header's size; the running count stops first
        with pytest.raises(checkpoint.CheckpointTooLargeError, match="unpacks to more than"):
            checkpoint._inflate(archive, info, checkpoint.MAX_WEIGHTS_BYTES, "big.zip: model.safetensors")


def test_the_parameters_a_config_implies_are_those_the_model_builds():
    for config in [ModelConfig(), ModelConfig(d_model=16, n_heads=2, n_encoder_layers=1, n_decoder_layers=3, d_ff=8,
                                              tie_embeddings=False, norm="post"),
                   ModelConfig(d_model=32, n_heads=1, n_encoder_layers=4, n_decoder_layers=1, d_ff=100)]:
        assert config.implied_parameters() == Transformer(config).n_parameters()


def test_the_limits_leave_room_for_the_bundled_model_and_the_app_s_live_runs(bundled):
    assert bundled.model.n_parameters() * 4 <= MAX_PARAMETERS
    assert bundled.model.config.max_positions * 4 <= MAX_POSITIONS
    from explorer.live_training import LIMITS, LiveSettings
    biggest = LiveSettings(layers=LIMITS["layers"][1], heads=LIMITS["heads"][1], d_model=LIMITS["d_model"][1],
                           max_len=LIMITS["max_len"][1])
    assert biggest.config(bundled.vocab).implied_parameters() < MAX_PARAMETERS


def test_a_checkpoint_folder_goes_through_the_same_checks(tmp_path):
    folder = tmp_path / "ckpt"
    folder.mkdir()
    for name in checkpoint.ZIP_MEMBERS:
        (folder / name).write_bytes((BUNDLED / name).read_bytes())
    config = json.loads((folder / "config.json").read_text())
    config["model"]["max_positions"] = 3_000_000
    (folder / "config.json").write_text(json.dumps(config))
    with pytest.raises(checkpoint.CorruptCheckpointError, match="max_positions"):
        checkpoint.load(folder)
    (folder / "metrics.json").write_bytes(b" " * (2 * 1024 * 1024))
    with pytest.raises(checkpoint.CheckpointTooLargeError, match="metrics.json"):
        checkpoint.load(folder)


def unpacked(name: str, tmp_path) -> str:
    """A checkpoint folder holding the files of one hostile zip (those zipfile itself can read)."""
    folder = tmp_path / "ckpt"
    with zipfile.ZipFile(io.BytesIO(HOSTILE[name][0])) as archive:
        archive.extractall(folder)
    return str(folder)


FOLDER_CASES = [*HUGE, *BROKEN_LATER, *(n for n in MALFORMED if n not in ("an encrypted entry", "a deflate64 entry",
                                                                          "a zip lying about its size"))]


@pytest.mark.parametrize("name", FOLDER_CASES)
def test_the_command_lines_say_what_is_wrong_and_exit_2(name, tmp_path, capsys):
    folder = unpacked(name, tmp_path)
    assert predict.main(["banana", "--checkpoint", folder]) == 2
    assert evaluate.main([folder, "--n", "5"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("error: ") == 2 and HOSTILE[name][1] in err, err


def test_a_real_command_line_run_prints_no_traceback(tmp_path):
    folder = unpacked("NaN weights", tmp_path)
    done = subprocess.run([sys.executable, "-m", "transformer.predict", "banana", "--checkpoint", folder], cwd=ROOT,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 2 and done.stdout == ""
    assert "NaN or infinite" in done.stderr and "Traceback" not in done.stderr


def test_weights_are_float32_after_loading(bundled):
    assert {p.dtype for p in bundled.model.parameters()} == {torch.float32}
