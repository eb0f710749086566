"""The sizes and schedule a run uses when the learner gives none: the long command-line run of the bundled
models, or a quick one chosen for a task (python -m transformer.train --seconds, the Training page).

The quick recipe is what benchmarks.own_task measured: one encoder and one decoder layer learn every single
operation at lengths 1-12 to 99 % held-out exact match in well under a minute on one thread, where two layers
take about twice as long per step for no fewer steps.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from .config import ModelConfig
from .task_rules import TaskSpec


@dataclass(frozen=True)
class Recipe:
    d_model: int
    heads: int
    encoder_layers: int
    decoder_layers: int
    d_ff: int
    batch_size: int
    lr: float
    warmup: int
    steps: int          # the schedule's length: warm-up, then cosine decay to its end
    eval_every: int
    final_n: int        # held-out strings of the final report

    @classmethod
    def command_line(cls) -> "Recipe":
        """The run behind the bundled checkpoints (see checkpoints/*/metrics.json's command)."""
        d = ModelConfig()
        return cls(d.d_model, d.n_heads, d.n_encoder_layers, d.n_decoder_layers, d.d_ff, batch_size=128, lr=3e-3,
                   warmup=150, steps=8000, eval_every=500, final_n=10_000)

    def as_args(self) -> dict:
        return dataclasses.asdict(self)


def recipe_for(task: TaskSpec) -> Recipe:
    """A quick run for the task: one layer each side, a schedule that lengthens with the texts and with
    operations chained, checked every 100 steps."""
    ops = len(task.rule.steps)
    steps = round(2500 * max(1.0, task.max_len / 12) * (1 + 0.5 * (ops - 1)))
    return Recipe(d_model=64, heads=4, encoder_layers=1, decoder_layers=1, d_ff=256, batch_size=64, lr=3e-3,
                  warmup=100, steps=steps, eval_every=100, final_n=1000)
