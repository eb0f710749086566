import numpy as np

from transformer.lesson import companions, run_batch

from .helpers import array, figures, no_exception, open_page


def test_masks_page_pads_the_batch_and_zeroes_every_masked_weight(ckpt):
    at = open_page("masks", "hello")
    no_exception(at)
    charts = figures(at)
    assert set(charts) == {"padding", "causal", "scores", "weights", "scaling"}
    texts = ["hello", *companions("hello", 24)]
    padding = array(charts["padding"]["data"][0]["z"]).astype(int)
    assert padding.tolist() == [[int(i < len(t)) for i in range(max(map(len, texts)))] for t in texts]
    scores = array(charts["scores"]["data"][0]["z"])
    weights = array(charts["weights"]["data"][0]["z"]).astype(float)
    masked = array(charts["scores"]["data"][1]["text"]) == "-inf"
    assert masked.any() and np.all(weights[masked] == 0)
    expected = run_batch(ckpt.model, ckpt.vocab, texts).weights["decoder_self"][0, 0, 0]
    assert np.allclose(weights, expected, atol=1e-6)
    causal = array(charts["causal"]["data"][0]["z"]).astype(int)
    assert np.array_equal(causal, np.tril(np.ones_like(causal)))
    assert scores.shape == weights.shape


def test_cross_kind_and_batch_row_follow_the_controls(ckpt):
    at = open_page("masks", "hello")
    at.segmented_control(key="kind").set_value("cross").run()
    at.selectbox(key="layer").set_value(1).run()
    at.selectbox(key="head").set_value(2).run()
    at.selectbox(key="row").set_value(1).run()
    no_exception(at)
    texts = ["hello", *companions("hello", 24)]
    expected = run_batch(ckpt.model, ckpt.vocab, texts).weights["cross"][1, 1, 2]
    assert np.allclose(array(figures(at)["weights"]["data"][0]["z"]).astype(float), expected, atol=1e-6)


def test_scaling_comparison_is_sharper_without_the_square_root():
    at = open_page("masks", "attention")
    traces = figures(at)["scaling"]["data"]
    scaled, raw = (array(t["y"]).astype(float) for t in traces)
    assert np.isclose(scaled.sum(), 1) and np.isclose(raw.sum(), 1)
    assert raw.max() >= scaled.max()
