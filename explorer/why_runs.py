"""Why this character? and Patch one activation, cached per model and texts: the lenses on one text (integrated
gradients a step at a time, or at every step when the learner asks, with a progress bar), one patch, and every
single patch at once."""

from __future__ import annotations

import numpy as np

from analysis import activation_patching, attribution
from analysis.lab import Progress, report

from .cache import checkpoint_for, model_run, text_run


@model_run(max_entries=8, show_spinner="Occlusion, gradients and rollout on your text…")
def lenses(key: str, text: str, every_letter: bool = False, _progress: Progress = None) -> attribution.Lenses:
    ckpt = checkpoint_for(key)
    return attribution.lenses(ckpt.model, ckpt.vocab, text_run(key, text), every_letter, _progress)


def best_lenses(key: str, text: str) -> attribution.Lenses:
    """Occlusion over every other letter once the learner has asked for it on this text, else the quick one."""
    return lenses(key, text, True) if lenses.is_cached(key, text, True) else lenses(key, text)


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


@model_run(max_entries=32, show_spinner="Patching…")
def patched(key: str, clean: str, other: str, site: str, position: int, layer: int, head: int):
    ckpt = checkpoint_for(key)
    return activation_patching.patch_one(ckpt.model, ckpt.vocab, text_run(key, clean), text_run(key, other),
                                         activation_patching.Site(site, position, layer, head), ckpt.task)


@model_run(max_entries=8)
def causal_cone(key: str, clean: str, other: str, _progress: Progress = None) -> activation_patching.Cone:
    return activation_patching.cone(checkpoint_for(key).model, text_run(key, clean), text_run(key, other),
                                    _progress)


def site_of(site: str, position: int, layer: int, head: int) -> activation_patching.Site:
    return activation_patching.Site(site, position, layer, head)
