import re

import numpy as np
import pytest

from viz import weights_spec


def test_cell_values_are_sent_only_while_the_matrix_is_small_and_repeated_letters_keep_their_names():
    short = weights_spec(np.eye(5), list("level"), list("level"), "T", highlight_row=2, highlight_cell=(1, 3))
    long = weights_spec(np.full((48, 48), 1 / 48), list("a" * 48), list("b" * 48), "T")
    assert short["panels"][0]["cells"][0] == ["1.00", "0.00", "0.00", "0.00", "0.00"]
    assert "cells" not in long["panels"][0]
    assert short["row_names"][0] != short["row_names"][4] and short["col_names"][4] == "4 (l)"   # two l's apart
    assert short["panels"][0]["outlines"] == [[2, 0, 5], [1, 3, 4]]                   # the row, then the cell
    assert (short["zmin"], short["zmax"]) == (0.0, 1.0)
    assert short["summary"] == ("T, 5 rows by 5 columns. T: largest weight 1.000, in 5 cells, the first at query "
                                "position 0 (l) and key position 0 (l).")


def test_the_grid_gives_every_head_a_panel_named_in_full_on_one_scale():
    from viz import attention_grid_spec
    weights = np.random.default_rng(0).random((2, 3, 4, 5))
    spec = attention_grid_spec(weights, list("abcd"), list("vwxyz"), "T")
    assert [p["title"] for p in spec["panels"]] == [f"L{r} H{c}" for r in range(2) for c in range(3)]
    assert spec["panels"][5]["name"] == "layer 1, head 2" and spec["columns"] == 3
    assert np.allclose(spec["panels"][5]["z"], weights[1, 2], atol=5e-5)
    assert (spec["zmin"], spec["zmax"]) == (0.0, 1.0)
    assert spec["summary"].startswith("T, 6 panels, each 4 rows by 5 columns. layer 0, head 0: largest weight")


def test_mask_and_score_cells_carry_their_words_only_while_the_matrix_is_small():
    from viz import mask_spec, scores_spec
    large = mask_spec(np.ones((7, 24), dtype=bool), list("abcdefg"), [str(i) for i in range(24)], "M")
    small = mask_spec(np.tril(np.ones((3, 3), dtype=bool)), list("abc"), list("abc"), "M")
    assert "cells" not in large["panels"][0] and small["panels"][0]["cells"][0] == ["attend", "masked", "masked"]
    assert small["summary"].endswith("3 of 9 cells masked, 6 may be attended to.") and small["bar"] is False
    scores = scores_spec(np.array([[1.5, -np.inf], [-3.0, 0.25]]), list("ab"), list("cd"), "S")
    assert scores["panels"][0]["z"] == [[1.5, None], [-3.0, 0.25]]
    assert scores["panels"][0]["cells"] == [["1.5", "−∞"], ["-3.0", "0.2"]]
    assert (scores["zmin"], scores["zmax"]) == (-3.0, 3.0)
    assert "smallest score -3.000" in scores["summary"]


def test_a_table_of_cells_is_sent_as_its_numbers_names_and_marks():
    """viz.strips.vector_rows_spec: what the browser draws a table of cells from (explorer/components/front_end.js,
    tested in tests/e2e/test_browser.py): every value, each row's name, the outlined and ruled rows."""
    from viz.strips import vector_rows_spec
    spec = vector_rows_spec([np.array([-1.5, 0.25]), np.array([2.0, 0.0])], ["q", "k"], "T", outlined=1, ruled=1)
    assert spec["vectors"].tolist() == [[-1.5, 0.25], [2.0, 0.0]] and spec["names"] == ["q", "k"]
    assert (spec["title"], spec["outlined"], spec["ruled"], spec["show_values"]) == ("T", 1, 1, None)


def test_the_vote_spread_marks_no_answer_and_labels_each_bar_with_its_count_and_share():
    from viz.classroom import vote_spread
    markup = vote_spread(("a", "b", "c"), (3, 1, 0), "Round 1")
    bars = re.findall(r'data-row="([^"]*)" data-value="([^"]*)" title="[^"]*" style="[^"]*background:(#\w+)', markup)
    assert [(row, float(v)) for row, v, _ in bars] == [("a", 3.0), ("b", 1.0), ("c", 0.0)]
    assert len({colour for _, _, colour in bars}) == 1       # one colour for every bar: the right one is not told
    assert re.findall(r"tabular-nums\">([^<]+)<", markup) == ["3 (75%)", "1 (25%)", "0 (0%)"]
    assert 'aria-label="Round 1: a: 3 (75%); b: 1 (25%); c: 0 (0%)."' in markup
    assert re.findall(r"tabular-nums\">([^<]+)<", vote_spread(("a",), (0,))) == ["0"]


def test_a_line_over_positions_keeps_every_value_its_order_and_its_summary():
    from viz.plotly_charts import Series, xy_chart
    chart = xy_chart([Series("up", np.array([0.0, 1.0, 2.0]), "#0072b2"),
                      Series("flat", np.array([1.0, 1.0, 1.0]), "#b45309", markers_only=True)],
                     "T", "x", "y", "T: a summary.", point_name="pos", from_zero=True, band=(0, 1, "seen"))
    up, flat = chart.figure.data
    assert list(up.x) == [0, 1, 2] and list(up.y) == [0.0, 1.0, 2.0] and up.mode == "lines+markers"
    assert flat.mode == "markers"                                  # markers only: no line between them
    assert up.hovertemplate.startswith("up, pos %{x:~g}: ") and chart.summary == "T: a summary."   # pos 2, not 2.00000
    assert list(flat.marker.size) == [9, 9, 9]                      # markers only: every one drawn, none thinned out
    assert chart.headers == ("pos", "up", "flat") and chart.rows[2] == ("2", "2", "1")   # one row a position
    assert chart.figure.layout.yaxis.range[0] == 0 and chart.figure.layout.yaxis.range[1] >= 2
    (band,) = chart.figure.layout.shapes
    assert (band.x0, band.x1) == (-0.5, 1.5) and chart.figure.layout.annotations[0].text == "seen"


def test_grouped_bars_keep_a_repeated_label_apart_and_name_each_bar():
    from viz.plotly_charts import Series, bar_chart
    chart = bar_chart([Series("a", np.array([1.0, 2.0, 3.0]), "#0072b2"), Series("b", np.array([3.0, 2.0, 1.0]),
                                                                                 "#b45309")],
                      ["x", "y", "x"], "T", "position", "value", "T: three of each.", point_name="pos",
                      x_names=["0 (x)", "1 (y)", "2 (x)"])
    first, second = chart.figure.data
    assert list(first.x) == [0, 1, 2] and list(second.y) == [3.0, 2.0, 1.0]       # the two x's stay two bars
    assert list(chart.figure.layout.xaxis.ticktext) == ["x", "y", "x"] and first.customdata[2] == "2 (x)"
    assert chart.figure.layout.barmode == "group" and chart.figure.layout.yaxis.range[0] == 0
    assert chart.rows == (("0 (x)", "1", "3"), ("1 (y)", "2", "2"), ("2 (x)", "3", "1"))


def test_every_chart_carries_its_numbers_as_a_table_behind_one_click():
    from html.parser import HTMLParser

    from viz.lab import harm_against_pattern, length_curve
    from viz.training import learning_curves

    def table(markup: str) -> list[list[str]]:
        rows: list[list[str]] = []

        class Cells(HTMLParser):
            inside = False

            def handle_starttag(self, tag, attrs):
                if tag == "details":
                    self.inside = True
                elif self.inside and tag == "tr":
                    rows.append([])

            def handle_endtag(self, tag):
                if tag == "details":
                    self.inside = False

            def handle_data(self, data):
                if self.inside and rows:
                    rows[-1].append(data)

        Cells().feed(markup)
        return rows

    line = length_curve({1: 1.0, 2: 0.75, 3: 0.5}, 2, "By length").numbers_html()
    assert "<summary>The numbers as a table</summary>" in line
    assert table(line) == [["length", "exact match"], ["1", "100.0%"], ["2", "75.0%"], ["3", "50.0%"]]
    curve = [{"step": s, "loss": 1 / (1 + s), "exact_match": s / 200, "alignment": 0.5} for s in (0, 100, 200)]
    rows = table(learning_curves(curve, 100)[0].numbers_html())   # a Plotly chart's (viz.plotly_charts)
    assert rows == [["step", "held-out loss"], ["0", "1"], ["100", "0.009901"], ["200", "0.004975"]]
    scatter = table(harm_against_pattern(["cross L0 H0", "cross L0 H1"], ["cross", "cross"], [0.25, 0.5],
                                         [0.1, 0.0]).numbers_html())
    assert scatter[1:] == [["cross L0 H0", "0.25", "10.0%"], ["cross L0 H1", "0.5", "0.0%"]]


def test_a_scatters_labels_never_sit_on_one_another_and_every_point_keeps_its_hover():
    from viz.plotly_charts import Points, scatter_chart

    crowd = Points("heads", np.array([0.10, 0.101, 0.102, 0.9]), np.array([0.5, 0.5, 0.501, 0.1]),
                   ["L0 H0", "L0 H1", "L0 H2", "L1 H3"], "#1d4ed8")
    (points,) = scatter_chart([crowd], "t", "x", "y", "s").figure.data
    assert list(points.text) == ["L0 H0", "", "", "L1 H3"]                 # the two piled on L0 H0 left out
    assert list(points.customdata) == ["L0 H0", "L0 H1", "L0 H2", "L1 H3"]   # each point still says what it is
    assert "%{customdata}" in points.hovertemplate
    apart = Points("heads", np.array([0.1, 0.9]), np.array([0.5, 0.5]), ["L0 H0", "L0 H1"], "#1d4ed8")
    assert list(scatter_chart([apart], "t", "x", "y", "s").figure.data[0].text) == ["L0 H0", "L0 H1"]
    unscored = Points("heads", np.array([np.nan, 0.1]), np.array([0.5, 0.5]), ["L0 H0", "L0 H1"], "#1d4ed8")
    drawn = scatter_chart([unscored], "t", "x", "y", "s", x_range=(0.0, 1.0), y_range=(0.0, 1.0)).figure.data[0]
    assert list(drawn.text) == ["", "L0 H1"]        # a point with no score is not drawn and takes no label's room


def test_an_equal_scatter_keeps_one_scale_and_writes_a_learners_markup_as_text():
    from viz.plotly_charts import Points, scatter_chart

    arrows = Points("queries", np.array([2.0, -1.0]), np.array([0.5, 0.2]), ["0:<b>", "1:&"], "#1d4ed8",
                    arrows=True)
    figure = scatter_chart([arrows], "t", "x", "y", "s", equal=True).figure
    x, y = figure.layout.xaxis.range, figure.layout.yaxis.range
    assert x[1] - x[0] == pytest.approx(y[1] - y[0]) and figure.layout.yaxis.scaleanchor == "x"
    assert list(figure.data[1].customdata) == ["0:&lt;b&gt;", "1:&amp;"]   # shown as typed, never as bold


def test_the_strips_column_numbers_are_22_px_on_a_projector():
    """0.8 rem of projector mode's 28-px root; a laptop keeps its smaller type."""
    from explorer.components import themed
    from viz.strips import PROJECTOR_TICK, ROW_NAME, TICK, vector_rows_spec

    spec = vector_rows_spec([np.ones(24)], ["x"])
    assert (themed(spec, False)["tick"], themed(spec, False)["row_name_size"]) == (TICK, ROW_NAME)
    assert (themed(spec, True)["tick"], themed(spec, True)["row_name_size"]) == (PROJECTOR_TICK, PROJECTOR_TICK)
    assert float(PROJECTOR_TICK[:-3]) * 28 >= 22


def test_a_scatter_of_small_percentages_writes_ticks_that_differ():
    from viz.lab import harm_against_pattern

    small = harm_against_pattern(["cross L0 H0", "cross L0 H1"], ["cross", "cross"], [0.2, 0.5], [0.0, 0.004])
    wide = harm_against_pattern(["cross L0 H0", "cross L0 H1"], ["cross", "cross"], [0.2, 0.5], [0.0, 0.6])
    assert (small.figure.layout.yaxis.tickformat, wide.figure.layout.yaxis.tickformat) == (".1%", ".0%")
