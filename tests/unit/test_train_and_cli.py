import json
import subprocess
import sys

import pytest

from transformer import checkpoint, evaluate, predict, train
from transformer.train import learning_rate_factor

from ..conftest import ROOT


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
    assert evaluate.main([str(ROOT / "checkpoints" / "word_reversal"), "--n", "200", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert {"exact_match", "n", "skipped", "per_length"} <= set(report)
    assert report["n"] == 200 and report["skipped"] == 0
    assert report["exact_match"] >= 0.99


def test_evaluate_words_file_skips_what_the_model_cannot_take(tmp_path, capsys):
    words = tmp_path / "words.txt"
    words.write_text("Hello\nbanana\ncafé\n" + "x" * 40 + "\n\nlevel\n")
    assert evaluate.main([str(ROOT / "checkpoints" / "word_reversal"), "--words", str(words), "--json"]) == 0
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
    assert predict.DEFAULT_CHECKPOINT.is_dir()
