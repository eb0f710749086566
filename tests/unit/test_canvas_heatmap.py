"""The canvas heatmap's spec (viz.canvas_heatmap): the sentence a screen reader hears, the scale and its bar."""

import numpy as np

from explorer.components import PROJECTED, themed
from viz.canvas_heatmap import BLUES, CIVIDIS_REVERSED, ON_PROJECTOR, RD_BU, Axes, Grid, Panel, Scale, heatmap_spec


def spec(m, scale=Scale(), col_name=None, projector=False):
    """A spec as the component draws it, with projector mode's values applied where the switch is on."""
    return themed(heatmap_spec([Panel("head 0", np.array(m, dtype=float))],
                               Axes(["a", "b"], ["x", "y"], "query", "key", col_name=col_name), "T", scale), projector)


def test_the_summary_names_the_largest_cell_its_ties_and_an_all_zero_matrix():
    assert spec([[0.1, 0.9], [0.5, 0.2]])["summary"] == (
        "T, 2 rows by 2 columns. head 0: largest weight 0.900, at query 0 (a) and key 1 (y).")
    assert "in 2 cells, the first at query 0 (a) and key 1 (y)" in spec([[0.1, 0.9], [0.9, 0.2]])["summary"]
    assert spec([[0, 0], [0, 0]])["summary"].endswith("head 0: every weight is 0.")


def test_a_signed_scale_says_both_ends_and_its_bar_runs_from_zmin():
    s = spec([[-0.7, 0.4], [0.0, 0.2]], Scale(1, -1, RD_BU, "value"), col_name="dimension")
    assert s["summary"].endswith("largest value 0.400, at query 0 (a) and dimension 1 (y); "
                                 "smallest value -0.700, at query 0 (a) and dimension 0 (x).")
    assert s["bar_ticks"] == ["-1", "-0.5", "0", "0.5", "1"] and (s["zmin"], s["zmax"]) == (-1.0, 1.0)
    assert s["col_name"] == "dimension" and s["col_title"] == "key"


def test_projector_mode_swaps_a_sequential_scale_for_cividis_and_keeps_a_signed_one():
    assert spec([[0.1, 0.9], [0.5, 0.2]], projector=True)["stops"] == [list(c) for c in CIVIDIS_REVERSED]
    assert spec([[0.1, 0.9], [0.5, 0.2]])["stops"] == [list(c) for c in BLUES]
    signed = spec([[-0.7, 0.4], [0.0, 0.2]], Scale(zmin=-1, stops=RD_BU), projector=True)
    assert signed["stops"] == [list(c) for c in RD_BU]


def test_names_given_replace_the_position_and_label_ones():
    s = heatmap_spec([Panel("PE", np.zeros((2, 2)))], Axes(["0", "1"], ["0", "1"], "position", "dimension",
                                                           row_names=["0", "1"], col_names=["0 (sin)", "1 (cos)"]), "T")
    assert (s["row_names"], s["col_names"]) == (["0", "1"], ["0 (sin)", "1 (cos)"])


def test_a_charts_data_goes_as_standard_json_with_the_numbers_json_dumps_writes():
    """explorer.components.json_bytes (orjson): the same values as json.dumps on a spec with rounded weights,
    None for NaN and labels in any script; NaN itself and numpy numbers become JSON a browser's parser takes."""
    import json

    from explorer.components import json_bytes
    m = np.random.default_rng(0).normal(size=(7, 9))
    m[2, 3] = np.nan
    s = heatmap_spec([Panel("head 0", m), Panel("head 1", -m)], Axes(list("abcdéfg"), [f"→{i}" for i in range(9)], "q", "k"),
                     "T", Scale(1, -1, RD_BU))
    strict = json.loads(json_bytes(s), parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
    assert strict == json.loads(json.dumps(s)) and strict["panels"][0]["z"][2][3] is None
    assert json.loads(json_bytes({"x": float("nan"), "n": np.int64(3), "f": np.float32(0.5), 1: "one"})) == {
        "x": None, "n": 3, "f": 0.5, "1": "one"}


def test_a_grid_and_a_panels_own_parts_reach_the_spec_and_projector_mode_adds_room_for_its_type():
    panels = [Panel("H0", np.eye(2), "layer 0, head 0", outlines=[(1, 0, 2)], cells=[["a", "b"], ["c", "d"]]),
              Panel("H1", np.eye(2))]
    s = heatmap_spec(panels, Axes(["a", "b"], ["x", "y"], "query", "key"), "T", grid=Grid(1, 150, 300, gaps=True))
    assert (s["columns"], s["min_panel"], s["height"], s["gaps"]) == (1, 150, 300, True)
    assert [p["name"] for p in s["panels"]] == ["layer 0, head 0", "H1"]
    assert s["panels"][0]["outlines"] == [[1, 0, 2]] and s["panels"][1]["outlines"] == []
    assert "cells" in s["panels"][0] and "cells" not in s["panels"][1]
    assert s["summary"].startswith("T, 2 panels, each 2 rows by 2 columns. layer 0, head 0: largest weight 1.000")
    built = heatmap_spec(panels, Axes(["a", "b"], ["x", "y"], "query", "key"), "T", grid=Grid(height=300))
    projected, plain = themed(built, True), themed(built, False)
    assert (projected["columns"], projected["height"], plain["height"]) == (2, 360, 300)
    assert ON_PROJECTOR not in projected and ON_PROJECTOR not in plain and ON_PROJECTOR in built   # left as built
    assert list(projected) == list(plain)                   # the same keys in the same order, on or off


def test_the_spec_and_the_component_agree_on_where_projector_values_are_kept():
    assert PROJECTED == ON_PROJECTOR
    views = {"views": [heatmap_spec([Panel("H0", np.eye(2))], Axes(["a", "b"], ["x", "y"], "q", "k"), "T")]}
    assert themed(views, True)["views"][0]["font"] > themed(views, False)["views"][0]["font"]
