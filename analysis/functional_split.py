"""Position against content in a head's scores, split by what a part of the stream does rather than by where it
came from.

The raw split (analysis.circuits.score_split) names the parts of a stream by their source: the scaled embedding,
the sinusoidal rows, and what the sublayers wrote. Past the first sublayer the encoder has rewritten where each
character stands into what it wrote, so the raw position·position term of a cross head is tiny even when the head
looks up a place: the position went into "with what layers wrote".

Here the position-like part of a stream at a position is its mean over many random texts of the same length,
decoded towards their own answers: it depends on the position and the length alone, whatever the letters. The
content-like part is the rest, the stream minus that mean: what this text's letters changed there. With every
LayerNorm frozen at the text's own mean and spread, as in the raw split, the two parts go through the head's W_Q
and W_K and every score is a sum of four products and the biases, to float precision. The mean over random texts
also holds the average effect of the letters at each position; what it cannot do is follow this text's letters.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import numpy as np
import torch

from transformer.data import random_string, target
from transformer.model import Transformer
from transformer.task_rules import parse_rule
from transformer.trace import Kind, Trace
from transformer.vocab import SOS, Vocab

from .circuits import (BIASES, CONTENT, CONTENT_CONTENT, FOUR, POSITION, POSITION_POSITION, ScoreSplit,
                       SplitUnavailable, _frozen_norm, _group, _project)
from .inside import _module, _residual_module, head_rows, stream_before, stream_key, sublayer_of

SAMPLES = 200         # random texts a mean is taken over (the review's 300 gave the same shares to a point)
BATCH = 50            # texts a traced pass holds at once: its trace stays a few tens of MB at 48 characters
SEED = 20261129
ALONE = {"position·position alone": (POSITION_POSITION,), "content·content alone": (CONTENT_CONTENT,),
         "both together": (POSITION_POSITION, CONTENT_CONTENT)}


def _memory_key(model: Transformer) -> str:
    return f"encoder_layers.{model.config.n_encoder_layers - 1}.feed_forward_residual.output"


@dataclass(frozen=True)
class PositionMeans:
    """The position-like parts of one sublayer's streams, each the mean over one half of the random texts: two
    independent estimates, whose difference is the noise of the figures built on their average."""

    query_halves: np.ndarray      # (2, Tq, d_model) the stream the head's queries read
    key_halves: np.ndarray        # (2, Tk, d_model) the stream its keys read (the encoder's output, for cross)
    samples: int                  # random texts in all

    def half(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        return self.query_halves[i], self.key_halves[i]

    @property
    def both(self) -> tuple[np.ndarray, np.ndarray]:
        return self.query_halves.mean(0), self.key_halves.mean(0)


@dataclass(frozen=True)
class StreamMeans:
    """Every attention sublayer's streams averaged over the random texts of one length: one traced pass serves
    every head of the model."""

    halves: dict[str, np.ndarray]   # trace key of a stream -> (2, L, d_model), the mean over each half
    samples: int
    memory_key: str                 # the encoder's output, which every cross-attention's keys read

    def of(self, kind: Kind, layer: int) -> PositionMeans:
        query = self.halves[stream_key(sublayer_of(kind, layer))]
        return PositionMeans(query, self.halves[self.memory_key] if kind == "cross" else query, self.samples)


@torch.inference_mode()
def stream_means(model: Transformer, vocab: Vocab, task: str, length: int, steps: int, samples: int = SAMPLES,
                 seed: int = SEED) -> StreamMeans:
    """Every attention sublayer's streams for texts of `length` characters decoded over `steps` steps, over
    `samples` random texts of that length (two halves), teacher-forced on their task's answer (what a model that
    is right reads)."""
    if samples < 2:
        raise ValueError(f"position_means needs two random texts or more, one for each half: {samples} given")
    rule = parse_rule(task)
    if rule.length_varies:
        raise SplitUnavailable(f"The answers of {rule.spec} differ in length between texts of one length, so "
                               "random texts give no mean stream for each step.")
    if steps > rule.length_factor * length + 1:
        raise SplitUnavailable(f"The model wrote {steps - 1} characters for a text of {length}: random texts of "
                               "that length give no mean for the steps past their answer's end.")
    rng = random.Random(f"{seed}:{task}:{length}")
    texts = [random_string(rng, length, letters=vocab.letters) for _ in range(samples)]
    config = model.config
    heads = [("encoder_self", layer) for layer in range(config.n_encoder_layers)] + [
        (kind, layer) for layer in range(config.n_decoder_layers) for kind in ("decoder_self", "cross")]
    keys = sorted({stream_key(sublayer_of(kind, layer)) for kind, layer in heads} | {_memory_key(model)})
    halves: dict[str, list[np.ndarray]] = {key: [] for key in keys}
    for texts_of_half in (texts[:samples // 2], texts[samples // 2:]):
        sums: dict[str, torch.Tensor] = {}
        for start in range(0, len(texts_of_half), BATCH):
            chunk = texts_of_half[start:start + BATCH]
            src = torch.tensor([vocab.encode(t, length) for t in chunk])                     # (B, S)
            tgt = torch.tensor([[SOS, *vocab.encode_output(target(t, task, vocab.letters),
                                                           rule.length_factor * length)][:steps] for t in chunk])
            trace = model(src, tgt, trace=True).trace                                         # tgt: (B, T)
            for key in keys:                                                                  # (B, L, d_model)
                sums[key] = sums.get(key, 0.0) + trace[key].double().sum(0)
        for key in keys:
            halves[key].append((sums[key] / len(texts_of_half)).numpy())
    return StreamMeans({key: np.stack(h) for key, h in halves.items()}, samples, _memory_key(model))


def position_means(model: Transformer, vocab: Vocab, task: str, length: int, steps: int, kind: Kind, layer: int,
                   samples: int = SAMPLES, seed: int = SEED) -> PositionMeans:
    """One sublayer's position-like parts (stream_means, for that sublayer alone)."""
    return stream_means(model, vocab, task, length, steps, samples, seed).of(kind, layer)


def functional_split(model: Transformer, trace: Trace, kind: Kind, layer: int, head: int,
                     means: tuple[np.ndarray, np.ndarray]) -> ScoreSplit:
    """One head's scores on a run split into position-like and content-like parts (the module's docstring);
    `means`: (Tq, d_model) and (Tk, d_model), a PositionMeans' `both` (or one half) for the run's length and
    steps. Its terms are FOUR and BIASES."""
    if model.config.norm != "pre":
        raise SplitUnavailable("This post-norm model normalises the stream after every sublayer, so its streams "
                               "are not a sum that a frozen LayerNorm passes on part by part.")
    sublayer = sublayer_of(kind, layer)
    attention, residual = _module(model, sublayer), _residual_module(model, sublayer)
    rows = head_rows(head, attention.d_k)
    query_mean, key_mean = means
    stream = stream_before(trace, sublayer).astype(float)                                    # (Tq, d_model)
    query_side = _frozen_norm({POSITION: query_mean, CONTENT: stream - query_mean}, stream, residual.norm)
    if kind == "cross":
        memory = trace[_memory_key(model)].astype(float)                                     # (Tk, d_model)
        key_side = _frozen_norm({POSITION: key_mean, CONTENT: memory - key_mean}, memory, model.encoder_norm)
    else:
        key_side = query_side
    q = _project(query_side, attention.w_q, rows)                                            # part -> (Tq, d_k)
    k = _project(key_side, attention.w_k, rows)                                              # part -> (Tk, d_k)
    scale = math.sqrt(attention.d_k)
    terms = {name: 0.0 for name in (*FOUR, BIASES)}
    for a, qa in q.items():
        for b, kb in k.items():
            terms[_group(a, b)] = terms[_group(a, b)] + np.atleast_2d(qa) @ np.atleast_2d(kb).T / scale
    shape = (stream.shape[0], k[CONTENT].shape[0])
    terms = {name: np.broadcast_to(term, shape).copy() for name, term in terms.items()}
    return ScoreSplit(kind, layer, head, terms, np.asarray(trace.mask(kind), bool), written=False)


def weights_from(split: ScoreSplit, names: tuple[str, ...]) -> np.ndarray:
    """(Tq, Tk) the weights the head would give from the terms `names` alone: their sum, masked, through softmax
    over each row's allowed keys (zeros where a row has none)."""
    score = np.where(split.allowed, sum(split.terms[n] for n in names), -np.inf)
    top = np.max(score, axis=1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    exp = np.where(split.allowed, np.exp(score - top), 0.0)
    total = exp.sum(1, keepdims=True)
    return np.divide(exp, total, out=np.zeros_like(exp), where=total > 0)


TIED = 1e-6   # two scores closer than this are a tie: a term that is the same for every key picks none


def top_key_kept(split: ScoreSplit, names: tuple[str, ...]) -> float:
    """The share of rows with two or more allowed keys whose largest weight from `names` alone lands on the key
    the model's own score picks (NaN when no row has two keys). A row where `names` give the top score to two
    keys within TIED (at the first step every text reads ⟨s⟩, and content·content is then alike for every key)
    picks no key, and is not kept: argmax would take the first of them."""
    rows = split.allowed.sum(1) >= 2
    if not rows.any():
        return math.nan
    full = np.where(split.allowed, split.score, -np.inf).argmax(1)
    score = np.where(split.allowed, sum(split.terms[n] for n in names), -np.inf)     # (Tq, Tk)
    ranked = np.sort(score, axis=1)
    picks = ranked[:, -1] - ranked[:, -2] > TIED
    return float(((full == score.argmax(1)) & picks)[rows].mean())
