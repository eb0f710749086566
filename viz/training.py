"""How training went: held-out loss, exact match and the cross-attention pattern of the task, step by step, as
small SVG charts (viz.svg_charts): drawn in milliseconds, so the live run's chart can be redrawn twice a second."""

from __future__ import annotations

import math

import numpy as np

from .svg_charts import Series, xy_chart

LOSS, MATCH, PATTERN = "#1d4ed8", "#047857", "#b45309"       # each at least 4.5:1 on white


def _uniform_guess(vocab_size: int | None) -> tuple[tuple[float, str], ...]:
    """The uniform guess's loss, ln(vocabulary size), as a labelled reference line."""
    if vocab_size is None:
        return ()
    baseline = math.log(vocab_size)
    return ((baseline, f"uniform guess: ln {vocab_size} = {baseline:.2f}"),)


def _side_by_side(*charts: str) -> str:
    """Charts in a row that wraps: side by side on a laptop, one under the other on a phone."""
    return ('<div style="display:flex;flex-wrap:wrap;gap:0.5rem 1.5rem">'
            + "".join(f'<div style="flex:1 1 18rem;min-width:0">{c}</div>' for c in charts) + "</div>")


def learning_curves(curve: list[dict], marked_step: int | None = None, title: str = "",
                    pattern: str = "the anti-diagonal", rule: str = "n−1−i", vocab_size: int | None = None) -> str:
    """curve: dicts with step, loss, exact_match, alignment (the share of steps on the task's pattern, named by
    `pattern` and `rule`). Loss on top (log scale, with the uniform guess ln(vocab_size) when given), the two
    shares below, one dashed line at the marked step through both."""
    steps = np.array([c["step"] for c in curve], dtype=float)
    loss = np.array([c["loss"] for c in curve], dtype=float)
    match = np.array([c["exact_match"] for c in curve], dtype=float)
    aligned = np.array([c["alignment"] for c in curve], dtype=float)
    marks = () if marked_step is None else ((float(marked_step), f"this snapshot: step {marked_step}"),)
    at = "" if marked_step is None else _at_step(curve, marked_step)
    loss_chart = xy_chart(
        [Series("held-out loss", loss, LOSS, x=steps)], title, "training step", "loss (log scale)",
        f"{title + ': ' if title else ''}held-out loss from {loss[0]:.3g} at step {steps[0]:g} to {loss[-1]:.3g} "
        f"at step {steps[-1]:g}" + (f"; {at}" if at else "") + ".",
        log_y=True, marks=marks, references=_uniform_guess(vocab_size))
    shares_chart = xy_chart(
        [Series("exact match", match, MATCH, x=steps),
         Series(f"steps on {pattern} ({rule})", aligned, PATTERN, x=steps, dashed=True)],
        "", "training step", "share",
        f"Held-out exact match from {match[0]:.0%} to {match[-1]:.0%}; the share of steps whose largest cross "
        f"weight is on {pattern} from {aligned[0]:.0%} to {aligned[-1]:.0%}.",
        y_range=(0.0, 1.0), percent=True, marks=marks)
    return loss_chart + shares_chart


def _at_step(curve: list[dict], step: int) -> str:
    row = next((c for c in curve if c["step"] == step), None)
    return "" if row is None else (f"at step {step}, the marked snapshot, loss {row['loss']:.3g} and exact match "
                                   f"{row['exact_match']:.0%}")


def live_curves(loss: tuple[tuple[int, float], ...], exact_match: tuple[tuple[int, float], ...], steps: int,
                title: str = "", vocab_size: int | None = None) -> str:
    """A run in progress: training loss after every step (log scale, with the uniform guess ln(vocab_size) when
    given) and held-out exact match, side by side (one under the other on a phone)."""
    if not loss:
        return "<p>No training step has finished yet.</p>"
    loss_x = np.array([s for s, _ in loss], dtype=float)
    loss_y = np.array([v for _, v in loss], dtype=float)
    loss_chart = xy_chart(
        [Series("training loss", loss_y, LOSS, x=loss_x)], title, "step", "loss (log scale)",
        f"Training loss {loss_y[0]:.3g} after step {loss_x[0]:g}, {loss_y[-1]:.3g} after step {loss_x[-1]:g} of "
        f"{steps}.", log_y=True, x_range=(0, steps), references=_uniform_guess(vocab_size))
    if not exact_match:
        return _side_by_side(loss_chart, "<p>Held-out exact match: not measured yet.</p>")
    match_x = np.array([s for s, _ in exact_match], dtype=float)
    match_y = np.array([v for _, v in exact_match], dtype=float)
    match_chart = xy_chart(
        [Series("held-out exact match", match_y, MATCH, x=match_x)], "", "step", "exact match",
        f"Held-out exact match {match_y[-1]:.0%} at step {match_x[-1]:g}, {match_y.max():.0%} at the most.",
        y_range=(0.0, 1.0), percent=True, x_range=(0, steps))
    return _side_by_side(loss_chart, match_chart)
