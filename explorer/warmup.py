"""What a fresh server does once, after its first page is drawn, so that the first visit of any other page does
not wait for it: import every page's modules (scikit-learn and SciPy among them, about 0.9 s, which the first
page no longer imports) and compute the √d_k experiments that Masks shows for every model (0.8 s), kept for the
process. `python -m benchmarks.browser_latency --first-visits` measures each page's first visit."""

from __future__ import annotations

import importlib
import threading

from .pages import PAGES

_STARTED = threading.Event()
HEAVY_IMPORTS = ("sklearn.linear_model", "sklearn.decomposition", "scipy.stats", "captum.attr")


def warm_up_once(d_k: int) -> None:
    """Start the warm-up in a daemon thread, the first time only (later calls return at once). `d_k`: the
    shown model's, whose √d_k experiment Masks draws first."""
    if _STARTED.is_set():
        return
    _STARTED.set()
    threading.Thread(target=_warm_up, args=(d_k,), daemon=True, name="warm-up").start()


def _warm_up(d_k: int) -> None:
    from analysis.lesson import scaling_experiment        # here, so that app.py's own start does not import them
    from analysis.page_models.masks import D_K_SIZES
    for module in (*HEAVY_IMPORTS, *(page.model for page in PAGES), "viz"):
        importlib.import_module(module)
    for size in (d_k, *D_K_SIZES):
        scaling_experiment(size)
