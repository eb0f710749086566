import numpy as np
import torch

from analysis.lesson import companions, scaling_experiment
from transformer.data import pad
from transformer.decoding import greedy_batch
from transformer.vocab import SOS

from .helpers import array, canvas_charts, chart_numbers, figures, no_exception, open_page, plotly_series, svg_charts


def batch_trace(ckpt, texts):
    """The model's own trace of the padded batch, computed here apart from the page's run."""
    sources = [ckpt.vocab.encode(t, 24) for t in texts]
    with torch.inference_mode():
        tgt = pad([[SOS, *out] for out in greedy_batch(ckpt.model, sources)])
        return ckpt.model(pad(sources), tgt, trace=True).trace


def test_masks_page_pads_the_batch_and_zeroes_every_masked_weight(ckpt):
    at = open_page("masks", "hello")
    no_exception(at)
    assert set(figures(at)) == {"scaling"} and svg_charts(at) == {}    # canvases and one Plotly chart
    canvases = canvas_charts(at)
    assert set(canvases) == {"padding_mask", "causal_mask", "scores", "weights"}
    texts = ["hello", *companions("hello", 24)]
    padding = array(canvases["padding_mask"]["panels"][0]["z"]).astype(int)
    assert padding.tolist() == [[int(i < len(t)) for i in range(max(map(len, texts)))] for t in texts]
    hidden = int((padding == 0).sum())
    assert f"{hidden} of {padding.size} cells masked" in canvases["padding_mask"]["summary"]
    assert canvases["padding_mask"]["panels"][0]["hover"][0][len("hello")] == "masked"    # "hello" is padded
    scores = canvases["scores"]["panels"][0]
    weights = array(canvases["weights"]["panels"][0]["z"]).astype(float)
    masked = np.array([[v is None for v in row] for row in scores["z"]])                 # −∞ arrives as null
    assert masked.any() and np.all(weights[masked] == 0)
    assert canvases["scores"]["null_text"] == "−∞ (masked)"
    assert canvases["scores"]["zmin"] == -canvases["scores"]["zmax"]                      # a scale symmetric about 0
    expected = batch_trace(ckpt, texts)["decoder_self", 0][0, 0].numpy()
    assert np.allclose(weights, expected, atol=1e-4)
    causal = array(canvases["causal_mask"]["panels"][0]["z"]).astype(int)
    assert np.array_equal(causal, np.tril(np.ones_like(causal)))
    assert masked.shape == weights.shape


def test_cross_kind_and_batch_row_follow_the_controls(ckpt):
    at = open_page("masks", "hello")
    at.segmented_control(key="mask_kind").set_value("cross").run()
    at.selectbox(key="mask_layer").set_value(1).run()
    at.selectbox(key="mask_head").set_value(2).run()
    at.selectbox(key="mask_row").set_value(1).run()
    no_exception(at)
    texts = ["hello", *companions("hello", 24)]
    expected = batch_trace(ckpt, texts)["cross", 1][1, 2].numpy()
    assert np.allclose(array(canvas_charts(at)["weights"]["panels"][0]["z"]).astype(float), expected, atol=1e-4)


def test_the_scaling_argument_runs_on_random_vectors_for_the_chosen_d_k():
    at = open_page("masks", "attention")
    at.select_slider(key="mask_d_k").set_value(256).run()
    no_exception(at)
    expected = scaling_experiment(256)
    scaled, raw = plotly_series(figures(at)["scaling"]).values()
    assert np.allclose(scaled, expected.scaled_example) and np.allclose(raw, expected.example)
    assert f"no scaling: largest weight {expected.example.max():.3f}" in chart_numbers(at)["scaling"]   # its summary
    table = at.dataframe[-1].value
    assert list(table["d_k"]) == [4, 16, 64, 256, 1024]
    assert np.allclose(table["std of q·k"], table["√d_k"], rtol=0.05)
    assert f"the largest weight {expected.top_weight:.3f} without the scaling" in " ".join(c.value for c in at.caption)
