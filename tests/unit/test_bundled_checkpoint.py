"""The shipped checkpoint meets the bars of the model issue, re-measured on a fresh sample."""

from transformer.evaluate import held_out_strings
from transformer.metrics import cross_attention_alignment, exact_match

from ..conftest import BUNDLED


def test_size_and_shape(bundled):
    total = sum(f.stat().st_size for f in BUNDLED.rglob("*") if f.is_file())
    assert total <= 20 * 1024 * 1024  # with the snapshots of its training run
    c = bundled.model.config
    assert (c.n_encoder_layers, c.n_decoder_layers, c.n_heads) == (2, 2, 4)
    assert c.max_len >= 24


def test_recorded_metrics_meet_the_bars(bundled):
    m = bundled.metrics
    assert m["held_out"]["n"] >= 10_000
    assert m["held_out"]["exact_match"] >= 0.999
    assert min(m["held_out"]["per_length"].values()) >= 0.99
    assert set(m["held_out"]["per_length"]) == {str(n) for n in range(1, bundled.model.config.max_len + 1)}
    assert max(m["cross_attention_alignment"]["layer_1"]) >= 0.95
    assert m["train_seconds"] <= 15 * 60


def test_exact_match_and_alignment_hold_on_a_fresh_sample(bundled):
    texts = held_out_strings(1500, bundled.model.config.max_len, seed=4242)
    report = exact_match(bundled.model, bundled.vocab, texts)
    assert report.exact_match >= 0.995
    alignment = cross_attention_alignment(bundled.model, bundled.vocab, texts[:500])
    assert max(alignment["layer_1"]) >= 0.95
