"""Plotly figure builders: numpy arrays and labels in, go.Figure out. No streamlit, no torch."""

from .attention import attention_grid_spec, attention_heatmap, attention_side_by_side
from .attribution import lens_rows
from .decoding import probability_bars, temperature_bars
from .masks import mask_heatmap, scores_heatmap, softmax_comparison
from .style import HALF_WIDTH_TICKS, THIRD_WIDTH_TICKS, panels
from .positional import encoding_heatmap, encoding_spec, norms_bars, offset_distance_chart, rotation_check_chart, similarity_heatmap

__all__ = [
    "attention_grid_spec", "attention_heatmap", "attention_side_by_side", "lens_rows", "probability_bars", "temperature_bars",
    "mask_heatmap", "scores_heatmap", "softmax_comparison", "encoding_heatmap", "encoding_spec", "norms_bars", "offset_distance_chart",
    "rotation_check_chart", "similarity_heatmap", "panels", "HALF_WIDTH_TICKS", "THIRD_WIDTH_TICKS",
]
