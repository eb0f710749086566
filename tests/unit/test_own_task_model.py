"""A model of a task no one has trained before: its checkpoint carries the rule, the alphabet and the lengths
through a folder and a zip, its outputs may be longer than its texts, and the command lines train and score it on
its own task."""

import json

import pytest
import torch

from transformer import checkpoint, evaluate, train
from transformer.config import ModelConfig
from transformer.data import correct_tokens, held_out_strings, make_batch, target, training_stream
from transformer.decoding import max_output_tokens
from transformer.model import Transformer
from transformer.task_rules import task_spec
from transformer.vocab import UnknownCharacterError, Vocab

GREEK = "αβγδεζηθικλμνξοπρστυφχψω"


def greek_model(factor: int = 1) -> tuple[Transformer, Vocab]:
    vocab = Vocab(task_spec("reverse", GREEK).characters)
    config = ModelConfig(vocab_size=vocab.size, d_model=16, n_heads=2, n_encoder_layers=1, n_decoder_layers=1,
                         d_ff=32, max_len=8, max_positions=32, output_factor=factor)
    return Transformer(config).eval(), vocab


def test_a_greek_rule_with_its_lengths_comes_back_from_a_folder_and_from_a_zip(tmp_path):
    model, vocab = greek_model()
    checkpoint.save(model, vocab, tmp_path / "own", {}, task="Rotate:2 | shift:1", min_len=3)
    loaded = checkpoint.load(tmp_path / "own")
    assert (loaded.task, loaded.vocab.letters, loaded.min_len) == ("rotate:2|shift:1", GREEK, 3)
    again = checkpoint.from_zip(checkpoint.to_zip(loaded))        # the download a learner uploads later
    assert (again.task, again.vocab.characters, again.min_len) == ("rotate:2|shift:1", " " + GREEK, 3)


def test_a_config_whose_task_writes_longer_than_its_decoder_allows_is_refused(tmp_path):
    model, vocab = greek_model(factor=1)
    checkpoint.save(model, vocab, tmp_path / "own", {}, task="double")
    with pytest.raises(checkpoint.CorruptCheckpointError, match="writes 2 characters per character read"):
        checkpoint.load(tmp_path / "own")
    doubled, _ = greek_model(factor=2)
    checkpoint.save(doubled, vocab, tmp_path / "two", {}, task="double")
    assert checkpoint.load(tmp_path / "two").task == "double"
    assert max_output_tokens(doubled, 8) == 2 * 8 + 1 + 8 > max_output_tokens(model, 8)


def test_the_training_data_of_a_greek_task_is_greek_and_its_targets_follow_the_rule():
    vocab = Vocab(" " + GREEK)
    stream = training_stream(0, 8, "dedupe", vocab.letters, min_len=3)
    texts = [next(stream) for _ in range(400)]
    assert all(3 <= len(t) <= 8 and set(t) <= set(vocab.characters) for t in texts)
    assert sum(len(set(t.replace(" ", ""))) < len(t.replace(" ", "")) for t in texts) > 150   # repeats, for dedupe
    batch = make_batch(texts[:5], vocab, 8, "double")
    assert [vocab.decode(row.tolist()) for row in batch.tgt_out] == [target(t, "double", GREEK) for t in texts[:5]]
    assert len(correct_tokens(vocab, "αβγδεζηθ", 8, "mirror")) == 17
    with pytest.raises(UnknownCharacterError, match="the characters αβγ"):
        vocab.check("αβc", 8)


@pytest.mark.slow   # a real training run of about half a minute
def test_the_command_line_trains_a_greek_rule_to_its_target_and_evaluate_scores_it_on_its_own_task(tmp_path, capsys):
    out = tmp_path / "greek"
    assert train.main(["--out", str(out), "--task", "swap-pairs", "--alphabet", GREEK, "--lengths", "2-6",
                       "--seconds", "120", "--target", "0.95", "--quiet", "--snapshots", ""]) == 0
    capsys.readouterr()
    loaded = checkpoint.load(out)
    metrics = loaded.metrics
    assert (loaded.task, loaded.vocab.letters, loaded.min_len, loaded.model.config.max_len) == (
        "swap-pairs", GREEK, 2, 6)
    assert loaded.model.config.n_encoder_layers == 1               # the quick recipe chose the size
    reached = metrics["settings"]["reached_step"]
    assert reached is not None and metrics["steps_done"] == reached < metrics["steps"]
    checks = [h["exact_match"] for h in metrics["history"]]
    assert checks[-2] >= 0.95 and checks[-1] >= 0.95                # two checks in a row at the target ended it
    assert evaluate.main([str(out), "--n", "300", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    texts = held_out_strings(300, 6, min_len=2, letters=GREEK)
    assert set(report["per_length"]) == {str(n) for n in range(2, 7)} and all(set(t) <= set(" " + GREEK) for t in texts)
    from transformer.metrics import exact_match
    assert report["exact_match"] == exact_match(loaded.model, loaded.vocab, texts, task="swap-pairs").exact_match
    assert report["task"] == "swap-pairs" and report["exact_match"] >= 0.9


def test_the_command_line_names_the_wrong_part_of_a_task(capsys):
    with pytest.raises(SystemExit):
        train.parse_args(["--out", "x", "--task", "reverse|spin"])
    assert "part 2 ('spin') is not an operation" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        train.parse_args(["--out", "x", "--task", "double", "--lengths", "1-60"])
    assert "must run from 1 up to at most 48" in capsys.readouterr().err
    assert evaluate.main(["--task", "rotate:2"]) == 2
    assert "no checkpoint is bundled for rotate:2" in capsys.readouterr().err


def test_a_batch_of_a_doubling_task_is_twice_as_long_and_the_model_takes_it():
    model, vocab = greek_model(factor=2)
    batch = make_batch(["αβγ", "δε"], vocab, 8, "double")
    assert batch.tgt_out.shape == (2, 7)
    assert model(batch.src, batch.tgt_in).logits.shape == (2, 7, vocab.size)
    assert torch.isfinite(model(batch.src, batch.tgt_in).logits).all()
