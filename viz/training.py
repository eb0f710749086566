"""How training went: held-out loss, exact match and the cross-attention pattern of the task, step by step, as
Plotly line charts (viz.plotly_charts): a learner can hover any step and zoom into the end of a run."""

from __future__ import annotations

import math

import numpy as np

from .plotly_charts import HEIGHT, Chart, Series, xy_chart

LOSS, MATCH, PATTERN = "#1d4ed8", "#047857", "#b45309"       # each at least 4.5:1 on white


def _uniform_guess(vocab_size: int | None) -> tuple[tuple[float, str], ...]:
    """The uniform guess's loss, ln(vocabulary size), as a labelled reference line."""
    if vocab_size is None:
        return ()
    baseline = math.log(vocab_size)
    return ((baseline, f"uniform guess: ln {vocab_size} = {baseline:.2f}"),)


def loss_text(value: float) -> str:
    """A loss as a decimal (0.000012, not 1.2e-05); the stored curves keep five places, so 0 means below 0.00001."""
    if value < 1e-5:
        return "below 0.00001"
    return np.format_float_positional(value, precision=3, unique=False, fractional=False, trim="-")


def share_text(value: float) -> str:
    """A share in percent, to a tenth unless it is exactly none or all (0.996 is not 100 %)."""
    return f"{value:.0%}" if value in (0.0, 1.0) else f"{value:.1%}"


def learning_curves(curve: list[dict], marked_step: int | None = None, title: str = "",
                    pattern: str = "the anti-diagonal", rule: str = "n−1−i", vocab_size: int | None = None,
                    marked: tuple[float, float] | None = None) -> tuple[Chart, Chart]:
    """curve: dicts with step, loss, exact_match, alignment (the share of steps on the task's pattern, named by
    `pattern` and `rule`). Loss on top (log scale, with the uniform guess ln(vocab_size) when given), the two
    shares below, one dashed line at the marked step through both; `marked`: the snapshot's own held-out loss and
    exact match, said in the summary (a snapshot's step need not be one of the curve's). Two charts: the loss,
    then the shares."""
    steps = np.array([c["step"] for c in curve], dtype=float)
    loss = np.array([c["loss"] for c in curve], dtype=float)
    match = np.array([c["exact_match"] for c in curve], dtype=float)
    aligned = np.array([c["alignment"] for c in curve], dtype=float)
    marks = () if marked_step is None else ((float(marked_step), f"this snapshot: step {marked_step}"),)
    at = ("" if marked_step is None or marked is None else
          f"; at step {marked_step}, the marked snapshot, loss {loss_text(marked[0])} and exact match "
          f"{share_text(marked[1])}")
    loss_chart = xy_chart(
        [Series("held-out loss", loss, LOSS, x=steps)], title, "training step", "loss (log scale)",
        f"{title + ': ' if title else ''}held-out loss from {loss_text(loss[0])} at step {steps[0]:g} to "
        f"{loss_text(loss[-1])} at step {steps[-1]:g}{at}.",
        log_y=True, marks=marks, references=_uniform_guess(vocab_size))
    shares_chart = xy_chart(
        [Series("exact match", match, MATCH, x=steps),
         Series(f"steps on {pattern} ({rule})", aligned, PATTERN, x=steps, dashed=True)],
        "", "training step", "share",
        f"Held-out exact match from {share_text(match[0])} to {share_text(match[-1])}; the share of steps whose "
        f"largest cross weight is on {pattern} from {share_text(aligned[0])} to {share_text(aligned[-1])}.",
        y_range=(0.0, 1.0), percent=True, marks=marks)
    return loss_chart, shares_chart


def live_curves(loss: tuple[tuple[int, float], ...], exact_match: tuple[tuple[int, float], ...], steps: int,
                title: str = "", vocab_size: int | None = None, height: int = HEIGHT) -> tuple[Chart, ...]:
    """A run in progress: training loss after every step (log scale, with the uniform guess ln(vocab_size) when
    given) and held-out exact match once it is measured; no chart before the first step. `height`: lower for a
    projected screen that shares its 720 px (class mode's predict, then train)."""
    if not loss:
        return ()
    loss_x = np.array([s for s, _ in loss], dtype=float)
    loss_y = np.array([v for _, v in loss], dtype=float)
    loss_chart = xy_chart(
        [Series("training loss", loss_y, LOSS, x=loss_x)], title, "step", "loss (log scale)",
        f"Training loss {loss_text(loss_y[0])} after step {loss_x[0]:g}, {loss_text(loss_y[-1])} after step "
        f"{loss_x[-1]:g} of {steps}.", log_y=True, x_range=(0, steps), references=_uniform_guess(vocab_size),
        height=height)
    if not exact_match:
        return (loss_chart,)
    match_x = np.array([s for s, _ in exact_match], dtype=float)
    match_y = np.array([v for _, v in exact_match], dtype=float)
    match_chart = xy_chart(
        [Series("held-out exact match", match_y, MATCH, x=match_x)], "", "step", "exact match",
        f"Held-out exact match {share_text(match_y[-1])} at step {match_x[-1]:g}; its highest so far "
        f"{share_text(match_y.max())}.",
        y_range=(0.0, 1.0), percent=True, x_range=(0, steps), height=height)
    return loss_chart, match_chart
