"""Figure builders: numpy arrays and labels in, a canvas spec (drawn by explorer/components/front_end.js), a
Plotly figure (viz.plotly_charts), SVG or HTML markup out. No streamlit, no torch."""

from .attention import attention_grid_spec, side_by_side_spec, weights_spec
from .attribution import lens_rows_spec
from .decode_steps import bars_spec
from .masks import mask_spec, scores_spec, softmax_comparison
from .positional import encoding_spec, norms_bars, offset_distance_chart, rotation_check_chart, similarity_spec

__all__ = [
    "attention_grid_spec", "side_by_side_spec", "weights_spec", "lens_rows_spec", "bars_spec",
    "mask_spec", "scores_spec", "softmax_comparison", "encoding_spec", "norms_bars", "offset_distance_chart",
    "rotation_check_chart", "similarity_spec",
]
