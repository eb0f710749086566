"""Why this character? The lenses on one text, cached per model and text; integrated gradients a step at a time,
or at every step when the learner asks (with a progress bar)."""

from __future__ import annotations

import numpy as np

from analysis import attribution
from analysis.lab import Progress, report

from .cache import checkpoint_for, model_run, text_run


@model_run(max_entries=8, show_spinner="Occlusion, gradients and rollout on your text…")
def lenses(key: str, text: str) -> attribution.Lenses:
    ckpt = checkpoint_for(key)
    return attribution.lenses(ckpt.model, ckpt.vocab, text_run(key, text))


@model_run(max_entries=64, show_spinner="Integrated gradients at this step…")
def integrated_at(key: str, text: str, step: int) -> attribution.Integrated:
    return attribution.integrated_gradients(checkpoint_for(key).model, text_run(key, text), step)


@model_run(max_entries=8)
def integrated_every_step(key: str, text: str, _progress: Progress = None) -> np.ndarray:
    """(T, S) integrated gradients at every output step (each step's also cached on its own)."""
    steps = len(text_run(key, text).chosen_ids)
    rows = []
    for t in range(steps):
        report(_progress, t / steps)
        rows.append(integrated_at(key, text, t).attributions)
    return np.stack(rows)
