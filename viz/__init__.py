"""Plotly figure builders: numpy arrays and labels in, go.Figure out. No streamlit, no torch."""

from .attention import attention_grid_spec, side_by_side_spec, weights_spec
from .attribution import lens_rows_spec
from .decoding import probability_bars, temperature_bars
from .masks import mask_spec, scores_spec, softmax_comparison
from .style import HALF_WIDTH_TICKS, THIRD_WIDTH_TICKS, panels
from .positional import encoding_spec, norms_bars, offset_distance_chart, rotation_check_chart, similarity_spec

__all__ = [
    "attention_grid_spec", "side_by_side_spec", "weights_spec", "lens_rows_spec", "probability_bars", "temperature_bars",
    "mask_spec", "scores_spec", "softmax_comparison", "encoding_spec", "norms_bars", "offset_distance_chart",
    "rotation_check_chart", "similarity_spec", "panels", "HALF_WIDTH_TICKS", "THIRD_WIDTH_TICKS",
]
