"""The canvas heatmap's spec (viz.canvas_heatmap): the sentence a screen reader hears, the scale and its bar."""

import numpy as np

from viz.canvas_heatmap import BLUES, CIVIDIS_REVERSED, RD_BU, heatmap_spec


def spec(m, **kw):
    return heatmap_spec([("head 0", np.array(m, dtype=float))], ["a", "b"], ["x", "y"], "T", "query", "key", **kw)


def test_the_summary_names_the_largest_cell_its_ties_and_an_all_zero_matrix():
    assert spec([[0.1, 0.9], [0.5, 0.2]])["summary"] == (
        "T, 2 rows by 2 columns. head 0: largest weight 0.900, at query 0 (a) and key 1 (y).")
    assert "in 2 cells, the first at query 0 (a) and key 1 (y)" in spec([[0.1, 0.9], [0.9, 0.2]])["summary"]
    assert spec([[0, 0], [0, 0]])["summary"].endswith("head 0: every weight is 0.")


def test_a_signed_scale_says_both_ends_and_its_bar_runs_from_zmin():
    s = spec([[-0.7, 0.4], [0.0, 0.2]], zmin=-1, zmax=1, stops=RD_BU, value_name="value", col_name="dimension")
    assert s["summary"].endswith("largest value 0.400, at query 0 (a) and dimension 1 (y); "
                                 "smallest value -0.700, at query 0 (a) and dimension 0 (x).")
    assert s["bar_ticks"] == ["-1", "-0.5", "0", "0.5", "1"] and (s["zmin"], s["zmax"]) == (-1.0, 1.0)
    assert s["col_name"] == "dimension" and s["col_title"] == "key"


def test_projector_mode_swaps_a_sequential_scale_for_cividis_and_keeps_a_signed_one():
    assert spec([[0.1, 0.9], [0.5, 0.2]], projector=True)["stops"] == [list(c) for c in CIVIDIS_REVERSED]
    assert spec([[0.1, 0.9], [0.5, 0.2]])["stops"] == [list(c) for c in BLUES]
    signed = spec([[-0.7, 0.4], [0.0, 0.2]], zmin=-1, stops=RD_BU, projector=True)
    assert signed["stops"] == [list(c) for c in RD_BU]


def test_names_given_replace_the_position_and_label_ones():
    s = heatmap_spec([("PE", np.zeros((2, 2)))], ["0", "1"], ["0", "1"], "T", "position", "dimension",
                     row_names=["0", "1"], col_names=["0 (sin)", "1 (cos)"])
    assert (s["row_names"], s["col_names"]) == (["0", "1"], ["0 (sin)", "1 (cos)"])


def test_a_charts_data_goes_as_standard_json_with_the_numbers_json_dumps_writes():
    """explorer.canvas_charts.json_bytes (orjson): the same values as json.dumps on a spec with rounded weights,
    None for NaN and labels in any script; NaN itself and numpy numbers become JSON a browser's parser takes."""
    import json

    from explorer.canvas_charts import json_bytes
    m = np.random.default_rng(0).normal(size=(7, 9))
    m[2, 3] = np.nan
    s = heatmap_spec([("head 0", m), ("head 1", -m)], list("abcdéfg"), [f"→{i}" for i in range(9)], "T", "q", "k",
                     zmin=-1, zmax=1, stops=RD_BU)
    strict = json.loads(json_bytes(s), parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
    assert strict == json.loads(json.dumps(s)) and strict["panels"][0]["z"][2][3] is None
    assert json.loads(json_bytes({"x": float("nan"), "n": np.int64(3), "f": np.float32(0.5), 1: "one"})) == {
        "x": None, "n": 3, "f": 0.5, "1": "one"}
