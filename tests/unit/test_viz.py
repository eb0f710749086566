import numpy as np

from viz import attention_heatmap


def test_cell_values_are_printed_only_while_cells_can_hold_them():
    short = attention_heatmap(np.full((1, 5), 0.2), ["q"], list("hello"))
    long = attention_heatmap(np.full((1, 24), 0.04), ["q"], list("abcdefghijklmnopqrstuvwx"))
    assert short.data[0].texttemplate == "%{z:.2f}"
    assert long.data[0].texttemplate is None


def test_repeated_letters_keep_their_own_columns():
    fig = attention_heatmap(np.eye(5), list("level"), list("level"))
    columns = list(fig.data[0].x)
    assert len(set(columns)) == 5 and columns[0] != columns[4]        # the two l's are two columns
    assert list(fig.layout.xaxis.tickvals) == columns                  # a tick on each column...
    assert list(fig.layout.xaxis.ticktext) == list("level")            # ...showing its letter
    assert fig.layout.xaxis.type == fig.layout.yaxis.type == "category"
    assert (fig.data[0].zmin, fig.data[0].zmax) == (0, 1)


def test_a_narrow_chart_labels_every_kth_token_and_still_names_every_cell():
    text = "the quick brown fox jumps over the lazy dog abcd"                # 48 characters
    fig = attention_heatmap(np.eye(48), list(text), list(text), max_ticks=16)
    columns = list(fig.data[0].x)
    assert len(columns) == 48                                           # hover still names all 48 columns
    assert list(fig.layout.xaxis.tickvals) == columns[::3]              # a label on every third
    assert list(fig.layout.xaxis.ticktext) == list(text[::3])
    assert len(fig.layout.yaxis.ticktext) == 16
    short = attention_heatmap(np.eye(5), list("hello"), list("hello"), max_ticks=16)
    assert list(short.layout.xaxis.ticktext) == list("hello")           # few tokens: every one labelled


def test_the_grid_gives_every_head_a_panel_named_in_full_on_one_scale():
    from viz import attention_grid_spec
    weights = np.random.default_rng(0).random((2, 3, 4, 5))
    spec = attention_grid_spec(weights, list("abcd"), list("vwxyz"), "T")
    assert [p["title"] for p in spec["panels"]] == [f"L{r} H{c}" for r in range(2) for c in range(3)]
    assert spec["panels"][5]["name"] == "layer 1, head 2" and spec["columns"] == 3
    assert np.allclose(spec["panels"][5]["z"], weights[1, 2], atol=5e-5)
    assert (spec["zmin"], spec["zmax"]) == (0.0, 1.0)
    assert spec["summary"].startswith("T, 6 panels, each 4 rows by 5 columns. layer 0, head 0: largest weight")


def test_mask_cells_are_labelled_only_while_the_word_fits_in_them():
    from viz import mask_heatmap
    narrow = mask_heatmap(np.ones((3, 24), dtype=bool), list("abc"), [str(i) for i in range(24)])
    wide = mask_heatmap(np.ones((3, 8), dtype=bool), list("abc"), [str(i) for i in range(8)])
    assert narrow.data[0].texttemplate is None and wide.data[0].texttemplate == "%{text}"


def test_vector_rows_colour_by_sign_keep_every_value_and_escape_names():
    from viz.strips import colour, vector_rows
    assert colour(0.0, 2.0) == "rgb(247,247,247)"                     # white at zero
    assert colour(-2.0, 2.0) == "rgb(178,24,43)" and colour(5.0, 2.0) == "rgb(33,102,172)"  # full red, full blue
    table = vector_rows([np.array([-1.5, 0.25]), np.array([2.0, 0.0])], ["<q>", "k"], outlined=1, ruled=1)
    assert table.count("<td ") == 4
    assert 'data-value="-1.5"' in table and 'data-value="0.25"' in table and ">-1.50<" in table
    assert "<q>" not in table and "&lt;q&gt;" in table
    assert "outline:3px" in table and table.count("border-top:2px") == 3   # the ruled row: its name and two cells


def test_the_vote_spread_marks_no_answer_and_labels_each_bar_with_its_count_and_share():
    from viz.classroom import vote_spread
    fig = vote_spread(("a", "b", "c"), (3, 1, 0), "Round 1")
    bar = fig.data[0]
    assert list(bar.x) == ["a", "b", "c"] and list(bar.y) == [3, 1, 0]
    assert isinstance(bar.marker.color, str)                 # one colour for every bar: the right one is not told
    assert list(bar.text) == ["3 (75%)", "1 (25%)", "0 (0%)"]
    assert list(vote_spread(("a",), (0,)).data[0].text) == ["0"]
