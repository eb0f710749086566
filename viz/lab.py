"""Figures of the lab: before against after, head rankings, length curves, queries and keys."""

from __future__ import annotations

import numpy as np
from plotly.colors import sample_colorscale

from .attention import GRID_MIN_PANEL, GRID_STRIP
from .canvas_heatmap import Axes, Grid, Panel, heatmap_spec
from .plotly_charts import Chart, Points, Series, bar_chart, scatter_chart, xy_chart

BEFORE, AFTER = "#1d4ed8", "#f59e0b"


def correct_probability_bars(before: np.ndarray, after: np.ndarray, step_labels: list[str],
                             title: str = "") -> Chart:
    """(n,) probability of the correct character at each step, the unchanged model beside the changed one, as
    grouped bars on a fixed 0-1 scale."""
    before, after = np.asarray(before, dtype=float), np.asarray(after, dtype=float)
    series = [Series("unchanged", before, BEFORE), Series("changed", after, "#b45309")]
    fell = int(np.sum(after < before - 0.001))
    summary = (f"{title}: over {len(step_labels)} steps, p(correct) {float(before.min()):.3f} to "
               f"{float(before.max()):.3f} unchanged and {float(after.min()):.3f} to {float(after.max()):.3f} "
               f"changed; lower at {fell} step{'s' if fell != 1 else ''}.")
    return bar_chart(series, list(step_labels), title, "step: the correct next character", "p(correct)", summary,
                     point_name="step", x_names=[f"{i} ({label})" for i, label in enumerate(step_labels)],
                     y_range=(0.0, 1.0))


KINDS = (("encoder_self", "circle", "#0072b2"), ("decoder_self", "square", "#b45309"), ("cross", "diamond", "#047857"))


def harm_against_pattern(names: list[str], kinds: list[str], scores: list[float], drops: list[float],
                         title: str = "",
                         x_title: str = "match with its hypothesis (mean weight on the key it names)") -> Chart:
    """One point per head: how well it matches a pattern (x) against how much removing it hurts (y), as a Plotly
    scatter (viz.plotly_charts), one shape and colour per kind of attention."""
    groups = []
    for kind, shape, colour in KINDS:
        idx = [i for i, k in enumerate(kinds) if k == kind]
        if idx:
            groups.append(Points(kind.replace("_", " "), np.array([scores[i] for i in idx], dtype=float),
                                 np.array([drops[i] for i in idx], dtype=float),
                                 [names[i].split(" ", 1)[1] for i in idx], colour, shape))
    spoken = [name.replace("_", " ") for name in names]
    worst = max(drops)
    costliest = [spoken[i] for i, d in enumerate(drops) if d == worst]
    finite = [i for i, v in enumerate(scores) if np.isfinite(v)]
    best = max(finite, key=lambda i: scores[i]) if finite else None
    said = (f"switching off {' or '.join(costliest)} costs the most, {worst:.1%} of exact match" if worst > 0 else
            "no head costs exact match when switched off alone")
    summary = (f"{title + ': ' if title else ''}{len(names)} heads; {said}" + (
        f"; {spoken[best]} scores highest on {x_title}, {scores[best]:.2f}, and costs {drops[best]:.1%}"
        if best is not None else "") + ".")
    return scatter_chart(groups, title, x_title, "exact match lost when switched off alone", summary,
                         x_range=(0.0, 1.0), y_range=(min(0.0, min(drops)), max(worst, 0.01)), y_percent=True)


def length_curve(by_length: dict[int, float], trained_up_to: int, title: str = "") -> Chart:
    """Exact match per input length as a line, the lengths seen in training shaded."""
    lengths = sorted(by_length)
    matches = np.array([by_length[n] for n in lengths], dtype=float)
    past = [n for n in lengths if n > trained_up_to]
    summary = (f"{title}: exact match {matches[[n <= trained_up_to for n in lengths]].min():.0%} at the least on "
               f"lengths 1–{trained_up_to}, the trained ones" + (f", and {max(by_length[n] for n in past):.0%} at "
                                                                   f"the most on {past[0]}–{past[-1]}" if past else "")
               + ".")
    return xy_chart([Series("exact match", matches, BEFORE, x=np.array(lengths, dtype=float))], title,
                    "input length (characters)", "exact match", summary, y_range=(0.0, 1.0), point_name="length",
                    percent=True, x_range=(lengths[0] - 0.5, lengths[-1] + 0.5), band=(lengths[0], min(trained_up_to, lengths[-1]),
                                        f"trained on lengths 1–{trained_up_to}"))


def query_key_scatter(query_xy: np.ndarray, key_xy: np.ndarray, query_labels: list[str], key_labels: list[str],
                      explained: np.ndarray, title: str = "") -> Chart:
    """Queries as arrows from the origin (circles at their tips) and centred keys (squares) in one plane on one
    scale for both axes, coloured by position (Viridis): a score is the dot product of an arrow with a key, not
    their distance."""
    n = max(len(query_labels), len(key_labels))
    colours = sample_colorscale("Viridis", [i / max(n - 1, 1) for i in range(n)])
    longest = int(np.argmax(np.linalg.norm(query_xy, axis=1)))
    plural = (lambda n, word: f"{n} {word}" + ("" if n == 1 else "s"))
    summary = (f"{title}: {plural(len(query_labels), 'query')} as arrows from the origin and "
               f"{plural(len(key_labels), 'key')} as squares, coloured by position (dark for the first, yellow for "
               f"the last), in the keys' two main directions ({explained[0]:.0%} and {explained[1]:.0%} of their "
               f"variance); the longest arrow is query {longest}:{query_labels[longest]}.")
    return scatter_chart(
        [Points("queries", query_xy[:, 0], query_xy[:, 1], [f"{i}:{c}" for i, c in enumerate(query_labels)],
                colours[:len(query_labels)], "circle", arrows=True),
         Points("keys", key_xy[:, 0], key_xy[:, 1], [f"{i}:{c}" for i, c in enumerate(key_labels)],
                colours[:len(key_labels)], "square")],
        title, f"keys' direction 1 ({explained[0]:.0%} of their variance)", f"keys' direction 2 ({explained[1]:.0%})",
        summary, equal=True)


def maps_with_and_without(intact: np.ndarray, without: np.ndarray, query_labels: list[str], key_labels: list[str],
                          off: str, title: str = "") -> dict:
    """(H, Tq, Tk) one layer's weights with every head on (top row) and with the head `off` switched off (bottom
    row), on one colour scale, as a canvas grid: what that head passes on is what changes from the top row to the
    bottom one. Titles are short, as four panels share a phone's width: the bottom row's heads are starred."""
    n_heads = len(intact)
    panels = ([Panel(f"H{h}", intact[h], f"last layer, head {h}, every head on") for h in range(n_heads)]
              + [Panel(f"H{h}*", without[h], f"last layer, head {h}, {off} off") for h in range(n_heads)])
    return heatmap_spec(panels, Axes(query_labels, key_labels, "output step (query)", "source position (key)"),
                        f"{title}; *: without {off}", grid=Grid(n_heads, GRID_MIN_PANEL, GRID_STRIP))
