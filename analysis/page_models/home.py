"""Home: what the model writes for the learner's text, and its architecture with the checkpoint's real sizes."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from transformer.checkpoint import Checkpoint
from transformer.config import ModelConfig

from ..labels import ffn_formula, visible
from ..run import Run
from ..tasks import words


@dataclass(frozen=True)
class HomeView:
    typed: str                 # the text, spaces shown
    output: str                # what the model writes
    written: str               # the same, spaces shown ("(nothing)" when empty)
    right: bool                # the output is the task's target
    verdict: str               # the answer metric's delta
    steps_caption: str
    config: ModelConfig        # the sizes the architecture diagram draws
    norm_sentence: str         # pre-norm or post-norm, and what that means
    ffn_sentence: str
    ffn_formula: str           # LaTeX, with this model's shapes
    ffn_caption: str
    tying_sentence: str
    parameters: pd.DataFrame   # one row per part of the model: part, parameters
    total_caption: str


def home_view(ckpt: Checkpoint, text: str, run: Run) -> HomeView:
    """`run` is the model's greedy run on `text`."""
    task, c = words(ckpt.task), ckpt.model.config
    right = run.output == run.target
    counts = ckpt.model.parameter_counts()
    return HomeView(
        typed=visible(text), output=run.output, written=visible(run.output) or "(nothing)", right=right,
        verdict=f"correct: {task.output}" if right else f"not exactly {task.output}",
        steps_caption=f"{len(run.chosen_ids)} decoding steps: {len(run.output)} characters, then the end symbol "
                      "⟨/s⟩. See them one by one on *Decode step by step*.",
        config=c,
        norm_sentence=f"This checkpoint uses **{'pre-norm' if c.norm == 'pre' else 'post-norm'}**: every sublayer "
                      "(attention or feed-forward) reads a LayerNorm of its input and adds its result back onto the "
                      "residual stream, and each stack ends with one final LayerNorm. Post-norm, the original 2017 "
                      "layout, normalises *after* the addition instead. Pre-norm trains more stably without a careful "
                      "warm-up, which is why most modern models use it.",
        ffn_sentence=f"Each layer's feed-forward network widens every position from {c.d_model} to {c.d_ff} numbers, "
                     f"applies ReLU, and narrows back to {c.d_model}. It acts on **each position alone**: the same "
                     "weights, no mixing across positions. Only attention moves information between positions.",
        ffn_formula=ffn_formula(c.d_model, c.d_ff),
        ffn_caption=f"x is one position's row of {c.d_model} numbers, multiplied from the left, as in the code and on "
                    f"*Inside one head*. PyTorch stores each matrix transposed: W₁ is `expand.weight` ({c.d_ff} × "
                    f"{c.d_model}) transposed.",
        tying_sentence=f"**Tied.** The source embedding, the target embedding and the generator share one "
                       f"{c.vocab_size} × {c.d_model} matrix: the generator scores each next token by its dot "
                       "product with that token's embedding." if c.tie_embeddings else
                       "**Not tied.** The source embedding, target embedding and generator each have their own matrix.",
        parameters=pd.DataFrame({"part": list(counts), "parameters": list(counts.values())}),
        total_caption=f"{ckpt.model.n_parameters():,} parameters in all.")
