"""Figures of the lab: before against after, head rankings, length curves, queries and keys."""

from __future__ import annotations

import numpy as np
from plotly.colors import sample_colorscale

from .attention import GRID_MIN_PANEL, GRID_STRIP
from .canvas_heatmap import heatmap_spec
from .svg_charts import Points, Series, grouped_bars, line_chart, scatter_chart

BEFORE, AFTER = "#1d4ed8", "#f59e0b"


def correct_probability_bars(before: np.ndarray, after: np.ndarray, step_labels: list[str],
                             title: str = "") -> str:
    """(n,) probability of the correct character at each step, the unchanged model beside the changed one, as
    grouped SVG bars (viz.svg_charts) on a fixed 0-1 scale."""
    before, after = np.asarray(before, dtype=float), np.asarray(after, dtype=float)
    series = [Series("unchanged", before, BEFORE), Series("changed", after, "#b45309")]
    fell = int(np.sum(after < before - 0.001))
    summary = (f"{title}: over {len(step_labels)} steps, p(correct) {float(before.min()):.3f} to "
               f"{float(before.max()):.3f} unchanged and {float(after.min()):.3f} to {float(after.max()):.3f} "
               f"changed; lower at {fell} step{'s' if fell != 1 else ''}.")
    return grouped_bars(series, list(step_labels), title, "step: the correct next character", "p(correct)", summary,
                        point_name="step", x_names=[f"{i} ({label})" for i, label in enumerate(step_labels)],
                        y_range=(0.0, 1.0))


KINDS = (("encoder_self", "circle", "#0072b2"), ("decoder_self", "square", "#b45309"), ("cross", "diamond", "#047857"))


def harm_against_pattern(names: list[str], kinds: list[str], scores: list[float], drops: list[float],
                         title: str = "",
                         x_title: str = "match with its hypothesis (mean weight on the key it names)") -> str:
    """One point per head: how well it matches a pattern (x) against how much removing it hurts (y), as an SVG
    scatter (viz.svg_charts), one shape and colour per kind of attention."""
    groups = []
    for kind, shape, colour in KINDS:
        idx = [i for i, k in enumerate(kinds) if k == kind]
        if idx:
            groups.append(Points(kind.replace("_", " "), np.array([scores[i] for i in idx], dtype=float),
                                 np.array([drops[i] for i in idx], dtype=float),
                                 [names[i].split(" ", 1)[1] for i in idx], colour, shape))
    costliest, best = int(np.argmax(drops)), int(np.argmax(scores))
    summary = (f"{title} {len(names)} heads. Switching off {names[costliest]} costs the most, "
               f"{drops[costliest]:.1%} of exact match, at {scores[costliest]:.2f} on x; {names[best]} has the "
               f"largest x, {scores[best]:.2f}, and costs {drops[best]:.1%}.")
    return scatter_chart(groups, title, x_title, "exact match lost when switched off alone", summary,
                         x_range=(0.0, 1.0), y_range=(0.0, max(max(drops), 0.01)), y_percent=True)


def length_curve(by_length: dict[int, float], trained_up_to: int, title: str = "") -> str:
    """Exact match per input length as an SVG line (viz.svg_charts), the lengths seen in training shaded."""
    lengths = sorted(by_length)
    matches = np.array([by_length[n] for n in lengths], dtype=float)
    past = [n for n in lengths if n > trained_up_to]
    summary = (f"{title}: exact match {matches[[n <= trained_up_to for n in lengths]].min():.0%} at the least on "
               f"lengths 1–{trained_up_to}, the trained ones" + (f", and {max(by_length[n] for n in past):.0%} at "
                                                                   f"the most on {past[0]}–{past[-1]}" if past else "")
               + ".")
    return line_chart([Series("exact match", matches, BEFORE)], [str(n) for n in lengths], title,
                      "input length (characters)", "exact match", summary, y_range=(0.0, 1.0), point_name="length",
                      percent=True, band=(0, lengths.index(trained_up_to) if trained_up_to in lengths else len(lengths) - 1,
                                          f"trained on lengths 1–{trained_up_to}"))


def query_key_scatter(query_xy: np.ndarray, key_xy: np.ndarray, query_labels: list[str], key_labels: list[str],
                      explained: np.ndarray, title: str = "") -> str:
    """Queries as arrows from the origin (circles at their tips) and centred keys (squares) in one plane on one
    scale for both axes, coloured by position (Viridis): a score is the dot product of an arrow with a key, not
    their distance."""
    n = max(len(query_labels), len(key_labels))
    colours = sample_colorscale("Viridis", [i / max(n - 1, 1) for i in range(n)])
    longest = int(np.argmax(np.linalg.norm(query_xy, axis=1)))
    summary = (f"{title}: {len(query_labels)} queries as arrows from the origin and {len(key_labels)} keys as "
               f"squares, in the keys' two main directions ({explained[0]:.0%} and {explained[1]:.0%} of their "
               f"variance); the longest arrow is query {longest}:{query_labels[longest]}.")
    return scatter_chart(
        [Points("queries", query_xy[:, 0], query_xy[:, 1], [f"{i}:{c}" for i, c in enumerate(query_labels)],
                colours[:len(query_labels)], "circle", arrows=True),
         Points("keys", key_xy[:, 0], key_xy[:, 1], [f"{i}:{c}" for i, c in enumerate(key_labels)],
                colours[:len(key_labels)], "square")],
        title, f"keys' direction 1 ({explained[0]:.0%} of their variance)", f"keys' direction 2 ({explained[1]:.0%})",
        summary, equal=True)


def maps_with_and_without(intact: np.ndarray, without: np.ndarray, query_labels: list[str], key_labels: list[str],
                          off: str, title: str = "", projector: bool = False) -> dict:
    """(H, Tq, Tk) one layer's weights with every head on (top row) and with the head `off` switched off (bottom
    row), on one colour scale, as a canvas grid: what that head passes on is what changes from the top row to the
    bottom one. Titles are short, as four panels share a phone's width: the bottom row's heads are starred."""
    n_heads = len(intact)
    panels = [(f"H{h}", intact[h]) for h in range(n_heads)] + [(f"H{h}*", without[h]) for h in range(n_heads)]
    names = ([f"last layer, head {h}, every head on" for h in range(n_heads)]
             + [f"last layer, head {h}, {off} off" for h in range(n_heads)])
    return heatmap_spec(panels, list(query_labels), list(key_labels), f"{title}; *: without {off}",
                        "output step (query)", "source position (key)",
                        projector=projector, panel_names=names, columns=n_heads, min_panel=GRID_MIN_PANEL,
                        strip_height=GRID_STRIP)
