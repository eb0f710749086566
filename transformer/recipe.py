"""The sizes and schedule a run uses when the learner gives none: the long command-line run of the bundled
models, or a quick one chosen for a task (python -m transformer.train --seconds, the Training page).

The quick recipe follows what trial runs on this machine showed (benchmarks.own_task measures it): one encoder
and one decoder layer learn most single operations at lengths 1-12 to 99 % held-out exact match in about half a
minute on one thread. Dedupe must tell a first occurrence from a repeat, which a second encoder layer brings (one
layer each side stopped near 96 % in 90 s). Mirror and two operations that move characters (rotate:2|reverse,
reverse|swap-pairs, sort|reverse, double|reverse) were given a second decoder layer once; one-thread trials of
one layer each side at the higher learning rate reached 99 % sooner on every one of them (49-72 s against
64-85 s, or not within 90 s, for seed 0), since a step costs half as much, so only dedupe chained with another
mover keeps two (with one it stopped near 85 %).
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


MOVERS_FREE = {"copy", "shift"}   # operations that leave every character where it is


def recipe_for(task: TaskSpec) -> Recipe:
    """A quick run for the task: one layer each side unless dedupe needs more (see the module's docstring), a
    schedule that lengthens with the texts and with operations chained, checked every 100 steps."""
    names = [s.operation.name for s in task.rule.steps]
    movers = [n for n in names if n not in MOVERS_FREE]
    dedupe = "dedupe" in names
    encoder = 2 if dedupe else 1
    decoder = 2 if dedupe and len(movers) > 1 else 1
    harder = dedupe or "mirror" in names or len(movers) > 1    # a longer schedule at a higher learning rate
    steps = round(2500 * max(1.0, task.max_len / 12) * (1 + 0.5 * (len(names) - 1)) * (1.2 if harder else 1))
    return Recipe(d_model=64, heads=4, encoder_layers=encoder, decoder_layers=decoder, d_ff=256, batch_size=64,
                  lr=5e-3 if harder else 3e-3, warmup=100, steps=steps, eval_every=100, final_n=1000)
