import numpy as np

from transformer.layers import sinusoidal_encoding

from .helpers import array, figures, no_exception, open_page


def test_positional_page_draws_the_tables_and_the_proofs(ckpt):
    at = open_page("positional", "hello")
    no_exception(at)
    charts = figures(at)
    assert set(charts) == {"pe_model", "pe_custom", "pe_input", "norms", "similarity", "distances", "rotation"}
    c = ckpt.model.config
    model_pe = array(charts["pe_model"]["data"][0]["z"]).astype(float)
    assert model_pe.shape == (c.max_len + 1, c.d_model)
    assert np.allclose(model_pe, sinusoidal_encoding(c.max_len + 1, c.d_model).numpy(), atol=1e-6)
    norms = charts["norms"]["data"]
    src = __import__("torch").tensor([ckpt.vocab.encode("hello", 24)])
    scaled = ckpt.model.src_embed(src)[0].norm(dim=1).detach().numpy()
    assert np.allclose(array(norms[1]["y"]).astype(float), scaled, atol=1e-5)
    assert np.allclose(array(norms[2]["y"]).astype(float), np.sqrt(c.d_model / 2), atol=1e-5)
    error = next(m.value for m in at.metric if m.label.startswith("Largest error"))
    assert float(error) < 1e-5


def test_custom_size_follows_the_sliders():
    at = open_page("positional", "hello")
    at.select_slider[0].set_value(32).run()
    at.slider[0].set_value(40).run()
    z = array(figures(at)["pe_custom"]["data"][0]["z"]).astype(float)
    assert z.shape == (40, 32)
    assert np.allclose(z, sinusoidal_encoding(40, 32).numpy(), atol=1e-6)


def test_rotation_lands_on_the_shifted_encoding():
    at = open_page("positional", "hello")
    at.slider[1].set_value(7).run()   # delta
    at.slider[2].set_value(4).run()   # pos
    traces = figures(at)["rotation"]["data"]
    actual, rotated = (array(t["y"]).astype(float) for t in traces)
    assert np.allclose(actual, sinusoidal_encoding(30, 64).numpy()[11][: len(actual)], atol=1e-6)
    assert np.allclose(actual, rotated, atol=1e-5)


def test_distance_lines_are_flat():
    at = open_page("positional", "hello")
    for trace in figures(at)["distances"]["data"]:
        y = array(trace["y"]).astype(float)
        assert y.max() - y.min() < 1e-5
