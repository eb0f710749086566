"""Home's record against each bundled model's answer and sizes, and against a small untied model made here (the
bundled ones all tie their embeddings)."""

from __future__ import annotations

import pytest
import torch

from analysis.page_models.home import home_view
from analysis.run import make_run
from transformer.checkpoint import Checkpoint
from transformer.config import ModelConfig
from transformer.model import Transformer
from transformer.vocab import Vocab

from .conftest import checkpoint, run_of


@pytest.mark.parametrize("task, text, written", [("reverse", "banana", "ananab"), ("copy", "ab cd", "ab␣cd"),
                                                 ("sort", "hello world", "␣dehllloorw")])
def test_each_model_answers_and_the_verdict_and_step_count_follow_its_output(task, text, written):
    run = run_of(text, task)
    view = home_view(checkpoint(task), text, run)
    assert view.typed == text.replace(" ", "␣") and view.output == run.output and view.written == written
    output = {"reverse": "the reversal", "copy": "the copy", "sort": "the sorted text"}[task]
    assert view.right and view.verdict == f"correct: {output}"
    assert view.steps_caption.startswith(f"{len(text) + 1} decoding steps: {len(text)} characters, then the end "
                                         "symbol ⟨/s⟩.")


def test_a_wrong_answer_is_called_so():
    """The sorter writes the pangram with one space too many (the reason tests/app/test_tasks.py gives too)."""
    text = "the quick brown fox jumps over the lazy dog"
    run = run_of(text, "sort")
    view = home_view(checkpoint("sort"), text, run)
    assert run.output != "".join(sorted(text))
    assert not view.right and view.verdict == "not exactly the sorted text"
    assert view.written == run.output.replace(" ", "␣")


def test_the_architecture_sentences_carry_the_checkpoints_own_sizes(reverser):
    text = "hello"
    view = home_view(reverser, text, run_of(text))
    c = reverser.model.config
    assert view.config == c
    assert "This checkpoint uses **pre-norm**" in view.norm_sentence and c.norm == "pre"
    assert f"from {c.d_model} to {c.d_ff} numbers" in view.ffn_sentence and f"narrows back to {c.d_model}" in (
        view.ffn_sentence)
    assert rf"W_1 \in \mathbb{{R}}^{{{c.d_model}\times{c.d_ff}}}" in view.ffn_formula
    expand = reverser.model.encoder_layers[0].feed_forward.expand.weight         # PyTorch's (out, in)
    assert f"`expand.weight` ({expand.shape[0]} × {expand.shape[1]}) transposed" in view.ffn_caption
    assert view.tying_sentence.startswith("**Tied.**") and f"one {c.vocab_size} × {c.d_model} matrix" in (
        view.tying_sentence)
    total = sum(p.numel() for p in reverser.model.parameters())                   # a tied matrix counted once
    assert view.parameters["parameters"].sum() == total
    assert view.total_caption == f"{total:,} parameters in all."
    assert list(view.parameters["part"])[0] == "embeddings (shared with the generator)"


def test_an_untied_post_norm_model_is_described_as_one():
    torch.manual_seed(0)
    config = ModelConfig(vocab_size=Vocab().size, d_model=16, n_heads=2, n_encoder_layers=1, n_decoder_layers=1,
                         d_ff=32, max_len=8, max_positions=32, norm="post", tie_embeddings=False)
    ckpt = Checkpoint(Transformer(config).eval(), Vocab(), {}, "copy")
    run = make_run(ckpt.model, ckpt.vocab, "abc", task="copy")
    view = home_view(ckpt, "abc", run)
    assert "This checkpoint uses **post-norm**" in view.norm_sentence
    assert view.tying_sentence.startswith("**Not tied.**")
    assert "generator" in list(view.parameters["part"])
    assert view.parameters["parameters"].sum() == sum(p.numel() for p in ckpt.model.parameters())
    assert view.written == (run.output.replace(" ", "␣") or "(nothing)")
    assert view.verdict == ("correct: the copy" if run.output == "abc" else "not exactly the copy")
