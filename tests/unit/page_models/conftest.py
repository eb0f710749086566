"""What the page models' tests share: the bundled models, loaded once, and runs made as the pages' cache makes
them (explorer.model.text_run calls analysis.run.make_run with these arguments)."""

from __future__ import annotations

import functools

import pytest

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
