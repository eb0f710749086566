"""How this model reverses: where the text's length becomes readable, and what switching heads off does to it.

A linear probe (ridge regression, scikit-learn) reads the length n from the residual stream at one position
of one layer; its R² on held-out words says how much of n a linear read-out finds there. With heads switched
off, two questions differ: do the intact model's probes still read n (a fall can mean only that the stream
moved away from what they were fitted on), and can probes refitted on the changed model read it (a fall there
means the length is no longer linearly in the stream)? Both are measured, on the same words.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from transformer.data import pad
from transformer.intervention import NO_INTERVENTION, Head, Intervention
from transformer.metrics import exact_match
from transformer.model import Transformer
from transformer.trace import Trace
from transformer.vocab import SOS, Vocab


READABLE = 0.5   # from this held-out R² on, a probe is said to read the length (half its variance explained)


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
    r2_refit: np.ndarray         # (R, P) probes fitted afresh with the heads off (same words), scored so
    heads_off: list[Head]
    exact: float                 # exact match on the held-out words, every head working
    exact_off: float             # with the heads switched off
    probes: dict                 # (stream index, position) -> fitted Ridge, to read a learner's own text
    probes_refit: dict           # the same, fitted on the model with the heads off


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
    edit = Intervention(ablated=frozenset(heads_off))
    from sklearn.linear_model import Ridge     # here: scikit-learn takes 0.9 s to import (analysis.table_store)
    fit_on, intact = _activations(model, vocab, train, paths), _activations(model, vocab, test, paths)
    fit_off, broken = _activations(model, vocab, train, paths, edit), _activations(model, vocab, test, paths, edit)
    n_train, n_test = np.array([len(t) for t in train]), np.array([len(t) for t in test])
    r2, r2_off, r2_refit = (np.full((len(streams), len(positions)), np.nan) for _ in range(3))
    probes, probes_refit = {}, {}
    for r, path in enumerate(paths):
        for c, p in enumerate(positions):
            seen, kept = n_train > p, n_test > p                               # words long enough to have p
            if seen.sum() < 2 or kept.sum() < 2:
                continue                                                         # too few words this long: NaN
            probe = Ridge(alpha=1.0).fit(fit_on[path][seen, p], n_train[seen])
            refit = Ridge(alpha=1.0).fit(fit_off[path][seen, p], n_train[seen])
            r2[r, c] = probe.score(intact[path][kept, p], n_test[kept])
            r2_off[r, c] = probe.score(broken[path][kept, p], n_test[kept])
            r2_refit[r, c] = refit.score(broken[path][kept, p], n_test[kept])
            probes[(r, p)], probes_refit[(r, p)] = probe, refit
    return LengthProbe([s.name for s in streams], paths, positions, r2, r2_off, r2_refit, list(heads_off),
                       exact_match(model, vocab, test).exact_match, exact_match(model, vocab, test, edit).exact_match,
                       probes, probes_refit)


def read_length(probe: LengthProbe, stream: int, position: int, trace: Trace, refit: bool = False) -> float:
    """What the probe at (stream, position) reads as the length of one text, from the trace of its run (with
    refit, the probe fitted on the model with the heads off: read it from a run with them off)."""
    x = trace[probe.paths[stream]][position]                                    # (d_model,)
    return float((probe.probes_refit if refit else probe.probes)[(stream, position)].predict(x[None])[0])


def output_range(r2: np.ndarray) -> tuple[float, float]:
    """(lowest, highest) of an (R, P) R² table's last stream, the encoder output, over the positions probed
    (positions too few words reach are left out)."""
    row = r2[-1][np.isfinite(r2[-1])]
    return (float(row.min()), float(row.max())) if row.size else (float("nan"), float("nan"))
