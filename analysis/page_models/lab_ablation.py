"""Lab: switch heads off. What the learner's chosen heads change on their text, then what each head alone costs
on the lab's held-out sample.

Two records, because the page draws the first before it asks for the sample's table: for an own model that
table is computed only when the learner asks (explorer.on_request stops the page until then), and the learner's
own experiment must stay on screen meanwhile.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from transformer.config import ModelConfig
from transformer.intervention import every_head
from transformer.trace import Kind
from transformer.vocab import Vocab

from ..lab import HeadEffect
from ..labels import EOS_LABEL, KIND_SHORT, attention_axes, visible
from ..run import Run, correct_tokens


def presets(config: ModelConfig) -> dict[str, list[str]]:
    """The 'Try:' buttons: a name, and the heads (as the picker names them) it switches off."""
    heads = [str(h) for h in every_head(config.layers_per_kind, config.n_heads)]
    last_cross = f"cross L{config.n_decoder_layers - 1}"
    return {
        (f"the {config.n_heads} cross heads of the last layer" if config.n_heads > 1 else
         "the cross head of the last layer"): [n for n in heads if n.startswith(last_cross)],
        "one of them": [f"{last_cross} H0"],
        "every encoder head": [n for n in heads if n.startswith("encoder_self")],
        "none": [],
    }


@dataclass(frozen=True)
class SwitchedOff:
    """The learner's text with every head, and with their heads off. T decoder positions (n + 1 steps), Tq query
    rows and Tk key columns of the chosen kind."""

    before_output: str              # what every head working writes, visible
    off_label: str                  # the metric's label over what the heads-off model writes
    p_before: np.ndarray            # (T,) the probability of the correct next character, every head working
    p_after: np.ndarray             # (T,) the same with the heads off
    steps: list[str]                # (T,) the correct characters, then ⟨/s⟩, visible
    probability_caption: str
    rows: list[str]                 # (Tq,)
    cols: list[str]                 # (Tk,)
    was: np.ndarray                 # (Tq, Tk) the chosen head, every head working, correct prefix fed
    now: np.ndarray                 # (Tq, Tk) the same head with the learner's heads off
    changed_title: str
    change_caption: str


def switched_off(vocab: Vocab, config: ModelConfig, before: Run, taught: Run, taught_after: Run,
                 n_off: int, kind: Kind, layer: int, head: int) -> SwitchedOff:
    """`before` is the model's own decoding with every head; `taught` and `taught_after` read the correct output
    (teacher forcing) with every head and with the `n_off` chosen heads off, so every step answers the same
    question; the attention shown is head `head` of `kind`, layer `layer`."""
    correct = correct_tokens(vocab, before.text, config.max_len, before.task)
    p_before, p_after = taught.probability_of(correct), taught_after.probability_of(correct)   # (n + 1,) each
    rows, cols, _, _ = attention_axes(kind, taught.source, taught.decoder_in)
    was, now = taught.trace[kind, layer][head], taught_after.trace[kind, layer][head]         # (Tq, Tk)
    change = np.abs(now - was)
    return SwitchedOff(
        before_output=visible(before.output), off_label=f"{n_off} head(s) off",
        p_before=p_before, p_after=p_after, steps=[visible(s) for s in [*before.target, EOS_LABEL]],
        probability_caption=f"Each step reads the correct prefix (teacher forcing), so both bars answer the same "
                            f"question. Mean: {p_before.mean():.3f} unchanged, {p_after.mean():.3f} changed.",
        rows=rows, cols=cols, was=was, now=now,
        changed_title=f"{KIND_SHORT[kind]}-attention, layer {layer}, head {head}",
        change_caption=f"Largest change of any weight: **{change.max():.3f}**; mean change {change.mean():.4f}. A "
                       "head that is switched off still computes its pattern; what changes is everything that reads "
                       "its output later.")


@dataclass(frozen=True)
class SingleHeadTable:
    """Every head switched off alone on the lab's held-out sample, the costliest first."""

    table: pd.DataFrame             # head, exact match without it, exact match lost; one row per head
    exact_column: str               # the name of the exact-match column (it names the sample's size)
    caption: str


def single_head_table(base: float, effects: list[HeadEffect], sample_size: int, noise_points: float,
                      rule_of_three_points: float) -> SingleHeadTable:
    """`base` and `effects` as analysis.lab.ablation_ranking returns them (effects ranked by drop) on
    `sample_size` words; `noise_points` is one standard error of an exact-match figure at 50 %, and
    `rule_of_three_points` the 95 % bound on a loss when no word broke, both in points."""
    exact_column = f"exact match without it (of {sample_size})"
    free = sum(e.drop == 0 for e in effects)
    caption = (f"With every head working: {base:.1%} exact match on the same {sample_size} held-out words. The "
               f"worst single loss is **{effects[0].head}** ({effects[0].drop:.1%} lost). "
               + (f"{free} head(s) break no word of these, which bounds their cost below about "
                  f"{rule_of_three_points:.1f} points (95 %, the rule of three), not at zero. " if base == 1.0 else
                  f"{free} head(s) lose nothing on balance here (words broken and words fixed may cancel). ")
               + f"Any other figure here carries up to ±{noise_points:.1f} points of sampling noise "
               "(one standard error at 50 %).")
    table = pd.DataFrame({
        "head": [str(e.head) for e in effects],
        exact_column: [e.exact_match for e in effects],
        "exact match lost": [e.drop for e in effects],
    })
    return SingleHeadTable(table=table, exact_column=exact_column, caption=caption)
