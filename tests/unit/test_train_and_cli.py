import json
import subprocess
import sys

import pytest
import torch

from transformer import checkpoint, evaluate, train
from transformer.train import learning_rate_factor

from ..conftest import ROOT

pytestmark = pytest.mark.slow   # left out of the quick tier: training runs and the command lines in their own processes


def test_learning_rate_warms_up_then_decays():
    factors = [learning_rate_factor(s, 10, 100) for s in range(100)]
    assert factors[0] == pytest.approx(0.1) and factors[9] == pytest.approx(1.0)
    assert factors[50] < 1.0 and factors[-1] == pytest.approx(0.05, abs=0.01)


def test_a_few_training_steps_write_a_loadable_checkpoint_and_lower_the_loss(tmp_path):
    out = tmp_path / "tiny"
    args = train.parse_args(["--out", str(out), "--steps", "40", "--d-model", "16", "--d-ff", "32", "--max-len", "6",
                             "--eval-every", "20", "--eval-n", "50", "--final-n", "100", "--batch-size", "32",
                             "--warmup", "5", "--quiet"])
    metrics = train.train(args)
    assert [h["step"] for h in metrics["history"]] == [1, 20, 40]
    losses = [h["loss"] for h in metrics["history"]]
    assert losses[-1] < losses[0] - 0.2  # it learned: the loss fell from about log(30) = 3.4
    loaded = checkpoint.load(out)
    assert loaded.model.config.max_len == 6 and loaded.metrics["steps"] == 40
    assert set(metrics["held_out"]["per_length"]) == {str(n) for n in range(1, 7)}
    assert len(metrics["cross_attention_alignment"]["layer_1"]) == 4


def test_evaluate_json_reports_exact_match_per_length(bundled, capsys):
    assert evaluate.main([str(ROOT / "checkpoints" / "reverse"), "--n", "200", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert {"exact_match", "n", "skipped", "per_length"} <= set(report)
    assert report["n"] == 200 and report["skipped"] == 0
    assert report["exact_match"] >= 0.99


def test_evaluate_words_file_skips_what_the_model_cannot_take(tmp_path, capsys):
    words = tmp_path / "words.txt"
    words.write_text("Hello\nbanana\ncafé\n" + "x" * 60 + "\n\nlevel\n")
    assert evaluate.main([str(ROOT / "checkpoints" / "reverse"), "--words", str(words), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["n"] == 3 and report["skipped"] == 2
    assert report["exact_match"] == 1.0


def test_evaluate_names_a_missing_checkpoint(tmp_path, capsys):
    assert evaluate.main([str(tmp_path / "nope"), "--n", "5"]) == 2
    assert "nope" in capsys.readouterr().err


def test_predict_prints_the_reversal_or_the_error():
    ok = subprocess.run([sys.executable, "-m", "transformer.predict", "hello world"], cwd=ROOT,
                        capture_output=True, text=True, check=False)
    assert ok.returncode == 0 and ok.stdout.strip() == "dlrow olleh"
    bad = subprocess.run([sys.executable, "-m", "transformer.predict", "Hi!"], cwd=ROOT,
                         capture_output=True, text=True, check=False)
    assert bad.returncode == 2 and "'!' at position 3" in bad.stderr and "lowercased" in bad.stderr
    sorted_ = subprocess.run([sys.executable, "-m", "transformer.predict", "hello world", "--task", "sort"], cwd=ROOT,
                             capture_output=True, text=True, check=False)
    assert sorted_.returncode == 0 and sorted_.stdout.rstrip("\n") == " dehllloorw"    # the space sorts first
    wrong = subprocess.run([sys.executable, "-m", "transformer.predict", "hello", "--task", "copy", "--checkpoint",
                            str(ROOT / "checkpoints" / "sort")], cwd=ROOT, capture_output=True, text=True, check=False)
    assert wrong.returncode == 2 and "trained to sort" in wrong.stderr and "not to copy" in wrong.stderr


def tiny_run(out, *extra):
    return train.parse_args(["--out", str(out), "--steps", "40", "--d-model", "16", "--d-ff", "32", "--max-len", "6",
                             "--eval-every", "20", "--eval-n", "50", "--final-n", "50", "--batch-size", "32",
                             "--warmup", "5", "--curve-every", "10", "--curve-n", "30", "--quiet", *extra])


def test_training_saves_snapshots_with_their_scores_and_curves(tmp_path):
    out = tmp_path / "snap"
    args = tiny_run(out, "--snapshots", "0,0.5,1")
    metrics = train.train(args)
    index = checkpoint.snapshot_index(out)
    assert [e["step"] for e in index] == [0, 20, 40] and [e["fraction"] for e in index] == [0, 0.5, 1]
    assert [c["step"] for c in metrics["curve"]] == [0, 10, 20, 30, 40]
    final = checkpoint.load(out).model
    last = checkpoint.load_snapshot(out, 40)
    first = checkpoint.load_snapshot(out, 0)
    assert all(torch.equal(a, b) for a, b in zip(last.state_dict().values(), final.state_dict().values()))
    assert not torch.equal(first.src_embed.lookup.weight, final.src_embed.lookup.weight)
    vocab = checkpoint.load(out).vocab
    validation = train.sample_strings(50, train.VALIDATION_SEED, 6, held_out=True)
    again = train.Watch(vocab, validation, 30).measure(first)       # the recorded numbers are the snapshot's own
    assert again == {k: index[0][k] for k in again}
    assert index[0]["loss"] > index[-1]["loss"]


def test_snapshots_do_not_change_the_weights_training_produces(tmp_path):
    train.train(tiny_run(tmp_path / "with", "--snapshots", "0,0.25,0.5,1"))
    train.train(tiny_run(tmp_path / "without", "--snapshots", ""))
    a, b = checkpoint.load(tmp_path / "with").model, checkpoint.load(tmp_path / "without").model
    assert all(torch.equal(x, y) for x, y in zip(a.state_dict().values(), b.state_dict().values()))
    assert checkpoint.snapshot_index(tmp_path / "without") == []


def test_missing_and_corrupt_snapshots_are_named(tmp_path):
    out = tmp_path / "snap"
    train.train(tiny_run(out, "--snapshots", "0,1"))
    with pytest.raises(checkpoint.MissingCheckpointFileError, match="no snapshot at step 7"):
        checkpoint.load_snapshot(out, 7)
    (out / "snapshots" / "step_000000.safetensors").write_bytes(b"\x80\x04not weights")
    with pytest.raises(checkpoint.CorruptCheckpointError, match="step_000000.safetensors"):
        checkpoint.load_snapshot(out, 0)
    (out / "snapshots" / "index.json").write_text('{"snapshots": [{"step": "zero"}]}')
    with pytest.raises(checkpoint.CorruptCheckpointError, match="index.json"):
        checkpoint.snapshot_index(out)


def test_training_takes_the_task_and_evaluate_never_scores_a_checkpoint_on_another(tmp_path, capsys):
    out = tmp_path / "copier"
    args = train.parse_args(["--out", str(out), "--task", "copy", "--steps", "120", "--d-model", "16", "--d-ff", "32",
                             "--max-len", "4", "--eval-every", "60", "--eval-n", "50", "--final-n", "200",
                             "--batch-size", "64", "--warmup", "10", "--snapshots", "", "--quiet"])
    metrics = train.train(args)
    assert checkpoint.load(out).task == "copy" and metrics["task"].startswith("copy:")
    capsys.readouterr()                                             # what training printed
    assert evaluate.main([str(out), "--n", "200", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["task"] == "copy" and report["exact_match"] == pytest.approx(metrics["held_out"]["exact_match"])
    assert evaluate.main([str(out), "--n", "20", "--task", "reverse"]) == 2
    assert "was trained to copy" in capsys.readouterr().err
