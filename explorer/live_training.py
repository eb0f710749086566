"""Training a small model while the learner watches: stoppable, within what a shared server allows.

The training loop is transformer.train.fit, the same as the command line's; this runs it in a thread and
reports progress after every step so a page can draw it while it runs.
"""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass, field, replace
from typing import Callable

import torch

from transformer import checkpoint
from transformer.config import ModelConfig
from transformer.data import TASKS, sample_strings, training_stream
from transformer.metrics import exact_match
from transformer.model import Transformer
from transformer.train import fit
from transformer.vocab import Vocab

LIMITS = {  # what one learner may ask of a shared 2-core server
    "layers": (1, 2), "heads": (1, 4), "d_model": (16, 64), "steps": (10, 3000), "lr": (1e-4, 1e-2),
    "max_len": (2, 12),
}
EVAL_SEED = 11  # held-out strings a live run is scored on


class LiveSettingsError(ValueError):
    """A live-training setting outside what the server allows; the message says the allowed range."""


@dataclass(frozen=True)
class LiveSettings:
    layers: int = 1          # encoder layers, and as many decoder layers
    heads: int = 2
    d_model: int = 32
    steps: int = 800
    lr: float = 3e-3
    max_len: int = 6         # longest training string
    batch_size: int = 64
    seed: int = 0
    task: str = "reverse"    # what it learns to write (transformer.data.TASKS)

    def check(self) -> None:
        for name, (low, high) in LIMITS.items():
            value = getattr(self, name)
            if not low <= value <= high:
                raise LiveSettingsError(f"{name} must be between {low} and {high}, got {value}")
        if self.task not in TASKS:
            raise LiveSettingsError(f"task must be one of {', '.join(TASKS)}, got {self.task!r}")
        if self.d_model % self.heads or self.d_model % 2:
            raise LiveSettingsError(f"d_model ({self.d_model}) must be even and divisible by heads ({self.heads})")

    def config(self, vocab: Vocab) -> ModelConfig:
        return ModelConfig(vocab_size=vocab.size, d_model=self.d_model, n_heads=self.heads,
                           n_encoder_layers=self.layers, n_decoder_layers=self.layers, d_ff=4 * self.d_model,
                           max_len=self.max_len, max_positions=max(64, 2 * self.max_len + 2))


@dataclass(frozen=True)
class Progress:
    steps: int
    step: int = 0
    status: str = "waiting"                           # waiting, running, finished, stopped, failed
    ahead: int = 0                                    # jobs ahead of it in the server's heavy lane, while waiting
    loss: tuple[tuple[int, float], ...] = ()          # (step, training loss) after every step
    exact_match: tuple[tuple[int, float], ...] = ()   # (step, held-out exact match) every eval_every steps
    exact_match_seconds: tuple[float, ...] = ()       # seconds since the start at each of those measurements
    seconds: float = 0.0
    message: str = ""

    @property
    def done(self) -> bool:
        return self.status in ("finished", "stopped", "failed")


@dataclass
class LiveTraining:
    """One run. `run` trains in the calling thread; `progress` may be read from any other at any time."""

    settings: LiveSettings
    eval_every: int = 25
    eval_n: int = 100
    stop: threading.Event = field(default_factory=threading.Event)
    result: checkpoint.Checkpoint | None = None       # the trained model, in memory, once the run has ended
    _progress: Progress | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.settings.check()
        self._progress = Progress(self.settings.steps)

    @property
    def progress(self) -> Progress:
        with self._lock:
            return self._progress

    def _update(self, **changes) -> None:
        with self._lock:
            self._progress = replace(self._progress, **changes)

    def waiting(self, ahead: int) -> None:
        """Told while it waits for its turn in the server's heavy lane."""
        self._update(ahead=ahead)

    def stopped_in_line(self) -> None:
        self._update(status="stopped", ahead=0)

    def run(self, keep_going: Callable[[], bool] = lambda: True) -> Progress:
        """Train until the last step, `stop` is set, or keep_going() turns false (its session has gone).
        Whatever the end, the model trained so far becomes `result` unless the run failed."""
        s = self.settings
        try:
            torch.manual_seed(s.seed)
            vocab = Vocab()
            model = Transformer(s.config(vocab))
            stream = training_stream(s.seed, s.max_len, s.task)
            held_out = sample_strings(self.eval_n, EVAL_SEED, s.max_len, held_out=True)
            random.seed(s.seed)
            start = time.perf_counter()
            self._update(status="running", ahead=0)
            losses, matches, match_seconds = [], [], []

            def after_step(step: int, loss: torch.Tensor, *_) -> None:
                losses.append((step, round(loss.item(), 5)))
                if step % self.eval_every == 0 or step == s.steps:
                    model.eval()
                    matches.append((step, exact_match(model, vocab, held_out, task=s.task).exact_match))
                    match_seconds.append(time.perf_counter() - start)
                self._update(step=step, loss=tuple(losses), exact_match=tuple(matches),
                             exact_match_seconds=tuple(match_seconds), seconds=time.perf_counter() - start)

            fit(model, vocab, stream, steps=s.steps, lr=s.lr, warmup=max(1, s.steps // 10),
                batch_size=s.batch_size, on_step=after_step, task=s.task,
                keep_going=lambda: not self.stop.is_set() and keep_going())
            model.eval()
            finished = self.progress.step == s.steps
            final = exact_match(model, vocab, held_out, task=s.task).exact_match
            metrics = {"task": f"{s.task}, trained live in the app", "settings": s.__dict__,
                       "steps_done": self.progress.step, "train_seconds": round(self.progress.seconds, 1),
                       "held_out": {"n": self.eval_n, "exact_match": final},
                       "curve": [{"step": i, "loss": loss} for i, loss in losses]}
            self.result = checkpoint.Checkpoint(model.requires_grad_(False), vocab, metrics, s.task)
            self._update(status="finished" if finished else "stopped")
        except Exception as err:  # noqa: BLE001 - a failed run is reported on the page, never raised into it
            self._update(status="failed", message=f"{type(err).__name__}: {err}")
        return self.progress
