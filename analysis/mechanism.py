"""How this model reverses: where the text's length becomes readable, and what switching heads off does to it.

A linear probe (ridge regression, scikit-learn) reads the length n from the residual stream at one position
of one layer; its R² on held-out words says how much of n a linear read-out finds there. The same probes are
then applied with heads switched off, so a fall in R² means the model's own representation lost the length.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from sklearn.linear_model import Ridge

from transformer.data import pad
from transformer.intervention import NO_INTERVENTION, Head, Intervention
from transformer.metrics import exact_match
from transformer.model import Transformer
from transformer.trace import Trace
from transformer.vocab import SOS, Vocab


@dataclass(frozen=True)
class Stream:
    name: str      # what a learner reads
    path: str      # the trace key of the residual stream, (B, S, d_model)


def encoder_streams(model: Transformer) -> list[Stream]:
    streams = [Stream("input (embedding + position code)", "src_positions.output")]
    for i in range(model.config.n_encoder_layers):
        streams += [Stream(f"after encoder layer {i}'s attention", f"encoder_layers.{i}.attention_residual.output"),
                    Stream(f"after encoder layer {i}", f"encoder_layers.{i}.feed_forward_residual.output")]
    return streams + [Stream("encoder output (memory)", "encoder_norm.output")]


@dataclass(frozen=True)
class LengthProbe:
    streams: list[str]           # (R,) names of the residual streams probed
    paths: list[str]             # (R,) their trace keys
    positions: list[int]         # (P,) source positions probed
    r2: np.ndarray               # (R, P) held-out R² of the probe reading n there
    r2_off: np.ndarray           # (R, P) the same probes with the heads switched off
    heads_off: list[Head]
    exact: float                 # exact match on the held-out words, every head working
    exact_off: float             # with the heads switched off
    probes: dict                 # (stream index, position) -> fitted Ridge, to read a learner's own text


@torch.inference_mode()
def _activations(model: Transformer, vocab: Vocab, texts: list[str], paths: list[str],
                 edit: Intervention = NO_INTERVENTION, batch: int = 100) -> dict[str, np.ndarray]:
    """path -> (N, max_len, d_model) the encoder's residual streams of each text, zero past its end."""
    width = model.config.max_len
    out: dict[str, list[np.ndarray]] = {p: [] for p in paths}
    for start in range(0, len(texts), batch):
        chunk = texts[start:start + batch]
        src = pad([vocab.encode(t, width) for t in chunk])                      # (B, S)
        trace = model(src, torch.full((len(chunk), 1), SOS), trace=True, edit=edit).trace
        for p in paths:
            a = trace[p].numpy()                                                 # (B, S, d_model)
            out[p].append(np.pad(a, ((0, 0), (0, width - a.shape[1]), (0, 0))))
    return {p: np.concatenate(v) for p, v in out.items()}


def length_probe(model: Transformer, vocab: Vocab, train: list[str], test: list[str],
                 heads_off: list[Head]) -> LengthProbe:
    streams = encoder_streams(model)
    positions = [p for p in (0, 1, 2, 4, 8, 16) if p < model.config.max_len]
    paths = [s.path for s in streams]
    fit_on, intact = _activations(model, vocab, train, paths), _activations(model, vocab, test, paths)
    edit = Intervention(ablated=frozenset(heads_off))
    broken = _activations(model, vocab, test, paths, edit)
    n_train, n_test = np.array([len(t) for t in train]), np.array([len(t) for t in test])
    r2, r2_off = np.zeros((len(streams), len(positions))), np.zeros((len(streams), len(positions)))
    probes = {}
    for r, path in enumerate(paths):
        for c, p in enumerate(positions):
            seen, kept = n_train > p, n_test > p                               # words long enough to have p
            if seen.sum() < 2 or kept.sum() < 2:
                r2[r, c] = r2_off[r, c] = np.nan                                 # too few words this long
                continue
            probe = Ridge(alpha=1.0).fit(fit_on[path][seen, p], n_train[seen])
            r2[r, c] = probe.score(intact[path][kept, p], n_test[kept])
            r2_off[r, c] = probe.score(broken[path][kept, p], n_test[kept])
            probes[(r, p)] = probe
    return LengthProbe([s.name for s in streams], paths, positions, r2, r2_off, list(heads_off),
                       exact_match(model, vocab, test).exact_match, exact_match(model, vocab, test, edit).exact_match,
                       probes)


def read_length(probe: LengthProbe, stream: int, position: int, trace: Trace) -> float:
    """What the probe at (stream, position) reads as the length of one text, from the trace of its run."""
    x = trace[probe.paths[stream]][position]                                    # (d_model,)
    return float(probe.probes[(stream, position)].predict(x[None])[0])
