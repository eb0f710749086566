"""Predict, then train: the attention patterns a class chooses among before a model of its own task trains, and
which of them the trained model's last layer follows.

The options are the task's own position map and those of rules that differ from it (transformer.task_rules),
each written as the source positions it reads on one example text, so no option names the rule. Which one the
model follows is measured, never assumed: over held-out texts of the task, the share of output steps whose
largest last-layer cross-attention weight is on each option's positions, for the head that follows it best.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from transformer.checkpoint import Checkpoint
from transformer.data import SOS, held_out_strings, pad
from transformer.decoding import greedy_batch
from transformer.metrics import hits_by_text
from transformer.task_rules import TaskSpec, TaskSpecError, parse_rule

MAX_OPTIONS = 4
NEIGHBOURS = (   # rules whose maps a class might take for the task's (those of its output length are used)
    "copy", "reverse", "rotate:1", "rotate:-1", "swap-pairs", "rotate:2", "rotate:-2", "sort", "interleave", "dedupe",
    "double", "mirror", "reverse|double", "rotate:1|double")
EXAMPLE_LENGTH = 6
HELD_OUT = 200     # texts the answer is measured on
RESAMPLES = 2000   # of those texts, for the best share's interval
TIE = 0.02         # options whose share is within this of the best are all right (teaching.predict_train)


class NoQuestionError(TaskSpecError):
    """The task's texts are too short for its pattern to differ from any other."""


@dataclass(frozen=True)
class PatternOption:
    rule: str                      # the rule whose position map this is (never shown before the reveal)
    positions: tuple[int, ...]     # the source position each output step reads, on the example text

    @property
    def label(self) -> str:
        return "reads " + " ".join(str(p) for p in self.positions)


def example_text(spec: TaskSpec) -> str:
    """A text of the task on which the options are written: distinct letters out of order (so copy and sort
    part), with one letter again for a rule decided by content (so copy and dedupe part)."""
    n = max(spec.min_len, min(EXAMPLE_LENGTH, spec.max_len))
    order = [(i * 5 + 3) % len(spec.alphabet) for i in range(len(spec.alphabet))]
    letters = "".join(dict.fromkeys(spec.alphabet[i] for i in order))
    text = (letters * (n // len(letters) + 1))[:n]
    if parse_rule(spec.spec).by_content and n >= 3:
        text = text[:-1] + text[0]
    return text


def _variants(spec: TaskSpec) -> list[str]:
    """Neighbours of the task's own rule: its rotations by one more and one less, then NEIGHBOURS."""
    own = [s for s in parse_rule(spec.spec).steps if s.operation.name == "rotate"]
    near = [f"rotate:{s.k + d}" for s in own for d in (1, -1) if s.k + d != 0]
    return near + list(NEIGHBOURS)


def pattern_options(spec: TaskSpec) -> tuple[str, tuple[PatternOption, ...]]:
    """(the example text, up to MAX_OPTIONS options with distinct maps: the task's own and its neighbours',
    those that write as many characters as the task's), in the order of their positions."""
    text = example_text(spec)
    factor = parse_rule(spec.spec).length_factor
    own = PatternOption(spec.spec, tuple(parse_rule(spec.spec).source_positions(text, spec.alphabet)))
    chosen, seen = [own], {own.positions}
    for rule in _variants(spec):
        if len(chosen) == MAX_OPTIONS:
            break
        parsed = parse_rule(rule)
        if parsed.length_factor != factor:
            continue
        positions = tuple(parsed.source_positions(text, spec.alphabet))
        if positions not in seen:
            chosen.append(PatternOption(parsed.spec, positions))
            seen.add(positions)
    if len(chosen) < 2:
        raise NoQuestionError(f"On texts of {spec.min_len} to {spec.max_len} characters, {spec.spec} reads the "
                              "same positions as every rule near it: lengthen the texts to ask the class.")
    return text, tuple(sorted(chosen, key=lambda o: o.positions))


@dataclass(frozen=True)
class Followed:
    """Which option the trained model's last layer follows, measured on held-out texts of its task."""
    shares: dict[str, float]      # option rule -> the best head's share of output steps on its positions
    heads: dict[str, int]         # option rule -> that head
    steps: int                    # output steps counted (the shares' denominator)
    texts: int
    interval: tuple[float, float]  # 95 % of the best share's resamples over texts (the head chosen on them too)
    weights: np.ndarray           # (T, S) the best head's weights on the example text, for the followed option
    rows: list[str]               # (T,) what each output step writes
    cols: list[str]               # (S,) the example text's characters


@torch.inference_mode()
def followed(ckpt: Checkpoint, spec: TaskSpec, options: tuple[PatternOption, ...], text: str,
             n: int = HELD_OUT) -> Followed:
    model, vocab = ckpt.model, ckpt.vocab
    last = model.config.n_decoder_layers - 1
    texts = held_out_strings(n, spec.max_len, min_len=spec.min_len, letters=spec.alphabet)
    sources = [vocab.encode(t, model.config.max_len) for t in texts]
    decoded = greedy_batch(model, sources)
    cross = model(pad(sources), pad([[SOS, *d] for d in decoded]), trace=True).trace["cross", last]   # (B, H, T, S)
    shares, heads, by_text = {}, {}, {}
    for option in options:
        hits, counted = hits_by_text(cross, texts, option.rule, vocab.letters)          # (B, H), (B,)
        head = int(hits.sum(0).argmax())
        shares[option.rule] = float(hits[:, head].sum()) / max(int(counted.sum()), 1)
        heads[option.rule], by_text[option.rule] = head, (hits[:, head].numpy(), counted.numpy())
    best = max(shares, key=shares.get)
    hits, counted = by_text[best]
    picks = np.random.default_rng(0).integers(0, len(texts), (RESAMPLES, len(texts)))   # texts drawn again
    resampled = hits[picks].sum(1) / np.maximum(counted[picks].sum(1), 1)
    interval = (float(np.percentile(resampled, 2.5)), float(np.percentile(resampled, 97.5)))
    source = [vocab.encode(text, model.config.max_len)]
    written = greedy_batch(model, source)[0]
    trace = model(pad(source), pad([[SOS, *written]]), trace=True).trace
    weights = trace["cross", last][0, heads[best]].numpy()                                 # (T, S)
    rows = [vocab.decode([t]).replace(" ", "␣") for t in written] + ["end"]
    return Followed(shares, heads, int(counted.sum()), len(texts), interval, weights, rows,
                    list(text.replace(" ", "␣")))
