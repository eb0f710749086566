import numpy as np

from transformer.layers import sinusoidal_encoding

from viz.canvas_heatmap import CIVIDIS_REVERSED, PROJECTOR_FONT, RD_BU
from .helpers import canvas_charts, chart_numbers, figures, no_exception, open_page, plotly_series


def test_positional_page_draws_the_tables_and_the_proofs(ckpt):
    c = ckpt.model.config
    at = open_page("positional", "hello")
    no_exception(at)
    charts, canvases = figures(at), canvas_charts(at)
    assert set(charts) == {"norms", "distances", "rotation"}    # the heatmaps on canvases, these Plotly
    assert set(canvases) == {"pe_model", "pe_custom", "pe_input", "similarity"}
    similar = canvases["similarity"]
    dots = np.array(similar["panels"][0]["z"])
    pe = sinusoidal_encoding(c.max_len + 1, c.d_model).numpy()
    assert np.allclose(dots, pe @ pe.T, atol=1e-3) and np.allclose(np.diag(dots), c.d_model / 2, atol=1e-3)
    assert np.isclose(similar["zmax"], dots.max(), atol=1e-3) and similar["row_names"][2] == "PE(2)"
    assert similar["summary"].startswith("PE · PEᵀ, 49 rows by 49 columns")
    model_pe = np.array(canvases["pe_model"]["panels"][0]["z"])
    assert model_pe.shape == (c.max_len + 1, c.d_model)
    assert np.allclose(model_pe, sinusoidal_encoding(c.max_len + 1, c.d_model).numpy(), atol=1e-4)  # 4 places
    codes = canvases["pe_input"]
    assert codes["rows"][:5] == list("hello")
    assert np.allclose(codes["panels"][0]["z"], sinusoidal_encoding(len(codes["rows"]), c.d_model).numpy(),
                       atol=1e-4)
    assert (codes["zmin"], codes["zmax"], codes["stops"]) == (-1.0, 1.0, [list(s) for s in RD_BU])
    assert codes["col_names"][:2] == ["0 (sin)", "1 (cos)"] and codes["row_names"][1] == "1 (e)"
    top = model_pe.max()
    assert f"largest value {top:.3f}" in canvases["pe_model"]["summary"]
    assert f"smallest value {model_pe.min():.3f}" in canvases["pe_model"]["summary"]
    norms = plotly_series(charts["norms"])
    src = __import__("torch").tensor([ckpt.vocab.encode("hello", 24)])
    scaled = ckpt.model.src_embed(src)[0].norm(dim=1).detach().numpy()
    assert np.allclose(norms["embedding × √d_model"], scaled, atol=1e-5)
    assert np.allclose(norms["positional encoding"], np.sqrt(c.d_model / 2), atol=1e-5)
    assert "over 5 source positions: embedding (unscaled)" in chart_numbers(at)["norms"]   # its summary
    bar = charts["norms"]["data"][0]                                                     # a bar's hover
    assert bar["customdata"][1] == "1 (e)" and bar["hovertemplate"].startswith("embedding (unscaled), position ")
    error = next(m.value for m in at.metric if m.label.startswith("Largest error"))
    assert float(error) < 1e-5


def test_custom_size_follows_the_sliders():
    at = open_page("positional", "hello")
    at.select_slider[0].set_value(32).run()
    at.slider[0].set_value(40).run()
    z = np.array(canvas_charts(at)["pe_custom"]["panels"][0]["z"])
    assert z.shape == (40, 32)
    assert np.allclose(z, sinusoidal_encoding(40, 32).numpy(), atol=1e-4)


def test_projector_mode_enlarges_the_tables_and_keeps_their_signed_scale():
    plain, projected = (canvas_charts(open_page("positional", "level", state={"projector": on}))
                        for on in (False, True))
    for key in ("pe_model", "pe_custom", "pe_input"):
        assert projected[key]["font"] == PROJECTOR_FONT and plain[key]["font"] < PROJECTOR_FONT
        assert projected[key]["stops"] == plain[key]["stops"] == [list(s) for s in RD_BU]   # not Cividis
        assert projected[key]["stops"] != [list(s) for s in CIVIDIS_REVERSED]


def test_rotation_lands_on_the_shifted_encoding():
    at = open_page("positional", "hello")
    at.slider[1].set_value(7).run()   # delta
    at.slider[2].set_value(4).run()   # pos
    actual, rotated = plotly_series(figures(at)["rotation"]).values()
    assert np.allclose(actual, sinusoidal_encoding(30, 64).numpy()[11][: len(actual)], atol=1e-6)
    assert np.allclose(actual, rotated, atol=1e-5)


def test_distance_lines_are_flat():
    at = open_page("positional", "hello")
    lines = plotly_series(figures(at)["distances"])
    assert len(lines) >= 2
    for y in lines.values():
        assert y.max() - y.min() < 1e-5
