"""What the page models' tests share: the bundled models, loaded once, and runs made as the pages' cache makes
them (explorer.cache.text_run calls analysis.run.make_run with these arguments)."""

from __future__ import annotations

import functools

import pytest
import torch

from analysis.run import Decoding, Run, make_run
from transformer.checkpoint import Checkpoint, bundled_checkpoint, load
from transformer.intervention import NO_INTERVENTION, Intervention


@functools.cache
def checkpoint(task: str = "reverse") -> Checkpoint:
    return load(bundled_checkpoint(task))


def run_of(text: str, task: str = "reverse", how: Decoding = Decoding(),
           intervention: Intervention = NO_INTERVENTION) -> Run:
    ckpt = checkpoint(task)
    return make_run(ckpt.model, ckpt.vocab, text, how, intervention, None, ckpt.task)


@pytest.fixture(scope="session")
def reverser() -> Checkpoint:
    return checkpoint("reverse")


@pytest.fixture(autouse=True, scope="package")
def one_thread():
    """One intra-op thread, as the server runs (explorer.cache): on this shared 2-core machine a second thread
    made these tiny passes some 40 times slower, not faster."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
