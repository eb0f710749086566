"""The models both halves of the decoding tests run on (tests/unit/test_incremental_decoding.py and
test_drafted_decoding.py): the bundled checkpoints and two small random ones built otherwise."""

from __future__ import annotations

import pytest
import torch

from transformer.checkpoint import bundled_checkpoint, load
from transformer.config import ModelConfig
from transformer.model import Transformer
from transformer.vocab import EOS

TASKS = ("reverse", "copy", "sort")


@pytest.fixture(scope="module")
def models():
    """Each model with its vocabulary: the bundled checkpoints, and two small random ones built otherwise."""
    found = {task: load(bundled_checkpoint(task)) for task in TASKS}
    pairs = {task: (c.model, c.vocab) for task, c in found.items()}
    vocab = found["reverse"].vocab
    for name, config in (("post-norm", ModelConfig(d_model=32, n_heads=4, d_ff=64, max_len=12, norm="post")),
                         ("untied", ModelConfig(d_model=32, n_heads=4, d_ff=64, max_len=12, tie_embeddings=False))):
        torch.manual_seed(3)
        pairs[name] = (Transformer(config).eval(), vocab)
    return pairs


def written(run) -> list[int]:
    """A run's tokens before its end symbol, as greedy_batch returns them."""
    fed = list(run.fed_ids)
    return fed[:fed.index(EOS)] if EOS in fed else fed
