"""Shared sizes and labels of the figures."""

from __future__ import annotations


def matrix_height(rows: int) -> int:
    """Pixels for a heatmap of `rows` rows: 34 a row up to 20 rows, then the 800 px of 20 rows shared out. A
    48-character text's matrix was 1,786 px tall, taller than any screen, and Chromium took longer to lay out
    and paint it at every redraw (`python -m benchmarks.view_change`)."""
    return max(260, 34 * min(rows, 20) + 120)


def position_labels(labels: list[str]) -> list[str]:
    """'h' at 0 -> '0:h': unique names for tables and hover, even for repeated letters."""
    return [f"{i}:{label}" for i, label in enumerate(labels)]
