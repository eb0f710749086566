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
from transformer.data import sample_strings, training_stream
from transformer.metrics import exact_match
from transformer.model import Transformer
from transformer.recipe import recipe_for
from transformer.task_rules import LATIN, TaskSpec, TaskSpecError, task_spec
from transformer.train import TARGET_CHECKS, fit
from transformer.vocab import Vocab

LIMITS = {  # what one learner may ask of a shared 2-core server
    "layers": (1, 2), "heads": (1, 4), "d_model": (16, 64), "steps": (10, 4000), "lr": (1e-4, 1e-2),
    "max_len": (2, 12), "seconds": (5, 300),
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
    task: str = "reverse"    # what it learns to write: any rule of transformer.task_rules
    alphabet: str = LATIN    # the letters its texts are drawn from, besides the space
    min_len: int = 1         # shortest training string
    decoder_layers: int | None = None   # None: as many as `layers`
    target: float | None = None         # stop once held-out exact match reaches it on TARGET_CHECKS checks in a row
    seconds: float = 300.0              # stop after this many seconds of training, whatever the steps

    @classmethod
    def for_task(cls, spec: TaskSpec, seconds: float = 60.0, target: float = 0.99, seed: int = 0) -> "LiveSettings":
        """The quick recipe for the task (transformer.recipe), bounded by this server's limits."""
        r = recipe_for(spec)
        return cls(layers=r.encoder_layers, heads=r.heads, d_model=r.d_model,
                   steps=min(r.steps, LIMITS["steps"][1]), lr=r.lr, max_len=spec.max_len, batch_size=r.batch_size,
                   seed=seed, task=spec.spec, alphabet=spec.alphabet, min_len=spec.min_len,
                   decoder_layers=r.decoder_layers, target=target, seconds=seconds)

    @property
    def spec(self) -> TaskSpec:
        return task_spec(self.task, self.alphabet, f"{self.min_len}-{self.max_len}")

    @property
    def n_decoder_layers(self) -> int:
        return self.layers if self.decoder_layers is None else self.decoder_layers

    def check(self) -> None:
        for name, (low, high) in LIMITS.items():
            value = getattr(self, name)
            if not low <= value <= high:
                raise LiveSettingsError(f"{name} must be between {low} and {high}, got {value}")
        if not LIMITS["layers"][0] <= self.n_decoder_layers <= LIMITS["layers"][1]:
            raise LiveSettingsError(f"decoder layers must be between {LIMITS['layers'][0]} and "
                                    f"{LIMITS['layers'][1]}, got {self.n_decoder_layers}")
        try:
            self.spec
        except TaskSpecError as err:
            raise LiveSettingsError(str(err)) from None
        if self.d_model % self.heads or self.d_model % 2:
            raise LiveSettingsError(f"d_model ({self.d_model}) must be even and divisible by heads ({self.heads})")
        if self.target is not None and not 0 < self.target <= 1:
            raise LiveSettingsError(f"the target exact match must be a share from 0 to 1, got {self.target}")

    def config(self, vocab: Vocab) -> ModelConfig:
        factor = self.spec.rule.length_factor
        return ModelConfig(vocab_size=vocab.size, d_model=self.d_model, n_heads=self.heads,
                           n_encoder_layers=self.layers, n_decoder_layers=self.n_decoder_layers,
                           d_ff=4 * self.d_model, max_len=self.max_len,
                           max_positions=max(64, factor * self.max_len + 2), output_factor=factor)


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
    vocab_size: int = 30
    task: str = "reverse"
    target: float | None = None
    reached: bool = False
    time_limit: float = 300.0

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
        s = self.settings
        self._progress = Progress(s.steps, vocab_size=Vocab(s.spec.characters).size, task=s.spec.spec,
                                  target=s.target, time_limit=s.seconds)

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
            vocab = Vocab(s.spec.characters)
            model = Transformer(s.config(vocab))
            stream = training_stream(s.seed, s.max_len, s.task, vocab.letters, s.min_len)
            held_out = sample_strings(self.eval_n, EVAL_SEED, s.max_len, held_out=True, min_len=s.min_len,
                                      letters=vocab.letters)
            random.seed(s.seed)
            start = time.perf_counter()
            self._update(status="running", ahead=0)
            losses, matches, match_seconds = [], [], []
            met = [0]   # checks in a row at the target

            def after_step(step: int, loss: torch.Tensor, *_) -> None:
                losses.append((step, round(loss.item(), 5)))
                if step % self.eval_every == 0 or step == s.steps:
                    model.eval()
                    score = exact_match(model, vocab, held_out, task=s.task).exact_match
                    matches.append((step, score))
                    match_seconds.append(time.perf_counter() - start)
                    met[0] = met[0] + 1 if s.target is not None and score >= s.target else 0
                self._update(step=step, loss=tuple(losses), exact_match=tuple(matches),
                             exact_match_seconds=tuple(match_seconds), seconds=time.perf_counter() - start)

            def go_on() -> bool:
                return (not self.stop.is_set() and keep_going() and met[0] < TARGET_CHECKS
                        and time.perf_counter() - start < s.seconds)

            fit(model, vocab, stream, steps=s.steps, lr=s.lr, warmup=max(1, min(s.steps // 10, 100)),
                batch_size=s.batch_size, on_step=after_step, task=s.task, keep_going=go_on)
            model.eval()
            reached = met[0] >= TARGET_CHECKS
            finished = self.progress.step == s.steps or reached
            final = exact_match(model, vocab, held_out, task=s.task).exact_match
            metrics = {"task": f"{s.task}, trained live in the app", "settings": s.__dict__,
                       "steps_done": self.progress.step, "train_seconds": round(self.progress.seconds, 1),
                       "held_out": {"n": self.eval_n, "exact_match": final},
                       "curve": [{"step": i, "loss": loss} for i, loss in losses]}
            self.result = checkpoint.Checkpoint(model.requires_grad_(False), vocab, metrics, s.task, s.min_len)
            self._update(status="finished" if finished else "stopped", reached=reached)
        except Exception as err:  # noqa: BLE001 - a failed run is reported on the page, never raised into it
            self._update(status="failed", message=f"{type(err).__name__}: {err}")
        return self.progress
