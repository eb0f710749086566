"""Decode step by step: what step t of a decoding read and chose (DecodeStep), and where it looked in one layer
(LookedStep). Apart, because another layer or head changes only where it looked: the page then rebuilds and sends
only that part."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from transformer.decoding import next_token_probs
from transformer.vocab import Vocab

from ..labels import SOS_LABEL, token_label, visible, weight_text
from ..run import Run
from ..tasks import equal_counts, expected_source, to_task

TOP_TOKENS = 8                               # rows of the step's table
TEMPERATURES = (0.5, 1.0, 3.0, 5.0, 10.0)    # the same step's scores, divided by each


@dataclass(frozen=True)
class DecodeStep:
    """Step t of one decoding: what it read and chose. V tokens."""

    t: int
    steps: int                               # T: the decoding's number of steps
    labels: list[str]                        # (V,) token labels in vocabulary order
    probs: np.ndarray                        # (V,) the distribution step t drew from
    chosen_id: int
    decoder_input: str                       # what step t reads, its labels joined by spaces
    chosen: str                              # the label of the chosen token
    chosen_p: float
    written: str                             # the output so far, visible
    output: str                              # the whole output, visible
    caption: str                             # what step t reads, and the whole output
    top_tokens: list[str]                    # (TOP_TOKENS,) the likeliest next tokens, likeliest first
    top_probs: np.ndarray                    # (TOP_TOKENS,)
    by_temperature: dict[float, np.ndarray]  # T -> (V,)
    entropy: dict[float, float]              # T -> nats
    lead: float                              # the top score minus the second
    temperature_caption: str


@dataclass(frozen=True)
class LookedStep:
    """Where step t looked in one decoder layer, one head named. H heads, S source positions, T decoder
    positions."""

    t: int
    cross: np.ndarray                        # (H, S) step t's cross-attention row in the chosen layer
    source: list[str]                        # (S,)
    cross_sentence: str
    decoder_self: np.ndarray                 # (H, T) step t's self-attention row; columns after t are the future
    decoder_keys: list[str]                  # (T,)
    self_sentence: str


def decode_steps(run: Run, vocab: Vocab) -> list[DecodeStep]:
    """Every step of `run` (decode_step), which the page steps through in the browser."""
    labels = [token_label(vocab, i) for i in range(vocab.size)]
    return [decode_step(run, vocab, t, labels) for t in range(len(run.chosen_ids))]


def looked_steps(run: Run, taught: Run, layer: int, head: int) -> list[LookedStep]:
    """Where every step of `run` looked in decoder layer `layer`, `head` named (looked_step)."""
    taught_future = _future_weight(taught)
    return [looked_step(run, taught, t, layer, head, taught_future) for t in range(len(run.chosen_ids))]


def _future_weight(taught: Run) -> float:
    """The largest weight any position puts on a later one in the teacher-forced pass, over every layer and head."""
    return float(np.triu(taught.trace.stack_attention("decoder_self"), k=1).max())   # over (L, H, T, T)


def decode_step(run: Run, vocab: Vocab, t: int, labels: list[str] | None = None) -> DecodeStep:
    """What step t of `run` read and chose, and its distribution at five temperatures. `labels`: the same for
    every step, given once by decode_steps."""
    labels = labels or [token_label(vocab, i) for i in range(vocab.size)]
    probs = run.probs[t]
    chosen_id = run.chosen_ids[t]
    order = np.argsort(-probs)[:TOP_TOKENS]

    logits = torch.tensor(run.logits[t])
    by_temperature = {temp: next_token_probs(logits, temp, None).numpy() for temp in TEMPERATURES}
    entropy = {temp: float(-(p[p > 0] * np.log(p[p > 0])).sum()) for temp, p in by_temperature.items()}
    best, second = torch.topk(logits, 2).values.tolist()
    temperature_caption = (
        f"Dividing the scores by T before softmax: T below 1 sharpens, T above 1 flattens. At this step the top "
        f"score leads the next by {best - second:.1f}"
        + (", so only a large T spreads the probability. " if by_temperature[3.0].max() > 0.5 else
           ", so a moderate T already spreads the probability. ")
        + ", ".join(f"T = {temp:g}: top p = {by_temperature[temp].max():.3f}, entropy {entropy[temp]:.2g} nats"
                    for temp in TEMPERATURES)
        + ". Greedy decoding always takes the tallest bar; sampling draws from the bars.")
    return DecodeStep(
        t=t, steps=len(run.chosen_ids), labels=labels, probs=probs, chosen_id=chosen_id,
        decoder_input=" ".join(run.decoder_in[: t + 1]), chosen=run.decoder_out[t], chosen_p=float(probs[chosen_id]),
        written=visible(vocab.decode(list(run.fed_ids[: t + 1]))), output=visible(run.output),
        caption=(f"Step {t} reads {SOS_LABEL} + the {t} token{'' if t == 1 else 's'} produced so far ({t + 1} "
                 f"positions).  " if t else f"Step 0 reads {SOS_LABEL} alone (1 position).  ")
        + f"Full output: **{visible(run.output)}**",
        top_tokens=[labels[i] for i in order], top_probs=probs[order],
        by_temperature=by_temperature, entropy=entropy, lead=best - second, temperature_caption=temperature_caption)


def looked_step(run: Run, taught: Run, t: int, layer: int, head: int, taught_future: float | None = None
                ) -> LookedStep:
    """Where step t of `run` looked in decoder layer `layer`, with `head` named; `taught` is the same text under
    teacher forcing, whose pass shows what the causal mask hides in training (`taught_future`: its largest weight
    on a later position, the same for every step, given once by looked_steps)."""
    cross = run.trace["cross", layer][:, t]                        # (H, S): step t's row
    target = expected_source(run.text, run.task, t, run.letters)
    peak = int(cross[head].argmax())
    cross_sentence = (
        f"**Cross-attention** — the query comes from the decoder's position {t}, keys and values from the "
        f"encoder's output over the source. Head {head} puts its largest weight ({cross[head].max():.3f}) on source "
        f"position **{peak}** ('{run.source[peak]}')"
        + (f"; {to_task(run.task)}, step {t} copies source position **{target}** ('{run.source[target]}')"
           + (" or an equal character" if equal_counts(run.task) else "") + "."
           if target is not None else "; this is the step that ends the output."))

    steps = len(run.chosen_ids)
    own = run.trace["decoder_self", layer][:, t]                   # (H, T); columns after t are the future
    future = weight_text(float(own[:, t + 1:].max())) if t + 1 < steps else "none (no later position)"
    taught_future = _future_weight(taught) if taught_future is None else taught_future
    self_sentence = (
        f"**Decoder self-attention under the causal mask** — position {t} may look at positions 0..{t} only. While "
        "generating, the later tokens do not exist yet; this page reads every step from one pass over the whole "
        f"decoding, and the mask is why row {t} of that pass is exactly what step {t} computed alone. Its largest "
        f"weight on a later position, over all heads: **{future}**. In training the same mask lets every position "
        "of a word learn in one parallel pass (teacher forcing), none reading the answer after it: in that pass "
        f"over your text, the largest weight any position puts on a later one, over every layer and head, is "
        f"**{weight_text(taught_future)}**.")
    return LookedStep(t=t, cross=cross, source=run.source, cross_sentence=cross_sentence, decoder_self=own,
                      decoder_keys=run.decoder_in, self_sentence=self_sentence)
