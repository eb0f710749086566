import numpy as np

from viz import attention_heatmap


def test_cell_values_are_printed_only_while_cells_can_hold_them():
    short = attention_heatmap(np.full((1, 5), 0.2), ["q"], list("hello"))
    long = attention_heatmap(np.full((1, 24), 0.04), ["q"], list("abcdefghijklmnopqrstuvwx"))
    assert short.data[0].texttemplate == "%{z:.2f}"
    assert long.data[0].texttemplate is None


def test_repeated_letters_keep_their_own_columns():
    fig = attention_heatmap(np.eye(5), list("level"), list("level"))
    assert list(fig.layout.xaxis.tickvals) == [0, 1, 2, 3, 4]
    assert list(fig.layout.xaxis.ticktext) == list("level")
    assert (fig.data[0].zmin, fig.data[0].zmax) == (0, 1)
